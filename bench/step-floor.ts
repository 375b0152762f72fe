import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { LlmStep } from '../activities';
import { startCheckedRun } from '../src/client/runs';
import { startDevServer } from '../src/devserver/dev-server';
import { freePort } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { GoO } from '../src/goo/schema';
import { checkRun } from '../src/run/check';
import { LlmSettings, type RunRequestInput } from '../src/run/request';
import { startSimulatedLlm } from '../src/simllm/server';
import { TASKS } from '../src/tasks/registry';
import { createGotWorker } from '../worker/create';
import { median } from './stats';
import { eventMs } from './support';

/** One way of running a chain of dependent LLM calls, and what each step cost. */
export interface StepFloorRow {
  workflow: string;
  /** (wall − depth × latency) / depth: what a dependent step costs besides the call */
  perStepMs: number;
  /** a workflow task from the server's start to its completion (history clock), median */
  workflowTaskMs: number;
  /** the worker's time on one workflow task, from its arrival to the completion sent (SDK core metric), mean */
  workerTaskMs: number;
}

const FLOOR_BUNDLE = fileURLToPath(new URL('./workflows/floor.ts', import.meta.url));
const round1 = (x: number) => Math.round(x * 10) / 10;

function chain(depth: number): GoO {
  const operations: GoO['operations'] = [{ id: 'g0', type: 'generate', inputs: [], prompt: 'sort', k: 1 }];
  for (let i = 1; i < depth; i++) operations.push({ id: `g${i}`, type: 'generate', inputs: [`g${i - 1}`], prompt: 'improve', k: 1 });
  return { version: 1, operations };
}

/** Sum and count of one Prometheus histogram of the SDK core (all label sets together). */
async function histogram(url: string, name: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(url)).text();
  let sum = 0;
  let count = 0;
  // The exporter may put a unit between the name and the suffix (`..._latency_milliseconds_sum`).
  for (const line of text.split('\n')) {
    const metric = line.split(/[{ ]/)[0]!;
    if (!metric.startsWith(name)) continue;
    if (metric.endsWith('_sum')) sum += Number(line.split(' ').at(-1));
    if (metric.endsWith('_count')) count += Number(line.split(' ').at(-1));
  }
  return { sum, count };
}

/**
 * The floor under a dependent step: the Controller running a chain of `depth` single-sample LLM
 * calls, against a workflow that does nothing but await the same activity `depth` times with the
 * same options, on one worker, one server and one simulated endpoint. What the Controller costs
 * itself is the difference; what both pay is the SDK's, the server's and the machine's.
 */
export async function measureStepFloor(latencyMs = 50, depth = 8, runs = 7): Promise<StepFloorRow[]> {
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  if (Runtime._instance) throw new Error('measureStepFloor installs the SDK runtime with metrics: run it in a process of its own');
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}`, useSecondsForDurations: false } } },
  });
  const server = await startDevServer({ binary: await ensureTemporalCli(), port: await freePort(), ui: false });
  const llm = await startSimulatedLlm({ latencyMs });
  const connection = await Connection.connect({ address: server.address });
  const native = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = `floor-${randomUUID()}`;
  const worker = await createGotWorker({
    connection: native,
    taskQueue,
    llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true },
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: FLOOR_BUNDLE,
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    }),
  });
  const running = worker.run();
  try {
    const problem = TASKS.sorting!.generateProblem(32, 1) as RunRequestInput['problem'];
    const request = (seed: number) =>
      checkRun({ task: 'sorting', problem, goo: chain(depth), seed, labels: { scheme: 'chain', size: 32 } }).request;
    const llmSettings = LlmSettings.parse({});
    const first = (seed: number): LlmStep => ({
      task: 'sorting',
      purpose: 'generate',
      prompt: 'sort',
      params: {},
      thoughts: [TASKS.sorting!.rootState(problem)],
      problem,
      samples: 1,
      llm: llmSettings,
      seed,
    });
    const options = {
      startToCloseTimeout: 120_000,
      heartbeatTimeout: 30_000,
      retry: { initialInterval: 1_000, backoffCoefficient: 2, maximumInterval: 60_000, maximumAttempts: 8 },
    };
    const ways: Record<string, (seed: number) => Promise<{ workflowId: string; result(): Promise<unknown> }>> = {
      'Controller (GoO chain)': (seed) => startCheckedRun(client, request(seed), { taskQueue }),
      'bare activity chain': (seed) =>
        client.workflow.start('activityChain', {
          taskQueue,
          workflowId: `floor-${seed}-${randomUUID()}`,
          args: [first(seed), depth, options],
        }),
    };
    const rows: StepFloorRow[] = [];
    // Alternate the two, so a slow minute of the shared machine hits both alike.
    const samples: Record<string, { perStep: number[]; task: number[]; workerTask: { sum: number; count: number } }> = {};
    for (const name of Object.keys(ways)) samples[name] = { perStep: [], task: [], workerTask: { sum: 0, count: 0 } };
    for (const name of Object.keys(ways)) await (await ways[name]!(0)).result(); // warm-up
    for (let i = 1; i <= runs; i++) {
      for (const [name, start] of Object.entries(ways)) {
        const taskBefore = await histogram(metricsUrl, 'temporal_workflow_task_execution_latency');
        const started = performance.now();
        const handle = await start(i);
        await handle.result();
        const wall = performance.now() - started;
        const taskAfter = await histogram(metricsUrl, 'temporal_workflow_task_execution_latency');
        const s = samples[name]!;
        s.perStep.push((wall - depth * latencyMs) / depth);
        s.workerTask.sum += taskAfter.sum - taskBefore.sum;
        s.workerTask.count += taskAfter.count - taskBefore.count;
        const events = (await client.workflow.getHandle(handle.workflowId).fetchHistory()).events!;
        const started_ = events.filter((e) => e.workflowTaskStartedEventAttributes).map(eventMs);
        const completed = events.filter((e) => e.workflowTaskCompletedEventAttributes).map(eventMs);
        completed.forEach((c, j) => {
          s.task.push(c - started_[j]!);
        });
      }
    }
    for (const [name, s] of Object.entries(samples)) {
      rows.push({
        workflow: name,
        perStepMs: round1(median(s.perStep)),
        workflowTaskMs: round1(median(s.task)),
        workerTaskMs: round1(s.workerTask.sum / s.workerTask.count),
      });
    }
    return rows;
  } finally {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    await llm.close();
    await server.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Standalone (`npx tsx bench/step-floor.ts [runs] [--json]`), e.g. under `node --cpu-prof` to profile
  // the workflow thread; `bench/main.ts` runs it so, with --json, and reads the last line.
  const rows = await measureStepFloor(50, 8, Number(process.argv[2] ?? 7));
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
  else console.table(rows);
}
