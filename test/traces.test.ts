/**
 * GOT_OTEL_TRACES=otlp: a run's trace starts where a client starts the run and goes on in the worker
 * (a process of its own, as deployed): the workflow, each activity, and a span per LLM call with its
 * model, tokens and cost, all sent as OTLP JSON to a collector (a small one here). Traced and
 * untraced workers must be able to take over each other's runs: their workflow code differs only by
 * the tracing interceptors, which must not change what a run schedules.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import type { RunResult } from '../src/run/request';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import { startTracing, type Tracing } from '../src/telemetry/traces';
import { bundleGotWorkflows, WORKFLOWS_PATH } from '../worker/create';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './support/otlp-receiver';
import { startWorkerProcess, type WorkerProcess, waitFor } from './support/processes';

let collector: OtlpReceiver;
let llm: SimulatedLlm;
let worker: WorkerProcess;
let connection: Connection;
let tracing: Tracing;
let client: Client;
const taskQueue = `test-traces-${randomUUID()}`;

beforeAll(async () => {
  // The replays below would otherwise log every workflow task.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  collector = await startOtlpReceiver();
  llm = await startSimulatedLlm({ latencyMs: 5, seed: 1 });
  // This process is the client: its spans go to the same collector, read from the same variable.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.endpoint;
  tracing = startTracing('otlp', 'got-test-client');
  worker = await startWorkerProcess({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    GOT_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: llm.baseURL,
    GOT_OTEL_TRACES: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, dataConverter: dataConverterFromEnv(), interceptors: { workflow: [tracing.clientInterceptor] } });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await tracing?.shutdown();
  await connection?.close();
  await llm?.close();
  await collector?.close();
});

let run: { workflowId: string; runId: string; result: RunResult } | undefined;

/** One GoT run on the traced worker, shared by the tests below. */
async function tracedRun() {
  if (run) return run;
  const size = 32;
  const problem = sortingTask.generateProblem(size, 3);
  const handle = await startRun(
    client,
    { task: 'sorting', problem, goo: sortingTask.schemes.got!({ size, problem }), labels: {} },
    { taskQueue },
  );
  run = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, result: await resultOf(handle) };
  return run;
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe('a run on a worker with GOT_OTEL_TRACES=otlp', () => {
  it('is one trace: the client starts it, the workflow runs it, each activity and LLM call is a span in it', async () => {
    const { workflowId, result } = await tracedRun();
    await tracing.shutdown(); // the client's span leaves now; the worker's leave within its batch delay
    const spans = await waitFor(
      "the run's workflow span and one LLM span per call",
      () => {
        const all = collector.spans();
        const done = byName(all, 'RunWorkflow:graphOfThoughts').some((s) => s.attributes.workflowId === workflowId);
        return done && all.filter((s) => s.name.startsWith('chat ')).length >= result.grs.calls.length && all;
      },
      { timeoutMs: 30_000 },
    );

    const [start] = byName(spans, 'StartWorkflow:graphOfThoughts').filter((s) => s.attributes.temporalWorkflowId === workflowId);
    expect(start?.service).toBe('got-test-client');
    const [workflow] = byName(spans, 'RunWorkflow:graphOfThoughts').filter((s) => s.attributes.workflowId === workflowId);
    expect(workflow?.service).toBe('got-worker');
    // The worker's spans continue the client's trace.
    expect(workflow!.traceId).toBe(start!.traceId);
    expect(workflow!.parentSpanId).toBe(start!.spanId);
    const trace = spans.filter((s) => s.traceId === start!.traceId);

    // Each LLM activity: scheduled by the workflow, run by the worker, with the run's workflow id.
    const ran = byName(trace, 'RunActivity:callLlm');
    expect(ran).toHaveLength(result.grs.calls.length);
    expect(ran.every((s) => s.attributes.temporalWorkflowId === workflowId)).toBe(true);
    const scheduled = new Set(byName(trace, 'StartActivity:callLlm').map((s) => s.spanId));
    expect(ran.every((s) => scheduled.has(s.parentSpanId!))).toBe(true);
    // The request's check, a local activity, too.
    expect(byName(trace, 'RunActivity:prepareRun')).toHaveLength(1);

    // One span per LLM call, inside its activity's, with what the GRS records of it.
    const calls = trace.filter((s) => s.name === 'chat sim-got-1');
    expect(calls).toHaveLength(result.grs.calls.length);
    const activities = new Set(ran.map((s) => s.spanId));
    expect(calls.every((s) => activities.has(s.parentSpanId!))).toBe(true);
    expect(calls.every((s) => s.attributes['got.outcome'] === 'answered' && s.attributes['got.task'] === 'sorting')).toBe(true);
    const sum = (key: string) => calls.reduce((n, s) => n + Number(s.attributes[key]), 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(result.grs.totals.promptTokens);
    expect(sum('gen_ai.usage.output_tokens')).toBe(result.grs.totals.completionTokens);
    expect(sum('got.cost_usd')).toBeCloseTo(result.grs.totals.costUsd, 9);
  });

  it("replays on an untraced worker's code, and every recorded run replays on a traced worker's", async () => {
    const { workflowId, runId } = await tracedRun();
    const traced = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    // The traced run's activities carry its trace context in their headers: its history is not an untraced run's.
    const headers = traced.events!.flatMap((e) => Object.keys(e.activityTaskScheduledEventAttributes?.header?.fields ?? {}));
    expect(headers).toContain('_tracer-data');
    // A traced run taken over by a worker without traces (or rebuilt by `got inspect`).
    await Worker.runReplayHistory(
      { workflowBundle: await bundleGotWorkflows(), replayName: 'untraced', sinks: noSinks, dataConverter: dataConverterFromEnv() },
      traced,
      workflowId,
    );

    // Runs of every generation, recorded untraced, taken over by a worker with traces.
    const histories = fixtureHistories();
    expect(histories.length).toBeGreaterThan(10);
    // The workflow code of a traced worker: the workflows bundled with the tracing interceptors by the same plugin.
    const tracedCode = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, plugins: [tracing.workerPlugin], logger: quiet });
    expect(tracedCode.code).toContain('OpenTelemetryInboundInterceptor');
    const replay = Worker.runReplayHistories(
      { workflowBundle: tracedCode, plugins: [tracing.workerPlugin], replayName: 'traced', sinks: noSinks },
      histories,
    );
    const errors: string[] = [];
    for await (const r of replay) if (r.error) errors.push(`${r.workflowId}: ${r.error.message}`);
    expect(errors).toEqual([]);
  });
});

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: console.error,
};

// The Controller reports GRS facts to this sink while replaying; a replay worker must provide it.
const noSinks = { grsReplay: { fact: { fn: () => undefined, callDuringReplay: false } } };

/** Every recorded history of test/fixtures/histories (see test/replay.test.ts), each generation's runs. */
function fixtureHistories() {
  const root = fileURLToPath(new URL('./fixtures/histories/', import.meta.url));
  return readdirSync(root).flatMap((generation) =>
    readdirSync(`${root}${generation}`)
      .filter((f) => f.endsWith('.json'))
      .map((f) => ({
        // The run's own id: a run with children replays only under it (their ids are made from it).
        workflowId: `${generation}/${f.replace(/\.json$/, '')}`,
        history: historyFromJSON(JSON.parse(readFileSync(`${root}${generation}/${f}`, 'utf8'))),
      })),
  );
}
