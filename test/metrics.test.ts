/**
 * A worker started with GOT_METRICS_ADDRESS serves Prometheus metrics: the SDK's own and ours,
 * which must tell what the runs' GRS tell (calls, tokens, cost, retries, re-asks, outcomes). The
 * worker runs as a process of its own, as deployed: the SDK's runtime, where the endpoint lives, is
 * installed once per process.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { telemetryOf } from '../src/cli/commands/doctor';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { freePort } from '../src/devserver/process';
import type { RunRequestInput } from '../src/run/request';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import { METRIC, MICRODOLLARS_PER_USD } from '../src/telemetry/metrics';
import { failureOf } from './support/faults';
import { startWorkerProcess, type WorkerProcess } from './support/processes';
import { listeningPorts, type Sample, scrape, total } from './support/prometheus';

let llm: SimulatedLlm;
let worker: WorkerProcess;
let connection: Connection;
let client: Client;
let metricsAddress: string;
const taskQueue = `test-metrics-${randomUUID()}`;

beforeAll(async () => {
  llm = await startSimulatedLlm({ latencyMs: 5, seed: 1 });
  metricsAddress = `127.0.0.1:${await freePort()}`;
  worker = await startWorkerProcess({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    GOT_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: llm.baseURL,
    GOT_METRICS_ADDRESS: metricsAddress,
  });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, dataConverter: dataConverterFromEnv() });
});

afterAll(async () => {
  await worker?.stop();
  await connection?.close();
  await llm?.close();
});

function sortingRun(scheme: 'got' | 'io', size: number): RunRequestInput {
  const problem = sortingTask.generateProblem(size, 7);
  return { task: 'sorting', problem, goo: sortingTask.schemes[scheme]!({ size, problem }), labels: { scheme, size } };
}

/** What the metrics grew by between two scrapes. */
function grown(before: Sample[], after: Sample[]) {
  return (name: string, where: Record<string, string> = {}) => total(after, name, where) - total(before, name, where);
}

