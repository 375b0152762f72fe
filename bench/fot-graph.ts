/**
 * Framework of Thoughts' own GoT graph for sorting 128 (`../shared/data/fot-got-sorting-128.goo.json`:
 * 78 requests in 7 dependent steps, up to 40 at once) on the simulator at 500 and 2,000 ms per call,
 * each branch its own request (`--fan-out perSample`, as FoT sends them). `npm run bench:fot`.
 *
 * Three shapes of the same run: on a long-lived worker (a deployment; the client's start call to the
 * result in hand), and as the whole `got run` command a user types (spawn to exit), once with a
 * worker of its own and once handing the run to a resident worker (`got worker start`). Where the time goes comes from three clocks on one machine: the
 * simulator's record of each request (arrival, end), the history's event times and the client's.
 * Everything is a ratio to the critical path (7 steps x the latency), measured in one run.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { GoO } from '../src/goo/schema';
import type { SimRequestRecord } from '../src/simllm/server';
import { cpuCheckMs } from './calibration';
import { llmDepth } from './critical-path';
import { replaceSection, table } from './sections';
import { median } from './stats';
import { type BenchEnv, eventMs, shellFreeEnv, startBenchEnv, startRemoteLlm } from './support';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GOO_FILE = join(ROOT, '..', 'shared', 'data', 'fot-got-sorting-128.goo.json');
const LATENCIES = [500, 2000];
/** What issue 23 asks for: wall over the critical path, each end of the run, the CLI's own time. */
export const FOT_TARGETS = { ratio: { 500: 1.1, 2000: 1.04 } as Record<number, number>, firstMs: 50, lastMs: 50, commandOwnMs: 600 };

/** One run placed on the time line. */
interface Timeline {
  /** The client's start call (workflow shape) or the report's wallMs (command shape) to the result in hand. */
  wallMs: number;
  /** From the history's WorkflowExecutionStarted to the first request's arrival at the endpoint. */
  firstMs: number;
  /** From the last request's end to the result in the client's hand. */
  lastMs: number;
  /** The requests' span (first arrival to last end) beyond the critical path: the steps' own overhead. */
  betweenMs: number;
  requests: number;
  /** The command shape only: spawn to exit, and that minus `wallMs` (the CLI's own start-up and shutdown). */
  commandMs?: number;
  ownMs?: number;
}

/** The run's start by the server's clock and its requests, from the simulator's log within [from, to]. */
async function place(client: Client, workflowId: string, log: SimRequestRecord[], from: number, to: number) {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const startedAt = eventMs(history.events![0]!);
  const mine = log.filter((r) => r.at >= from && r.at <= to && r.endedAt !== undefined);
  if (!mine.length) throw new Error(`no request of ${workflowId} reached the simulator`);
  return {
    startedAt,
    firstArrival: Math.min(...mine.map((r) => r.at)),
    lastEnd: Math.max(...mine.map((r) => r.endedAt!)),
    requests: mine.length,
  };
}

