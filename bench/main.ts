import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuCheckMs } from './calibration';
import { type FootprintRow, measureFootprint } from './footprint';
import { LONG_MERGES, type LongMergeRow, measureLongMerges, measureStoreOverhead, type StoreOverheadRow } from './long-merge';
import { type MetricsOverheadRow, measureMetricsOverhead } from './metrics';
import { measureOverhead, measureSpeedup, measureThroughput } from './perf';
import { replaceSection, table } from './sections';
import { measureStartup, type StartupRow } from './startup';
import { measureStepCost } from './step-cost';
import type { StepFloorRow } from './step-floor';

/**
 * `npm run bench`: every number of BENCHMARKS.md, measured in one run on this machine, as ratios
 * where the absolute time depends on the machine. `npm run bench -- --only startup` measures only
 * the start-up and replaces that section of BENCHMARKS.md, leaving the others as they are.
 */
const quick = process.argv.includes('--quick');
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const ALONE = ['startup', 'floor', 'long-merge', 'store', 'metrics'];
if (only !== undefined && !ALONE.includes(only))
  throw new Error(`--only ${only}: the stages that run alone are ${ALONE.map((s) => `"${s}"`).join(', ')}`);

const log = (line: string) => console.error(line);
const started = Date.now();
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;

/** The Start-up section: its own date and CPU check, as `--only startup` rewrites it alone. */
function startupSection(rows: StartupRow[], cpuMs: number): string {
  return `## Start-up

Measured on ${new Date().toISOString().slice(0, 10)}, ${machine}, CPU check ${cpuMs} ms. The compiled programs
(\`npm run build\`, decision 22), each a fresh process timed from its spawn, against a private dev
server that is already up: median, fastest and slowest of ${quick ? 3 : 5} starts after a warm-up.
The run uses the simulated LLM (0 ms per call) in a thread of the CLI and a worker in its process.

${table(rows)}
`;
}

/** The floor section: the Controller's dependent step against the least any workflow can do. */
function floorSection(rows: StepFloorRow[], cpuMs: number): string {
  return `## The floor under a dependent step

Measured on ${new Date().toISOString().slice(0, 10)}, ${machine}, CPU check ${cpuMs} ms. The Controller
running a chain of 8 single-sample LLM calls (50 ms each), against a workflow that does nothing but
await the same activity 8 times with the same options (\`bench/workflows/floor.ts\`), on one worker,
one dev server and one simulated endpoint, alternating, ${quick ? 3 : 7} runs each after a warm-up.
\`perStepMs\` is what a step costs besides the call; \`workflowTaskMs\` a workflow task by the
server's clock (median); \`workerTaskMs\` the worker's time on one (the SDK core's
\`workflow_task_execution_latency\`, mean). What the bare chain costs is the SDK's, the server's
and this machine's; the difference is the Controller's own (decision 24). The target of
15 ms per step lies below what the bare chain itself costs here: that floor is not the Controller's.

${table(rows)}
`;
}

/** The long merges section: documents that do not fit one prompt, payloads kept in the store. */
function longMergeSection(rows: LongMergeRow[], cpuMs: number): string {
  return `## Long document merges

Measured on ${new Date().toISOString().slice(0, 10)}, ${machine}, CPU check ${cpuMs} ms. GoT merges on the
simulated LLM (0 ms per call; its own work on long prompts is real), one worker in the bench's process,
the payload store a folder with the default 2 KiB threshold (decisions 32, 37). \`historyKB\` and
\`largestEventKB\` are the history as the server keeps it (protobuf, references in place of stored
payloads); \`storedMB\` what went to the store. Neither merge fits its window (8 × 95,000 characters
are about 200K tokens), so GoT merges section by section (forEach, decisions 35 and 36); without the
store, the 8-document merge had made a 10.7 MB history that could not be sent and never finished.

${table(rows)}
`;
}

/** The store section: what keeping payloads out of the history costs a paper-sized run. */
function storeSection(rows: StoreOverheadRow[], cpuMs: number): string {
  return `## The payload store on paper-sized runs

Measured on ${new Date().toISOString().slice(0, 10)}, ${machine}, CPU check ${cpuMs} ms. The same GoT run with
every payload inline (\`GOT_STORE=off\`) and with the default store (a folder, payloads of 2 KiB or
more stored and read back), alternating which goes first, each setting on its own private dev server and in-process
worker, the simulator at 50 ms per call: median wall time of ${quick ? 3 : 7} runs after a warm-up.
\`ratio\` is stored over inline.

${table(rows)}
`;
}

/** The metrics section: what a worker serving Prometheus metrics costs a paper-sized run. */
function metricsSection(rows: MetricsOverheadRow[], cpuMs: number): string {
  return `## Metrics on paper-sized runs

Measured on ${new Date().toISOString().slice(0, 10)}, ${machine}, CPU check ${cpuMs} ms. The same GoT run on a worker
process without metrics and on one with \`GOT_METRICS_ADDRESS\` (the SDK's metrics and ours, scraped at
the end), alternating which goes first, against one private dev server, the simulator at 50 ms per call: median wall
time of ${quick ? 3 : 7} runs after a warm-up. \`ratio\` is on over off (decision 53).

${table(rows)}
`;
}

/** The floor stage runs in a process of its own: it installs the SDK runtime with a metrics endpoint. */
function measureFloorApart(): StepFloorRow[] {
  const out = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./step-floor.ts', import.meta.url)), String(quick ? 3 : 7), '--json'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (out.status !== 0) throw new Error(`bench/step-floor.ts exited with ${out.status}`);
  return JSON.parse(out.stdout.trim().split('\n').at(-1)!) as StepFloorRow[];
}