describe('a worker with GOT_METRICS_ADDRESS', () => {
  it("counts a run's calls, tokens, cost, retries and re-asks as its GRS does, and the run as completed", async () => {
    // GoT sorting-32's first request (the split) is refused with a 500 and sent again inside its call;
    // the answer is cut off at max tokens, so the split asks again: one refusal and one re-ask.
    llm.injectFaults([{ status: 500 }, { kind: 'truncated', choice: 0 }]);
    const before = await scrape(metricsAddress);
    const handle = await startRun(client, sortingRun('got', 32), { taskQueue });
    const { grs } = await resultOf(handle);
    const after = await scrape(metricsAddress);
    const delta = grown(before, after);
    const sorting = { task: 'sorting' };

    // Calls: every call of the GRS was answered by the endpoint (no cache here), none cancelled.
    expect(delta(METRIC.llmCalls.name, { ...sorting, outcome: 'answered' })).toBe(grs.calls.length);
    expect(delta(METRIC.llmCalls.name, { ...sorting, outcome: 'cached' })).toBe(0);
    expect(delta(METRIC.llmCalls.name, { ...sorting, outcome: 'failed' })).toBe(0);
    expect(delta(METRIC.llmCallDuration.name.concat('_count'), sorting)).toBe(grs.calls.length);
    // By purpose, as the GRS records them.
    for (const purpose of ['generate', 'aggregate', 'improve'])
      expect(delta(METRIC.llmCalls.name, { ...sorting, purpose, outcome: 'answered' })).toBe(
        grs.calls.filter((c) => c.purpose === purpose).length,
      );

    // Tokens and cost: the GRS's totals, the cost within a millionth of a dollar per series.
    expect(delta(METRIC.llmTokens.name, { ...sorting, type: 'prompt' })).toBe(grs.totals.promptTokens);
    expect(delta(METRIC.llmTokens.name, { ...sorting, type: 'completion' })).toBe(grs.totals.completionTokens);
    const cost = delta(METRIC.llmCost.name, sorting);
    const series = new Set(after.filter((s) => s.name === METRIC.llmCost.name).map((s) => JSON.stringify(s.labels))).size;
    expect(cost).toBeLessThanOrEqual(grs.totals.costUsd * MICRODOLLARS_PER_USD + 1e-6);
    expect(cost).toBeGreaterThan(grs.totals.costUsd * MICRODOLLARS_PER_USD - series - 1);

    // Retries: one request refused with a server error and sent again within its call, as the GRS's calls record it.
    expect(grs.calls.reduce((n, c) => n + c.attempt - 1, 0)).toBe(0);
    expect(grs.calls.reduce((n, c) => n + (c.refused?.requests ?? 0), 0)).toBe(1);
    expect(delta(METRIC.llmFaults.name, sorting)).toBe(1);
    expect(delta(METRIC.llmFaults.name, { ...sorting, kind: 'server-error' })).toBe(1);

    // Re-asks and operations, from the Controller.
    expect(grs.calls.filter((c) => c.reask).length).toBe(1);
    expect(delta(METRIC.llmReasks.name, { ...sorting, purpose: 'generate' })).toBe(1);
    expect(delta(`${METRIC.operationDuration.name}_count`)).toBe(grs.operations.filter((o) => o.status === 'done').length);
    expect(delta(`${METRIC.operationDuration.name}_count`, { type: 'keepBestN' })).toBe(
      grs.operations.filter((o) => o.type === 'keepBestN' && o.status === 'done').length,
    );

    // The run: started once, completed once.
    expect(delta(METRIC.runsStarted.name, sorting)).toBe(1);
    expect(delta(METRIC.runsFinished.name, { ...sorting, outcome: 'completed', failure: 'none', budget_exhausted: 'false' })).toBe(1);
    expect(delta(METRIC.runsFinished.name)).toBe(1);

    // The SDK's own metrics are on the same endpoint, and no label names a run.
    expect(total(after, 'temporal_workflow_completed')).toBeGreaterThanOrEqual(1);
    expect(after.some((s) => s.name.startsWith('temporal_activity_execution_latency'))).toBe(true);
    expect(after.some((s) => Object.values(s.labels).some((v) => v.includes(handle.workflowId)))).toBe(false);
    const ours = after.filter((s) => s.name.startsWith('got_'));
    expect(ours.every((s) => s.labels.taskQueue === taskQueue && s.labels.namespace === 'default')).toBe(true);
  });

  it('counts a run failed by a rejected request by its failure type, and the rejection as a fault that is not retried', async () => {
    llm.injectFaults([{ status: 401 }]);
    const before = await scrape(metricsAddress);
    const handle = await startRun(client, sortingRun('io', 16), { taskQueue });
    expect((await failureOf(handle)).message).toMatch(/API key rejected/);
    const delta = grown(before, await scrape(metricsAddress));
    expect(delta(METRIC.llmFaults.name, { task: 'sorting', kind: 'rejected' })).toBe(1);
    expect(delta(METRIC.llmCalls.name, { task: 'sorting', outcome: 'failed' })).toBe(1);
    expect(delta(METRIC.llmCalls.name, { task: 'sorting', outcome: 'answered' })).toBe(0);
    expect(delta(METRIC.runsFinished.name, { task: 'sorting', outcome: 'failed', failure: 'LlmRequestRejected' })).toBe(1);
    expect(delta(METRIC.runsFinished.name)).toBe(1);
  });

  it('counts a request that timed out as a timeout fault, sent again within its call', async () => {
    llm.injectFaults([{ kind: 'slow', delayMs: 60_000 }]);
    const before = await scrape(metricsAddress);
    const handle = await startRun(client, { ...sortingRun('io', 16), llm: { timeoutSeconds: 1, heartbeatSeconds: 10 } }, { taskQueue });
    const { grs } = await resultOf(handle);
    const delta = grown(before, await scrape(metricsAddress));
    expect(grs.calls.map((c) => c.attempt)).toEqual([1]);
    expect(grs.calls[0]!.refused).toMatchObject({ requests: 1, byKind: { timeout: 1 } });
    expect(delta(METRIC.llmFaults.name, { task: 'sorting', kind: 'timeout' })).toBe(1);
    expect(delta(METRIC.llmFaults.name)).toBe(1);
    // The timed-out request is neither a failed attempt nor a cancel.
    expect(delta(METRIC.llmCalls.name, { outcome: 'failed' }) + delta(METRIC.llmCalls.name, { outcome: 'cancelled' })).toBe(0);
    expect(delta(METRIC.llmCalls.name, { outcome: 'answered' })).toBe(1);
  });

  it('listens on the metrics port only; a worker without it opens no port at all', async () => {
    expect(listeningPorts(worker.pid)).toEqual([Number(metricsAddress.split(':')[1])]);
    const quiet = await startWorkerProcess({
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      GOT_TASK_QUEUE: `${taskQueue}-off`,
      OPENAI_BASE_URL: llm.baseURL,
      GOT_METRICS_ADDRESS: undefined,
    });
    try {
      expect(listeningPorts(quiet.pid)).toEqual([]);
    } finally {
      await quiet.stop();
    }
  });
});

describe('the settings', () => {
  it('turn metrics and traces on only when set, and refuse an address that is no host:port', () => {
    expect(telemetryOf({})).toEqual({});
    expect(telemetryOf({ GOT_METRICS_ADDRESS: '', GOT_OTEL_TRACES: '' })).toEqual({});
    expect(
      telemetryOf({ GOT_METRICS_ADDRESS: '0.0.0.0:9464', GOT_OTEL_TRACES: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }),
    ).toEqual({ metrics: '0.0.0.0:9464', traces: 'otlp', tracesEndpoint: 'http://collector:4318/v1/traces' });
    expect(telemetryOf({ GOT_METRICS_ADDRESS: '[::1]:9464', GOT_OTEL_TRACES: 'console' })).toEqual({
      metrics: '[::1]:9464',
      traces: 'console',
    });
    expect(() => telemetryOf({ GOT_METRICS_ADDRESS: '9464' })).toThrow(/GOT_METRICS_ADDRESS: host:port/);
    expect(() => telemetryOf({ GOT_METRICS_ADDRESS: 'localhost:70000' })).toThrow(/GOT_METRICS_ADDRESS: a port up to 65535/);
    expect(() => telemetryOf({ GOT_OTEL_TRACES: 'jaeger' })).toThrow(/GOT_OTEL_TRACES/);
  });
});