/** The run request exactly as `got run` would send it (its own dry run). */
function requestOf(): unknown {
  const args = ['bin/got.js', 'run', ...runArgs(), '--dry-run'];
  const out = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: shellFreeEnv() });
  if (out.status !== 0) throw new Error(`got run --dry-run failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

const runArgs = () => ['--task', 'sorting', '--size', '128', '--goo', GOO_FILE, '--fan-out', 'perSample', '--no-progress'];

/** The workflow shape: a worker that is already up, the run started and awaited by a client. */
async function workflowRun(env: BenchEnv, taskQueue: string, request: unknown, latencyMs: number, i: number): Promise<Timeline> {
  const workflowId = `fot-graph-${latencyMs}-${i}-${Date.now()}`;
  const startCall = Date.now();
  const handle = await env.client.workflow.start('graphOfThoughts', { taskQueue, workflowId, args: [request] });
  await handle.result();
  const held = Date.now();
  const t = await place(env.client, workflowId, await env.llm.requestLog(), startCall, held);
  return {
    wallMs: held - startCall,
    firstMs: t.firstArrival - t.startedAt,
    lastMs: held - t.lastEnd,
    betweenMs: t.lastEnd - t.firstArrival - llmDepthOf() * latencyMs,
    requests: t.requests,
  };
}

/** The environment of a `got run` (and of a resident worker) against the bench's server and an endpoint of its own. */
const commandEnv = (env: BenchEnv, baseURL: string, stateDir: string): NodeJS.ProcessEnv => ({
  ...shellFreeEnv(),
  TEMPORAL_ADDRESS: env.server.address,
  OPENAI_BASE_URL: baseURL,
  OPENAI_API_KEY: 'sim',
  GOT_STATE_DIR: stateDir,
});

/** `got <args>` run to its end; throws with its output when it fails. */
function got(args: string[], childEnv: NodeJS.ProcessEnv): void {
  const out = spawnSync(process.execPath, ['bin/got.js', ...args], { cwd: ROOT, encoding: 'utf8', env: childEnv });
  if (out.status !== 0) throw new Error(`got ${args.join(' ')} exited ${out.status}: ${out.stderr}`);
}

/** The command shape: `got run` as a user types it, against the same server and endpoint (a resident worker's when one runs). */
async function commandRun(
  env: BenchEnv,
  childEnv: NodeJS.ProcessEnv,
  logOf: () => Promise<SimRequestRecord[]>,
  latencyMs: number,
  i: number,
) {
  const workflowId = `fot-graph-cmd-${latencyMs}-${i}-${Date.now()}`;
  const spawned = Date.now();
  const child: ChildProcess = spawn(
    process.execPath,
    ['bin/got.js', 'run', ...runArgs(), '--llm', 'endpoint', '--json', '--workflow-id', workflowId],
    {
      cwd: ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let reportAt: number | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    reportAt ??= Date.now(); // the report is printed the moment the result is in the CLI's hand
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const exited = Date.now();
  if (code !== 0 || reportAt === undefined) throw new Error(`got run exited ${code}: ${stderr}`);
  const report = JSON.parse(stdout) as { wallMs: number };
  const t = await place(env.client, workflowId, await logOf(), spawned, exited);
  return {
    wallMs: report.wallMs,
    firstMs: t.firstArrival - t.startedAt,
    lastMs: reportAt - t.lastEnd,
    betweenMs: t.lastEnd - t.firstArrival - llmDepthOf() * latencyMs,
    requests: t.requests,
    commandMs: exited - spawned,
    ownMs: exited - spawned - report.wallMs,
  } satisfies Timeline;
}

let depth: number | undefined;
const llmDepthOf = () => (depth ??= llmDepth(JSON.parse(readFileSync(GOO_FILE, 'utf8')) as GoO));

/** One table row: medians, with the slowest run beside, as ratios to the critical path where they are times of the run. */
interface FotRow {
  shape: string;
  latencyMs: number;
  criticalPathMs: number;
  runs: number;
  wallMs: string;
  ratio: string;
  firstMs: string;
  lastMs: string;
  betweenMs: string;
  commandOwnMs: string;
  met: string;
}

const spread = (values: number[], digits = 0) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${median(sorted).toFixed(digits)} (${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
};

function rowOf(shape: string, latencyMs: number, runs: Timeline[]): FotRow {
  const cp = llmDepthOf() * latencyMs;
  const wall = runs.map((r) => (r.commandMs ?? r.wallMs) / cp);
  const own = runs.flatMap((r) => (r.ownMs === undefined ? [] : [r.ownMs]));
  const medianWallRatio = median(runs.map((r) => r.wallMs / cp));
  const met = [
    medianWallRatio <= FOT_TARGETS.ratio[latencyMs]! ? undefined : 'ratio',
    median(runs.map((r) => r.firstMs)) <= FOT_TARGETS.firstMs ? undefined : 'first',
    median(runs.map((r) => r.lastMs)) <= FOT_TARGETS.lastMs ? undefined : 'last',
    own.length && median(own) > FOT_TARGETS.commandOwnMs ? 'command' : undefined,
  ].filter(Boolean);
  return {
    shape,
    latencyMs,
    criticalPathMs: cp,
    runs: runs.length,
    wallMs: spread(runs.map((r) => r.wallMs)),
    ratio: `${spread(
      runs.map((r) => r.wallMs / cp),
      3,
    )}${own.length ? `; command ${spread(wall, 3)}` : ''}`,
    firstMs: spread(runs.map((r) => r.firstMs)),
    lastMs: spread(runs.map((r) => r.lastMs)),
    betweenMs: spread(runs.map((r) => r.betweenMs)),
    commandOwnMs: own.length ? spread(own) : '',
    met: met.length ? `no: ${met.join(', ')}` : 'yes',
  };
}

export async function measureFotGraph(runs: number, log: (line: string) => void = console.error): Promise<FotRow[]> {
  if (!existsSync(GOO_FILE)) throw new Error(`${GOO_FILE} is missing: the bench needs ../shared beside the project`);
  // The command measured is the compiled one: bring dist/ up to date first, outside the timings.
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
  const request = requestOf();
  const rows: FotRow[] = [];
  for (const latencyMs of LATENCIES) {
    const env = await startBenchEnv({ latencyMs });
    // The command shape calls an endpoint of its own, so its requests never mix with the worker's.
    const remote = await startRemoteLlm({ latencyMs });
    // Two state folders: one where `got run` finds no resident worker, one where `got worker start` left one.
    const states = await mkdtemp(join(tmpdir(), 'fot-graph-'));
    const alone = commandEnv(env, remote.baseURL, join(states, 'alone'));
    const withResident = commandEnv(env, remote.baseURL, join(states, 'resident'));
    try {
      const worker = await env.worker();
      got(['worker', 'start', '--llm', 'endpoint'], withResident);
      try {
        const wf: Timeline[] = [];
        const cmd: Timeline[] = [];
        const res: Timeline[] = [];
        // One of each first: the OS's file cache, the server's first calls, the worker's first workflow.
        await workflowRun(env, worker.taskQueue, request, latencyMs, -1);
        await commandRun(env, alone, remote.requestLog, latencyMs, -1);
        await commandRun(env, withResident, remote.requestLog, latencyMs, -1);
        for (let i = 0; i < runs; i++) {
          wf.push(await workflowRun(env, worker.taskQueue, request, latencyMs, i));
          cmd.push(await commandRun(env, alone, remote.requestLog, latencyMs, i));
          res.push(await commandRun(env, withResident, remote.requestLog, latencyMs, i));
          log(
            `  ${latencyMs} ms, run ${i + 1}/${runs}: worker ${wf.at(-1)!.wallMs} ms, command ${cmd.at(-1)!.commandMs} ms, to a resident worker ${res.at(-1)!.commandMs} ms`,
          );
        }
        rows.push(
          rowOf('long-lived worker', latencyMs, wf),
          rowOf('`got run`', latencyMs, cmd),
          rowOf('`got run`, resident worker', latencyMs, res),
        );
      } finally {
        got(['worker', 'stop'], withResident);
        await worker.stop();
      }
    } finally {
      await rm(states, { recursive: true, force: true });
      await remote.close();
      await env.close();
    }
  }
  return rows;
}

async function main() {
  const runs = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 5;
  const before = cpuCheckMs();
  const rows = await measureFotGraph(runs);
  const after = cpuCheckMs();
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
  const section = `## Framework of Thoughts' graph: the run's ends and wide fan-outs

Measured by \`npm run bench:fot\` on ${new Date().toISOString().slice(0, 10)}, ${machine}, CPU check ${before} ms before and ${after} ms after.
Framework of Thoughts' GoT graph for sorting 128 as our GoO (\`../shared/data/fot-got-sorting-128.goo.json\`:
78 requests in ${llmDepthOf()} dependent steps, up to 40 at once, \`--fan-out perSample\`) against the simulator in a
process of its own at a fixed latency per request; a private dev server. The long-lived worker is
a deployment's (the client's start call to the result in hand); \`got run\` is the command a user
types, a fresh process with its own worker each time (\`commandOwnMs\`: spawn to exit minus the
run's own wall time), and the same command handing its run to a resident worker (\`got worker start\`). \`firstMs\`: the history's start to the first request's arrival;
\`lastMs\`: the last request's end to the result in the client's hand; \`betweenMs\`: the requests'
span beyond the critical path (${llmDepthOf()} × latency), what the steps between them cost. Median (fastest–slowest)
of ${runs} runs each after a warm-up. Targets (issue 23): wall ≤ ${FOT_TARGETS.ratio[500]} × the critical path at
500 ms and ≤ ${FOT_TARGETS.ratio[2000]} at 2,000 ms, each end ≤ ${FOT_TARGETS.firstMs} ms, the command's own time ≤ ${FOT_TARGETS.commandOwnMs} ms.

${table(rows)}
`;
  if (process.argv.includes('--no-write')) console.log(section);
  else replaceSection("Framework of Thoughts' graph: the run's ends and wide fan-outs", section);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