if (only === 'startup') {
  log('start-up…');
  replaceSection('Start-up', startupSection(await measureStartup(quick ? 3 : 5), cpuCheckMs()));
  process.exit(0);
}
if (only === 'long-merge') {
  log('long document merges…');
  replaceSection('Long document merges', longMergeSection(await measureLongMerges(LONG_MERGES), cpuCheckMs()));
  process.exit(0);
}
if (only === 'store') {
  log('the payload store on paper-sized runs…');
  replaceSection('The payload store on paper-sized runs', storeSection(await measureStoreOverhead(quick ? 3 : 7), cpuCheckMs()));
  process.exit(0);
}
if (only === 'metrics') {
  log('metrics on paper-sized runs…');
  replaceSection('Metrics on paper-sized runs', metricsSection(await measureMetricsOverhead(quick ? 3 : 7), cpuCheckMs()));
  process.exit(0);
}
if (only === 'floor') {
  log('the floor under a dependent step…');
  replaceSection('The floor under a dependent step', floorSection(measureFloorApart(), cpuCheckMs()));
  process.exit(0);
}

const cpuBefore = cpuCheckMs();
log('overhead ratio…');
const overhead = await measureOverhead(
  [
    ['sorting', 'got', 128],
    ['doc-merge', 'got', 4],
  ],
  [50, 500],
  quick ? 1 : 5,
);
log('cost of a dependent step…');
const step = await measureStepCost(50, 8, quick ? 3 : 7);
log('parallel speed-up…');
const speedup = await measureSpeedup(
  [
    ['sorting', 'got', 128],
    ['doc-merge', 'got', 4],
  ],
  200,
);
log('throughput…');
const throughput = await measureThroughput([1, 2], quick ? 20 : 60, 50);
log('footprint…');
const footprint: FootprintRow[] = await measureFootprint();
log('long document merges…');
const longMerges = await measureLongMerges(LONG_MERGES);
log('the payload store on paper-sized runs…');
const storeOverhead = await measureStoreOverhead(quick ? 3 : 7);
log('metrics on paper-sized runs…');
const metricsOverhead = await measureMetricsOverhead(quick ? 3 : 7);
log('start-up…');
const startup = await measureStartup(quick ? 3 : 5);
log('the floor under a dependent step…');
const floor = measureFloorApart();
const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
const cpuAfter = cpuCheckMs();

const report = `# Benchmarks

Measured by \`npm run bench\` (${quick ? 'quick mode, ' : ''}${Math.round((Date.now() - started) / 1000)} s) on ${new Date().toISOString().slice(0, 10)}, ${machine}.
Every run uses a private Temporal dev server (in memory) and the simulated LLM with a fixed latency
per request, so the LLM's share of the time is known exactly. The simulator runs in a process of
its own, as a remote endpoint would; worker, server and simulator share the machine's cores.
How fast the machine was meanwhile (\`bench/calibration.ts\`, a fixed CPU task): ${cpuBefore} ms at the
start, ${cpuAfter} ms at the end. A shared virtual machine is up to a third slower in some hours
than in others; compare two of these files only where this line agrees.

## Overhead ratio: wall time over the critical-path limit

The critical path is the longest chain of dependent LLM calls (\`depth\`) times the latency of one
call: no scheduler can finish a run faster. 1.00 would be a Controller that costs nothing.
\`ratio\` uses the simulator's nominal latency; \`measuredRatio\` uses each call's latency as the
worker measured it (the simulator's own work and HTTP included), so it isolates the Controller's
overhead: scheduling round trips through the Temporal server between dependent calls. Each row is
the median of ${quick ? 1 : 5} runs after a warm-up; on 2 shared cores the runs spread by 10–20%.

${table(overhead)}

## What a dependent step costs

Where the time between two dependent LLM calls goes, read from the histories (server clock) and
the GRS (the worker's clock around each call) of a chain of 8 single-sample calls at 50 ms, each
on the one before (median over the steps of ${quick ? 3 : 7} runs). A chain's wall time is
8 × (latency + this) plus the run's first and last workflow task: ${step.wallMs} ms here, ${step.perStepMs} ms
per step in all, a ratio of ${Math.round((step.wallMs / 400) * 100) / 100}. A GoT run adds what its fan-outs cost: the calls
of one level share the worker's event loop, and results that arrive while a workflow task runs
wait for the next one.

${table(step.rows)}

## Parallel speed-up

The same GoO with the worker limited to one activity at a time (what a sequential controller does)
against an unlimited worker, measured in one process, simulated latency 200 ms. \`batched\` asks
the k samples of a prompt in one call (n = k, the default); \`perSample\` makes them k calls, as a
sequential controller that samples one response at a time (the baseline of Framework of Thoughts'
Table 3) would.

${table(speedup)}

## Throughput

GoT sorting-32 runs (5 LLM calls each, 50 ms simulated latency), all started at once, completed
per minute with one and two worker processes (\`npm run worker\`, as a deployment runs them) on
one task queue, on this machine: the server, the simulator and the workers share its cores. After
a warm-up batch, the median of three batches; \`workerRssMiB\` is the largest worker process's
resident memory after them (the workflow bundle it builds at start included).

${table(throughput)}

## Footprint

History events and bytes (protobuf, what the server stores and limits) per run of the largest
paper configurations, against Temporal's limits of 50,000 events and 50 MB per history and 2 MB
per payload. Benchmark process RSS at the end: ${rss} MiB.

${table(footprint)}

${longMergeSection(longMerges, cpuAfter)}
${storeSection(storeOverhead, cpuAfter)}
${metricsSection(metricsOverhead, cpuAfter)}
${startupSection(startup, cpuAfter)}
${floorSection(floor, cpuAfter)}`;
writeFileSync(new URL('../BENCHMARKS.md', import.meta.url), report);
console.log(report);
