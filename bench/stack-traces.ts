/**
 * What the SDK's promise stack traces cost a worker (decision 72), `npm run bench:stack-traces`: the same
 * GoT merge of a generated data room (30 contracts of 200,000 characters, a 32K window: thousands of
 * LLM calls in one history) run by a worker process with the SDK's hook on (`GOT_WORKFLOW_STACK_TRACES=on`)
 * and by one without it (the default), alternating, against the simulator at 0 ms a call, so the
 * run is bound by the worker's CPU; then its history replayed (`rebuildGrs`, what `got inspect` does)
 * in a fresh process each way. Per side: the run's wall time, the worker process's CPU seconds, the
 * replay's time. `--repeats N` (default 2), `--no-write` prints the section only.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { rebuildGrs } from '../src/inspect/rebuild';
import type { RunRequestInput } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { WORKFLOW_STACK_TRACES_ENV } from '../worker/stack-traces';
import { cpuCheckMs } from './calibration';
import { replaceSection, table } from './sections';
import { median } from './stats';
import { cpuSeconds, machine, shellFreeEnv, startBenchEnv } from './support';

const TITLE = 'What workflow stack traces cost';
const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function request(): RunRequestInput {
  const contextTokens = 32_000;
  const problem = generateDataRoom(30, 200_000, 1);
  return {
    task: 'doc-merge',
    problem,
    goo: docMergeTask.schemes.got!({ size: problem.documents.length, problem, contextTokens }),
    llm: { contextTokens },
    labels: { scheme: 'got', size: problem.documents.length },
  };
}

/** Child mode: replays one run's history here and prints the replay's milliseconds. */
async function replayOnly(address: string, workflowId: string): Promise<void> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const started = performance.now();
  await rebuildGrs(history, { workflowId });
  console.log(JSON.stringify({ replayMs: Math.round(performance.now() - started), events: history.events?.length ?? 0 }));
  await connection.close();
}

function replayInChild(address: string, workflowId: string, on: boolean, store: string): Promise<{ replayMs: number; events: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--replay', address, workflowId], {
      cwd: ROOT,
      env: { ...shellFreeEnv(), GOT_STORE: store, ...(on ? { [WORKFLOW_STACK_TRACES_ENV]: 'on' } : {}) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`replay exited with ${code}`)),
    );
  });
}

interface Row {
  stackTraces: string;
  runs: number;
  llmCalls: number;
  events: number;
  wallS: string;
  workerCpuS: string;
  replayS: string;
}

const spread = (xs: number[]) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;

async function main(): Promise<void> {
  const at = process.argv.indexOf('--repeats');
  const repeats = at > 0 ? Number(process.argv[at + 1]) : 2;
  const cpuBefore = cpuCheckMs();
  // Payloads above the threshold go to a folder store, as a deployment's would (the problem is 6 MB).
  const store = mkdtempSync(join(tmpdir(), 'got-bench-store-'));
  const env = await startBenchEnv({ latencyMs: 0 }, dataConverterFromEnv({ ...process.env, GOT_STORE: store }));
  const sides = [
    { label: 'on (the SDK as shipped)', on: true },
    { label: 'off (default)', on: false },
  ];
  const measured = sides.map(() => ({ wall: [] as number[], cpu: [] as number[], replay: [] as number[], calls: 0, events: 0 }));
  try {
    for (let r = 0; r < repeats; r++) {
      for (const [i, side] of sides.entries()) {
        const taskQueue = `stack-traces-${i}-${r}-${Date.now()}`;
        const worker = await env.workerProcess(taskQueue, { GOT_STORE: store, ...(side.on ? { [WORKFLOW_STACK_TRACES_ENV]: 'on' } : {}) });
        const cpuStart = cpuSeconds(worker.pid);
        const started = Date.now();
        const handle = await startRun(env.client, request(), { taskQueue });
        const result = await resultOf(handle);
        const m = measured[i]!;
        m.wall.push((Date.now() - started) / 1000);
        m.cpu.push(cpuSeconds(worker.pid) - cpuStart);
        await worker.stop();
        const replay = await replayInChild(env.server.address, handle.workflowId, side.on, store);
        m.replay.push(replay.replayMs / 1000);
        m.calls = result.grs.calls.length;
        m.events = replay.events;
        console.error(
          `[stack-traces] ${side.label}, run ${r + 1}: ${m.wall.at(-1)!.toFixed(1)} s, worker CPU ${m.cpu.at(-1)!.toFixed(1)} s, replay ${m.replay.at(-1)!.toFixed(1)} s (${replay.events} events)`,
        );
      }
    }
  } finally {
    await env.close();
    rmSync(store, { recursive: true, force: true });
  }
  const rows: Row[] = sides.map((side, i) => {
    const m = measured[i]!;
    return {
      stackTraces: side.label,
      runs: m.wall.length,
      llmCalls: m.calls,
      events: m.events,
      wallS: spread(m.wall),
      workerCpuS: spread(m.cpu),
      replayS: spread(m.replay),
    };
  });
  const ratio = (k: 'wall' | 'cpu' | 'replay') => (median(measured[1]![k]) / median(measured[0]![k])).toFixed(2);
  const section = `## ${TITLE}

Measured by \`npm run bench:stack-traces\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}, CPU check ${cpuBefore} ms before and ${cpuCheckMs()} ms after.
The same GoT merge of a generated data room (30 contracts of 200,000 characters, a 32K window) run by a
worker process with the Temporal SDK's promise stack traces on (\`${WORKFLOW_STACK_TRACES_ENV}=on\`) and
without them (the default, decision 72), alternating, against the simulator at 0 ms a call (the run is
bound by the worker's CPU); then the run's history replayed as \`got inspect\` does, in a fresh process
each way. Median (fastest–slowest). Without the hook: wall ×${ratio('wall')}, worker CPU ×${ratio('cpu')},
replay ×${ratio('replay')} of the run with it.

${table(rows)}
`;
  if (process.argv.includes('--no-write')) console.log(section);
  else replaceSection(TITLE, section);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const replay = process.argv.indexOf('--replay');
  if (replay > 0) await replayOnly(process.argv[replay + 1]!, process.argv[replay + 2]!);
  else await main();
}
