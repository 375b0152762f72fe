import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryProgress, resultOf, startRun } from '../src/client/runs';
import type { GoO } from '../src/goo/schema';
import type { RunRequestInput } from '../src/run/request';
import { WORKFLOW_TYPE } from '../src/run/wire';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

const LATENCY_MS = 150;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: LATENCY_MS } });
});
afterAll(async () => h?.close());

function sortingRun(scheme: keyof typeof sortingTask.schemes, size: number, extra: Partial<RunRequestInput> = {}): RunRequestInput {
  return {
    task: 'sorting',
    problem: sortingTask.generateProblem(size, 7),
    goo: sortingTask.schemes[scheme]!({ size }),
    labels: { scheme, size, sample: 7 },
    ...extra,
  };
}

describe('the Controller workflow on sorting', () => {
  it('runs IO: one LLM call, one scored and checked thought', async () => {
    h.llm.resetStats();
    const result = await resultOf(await startRun(h.client, sortingRun('io', 32), { taskQueue: h.taskQueue }));
    expect(h.llm.stats().requests).toBe(1);
    expect(result.grs.calls).toHaveLength(1);
    expect(result.grs.thoughts.map((t) => t.id)).toEqual(['root/0', 'sort/0.0']);
    expect(result.final).toHaveLength(1);
    expect(result.best?.score).toBeTypeOf('number');
    expect(result.best?.solved).toBe(result.best?.score === 0);
    expect(result.grs.operations.every((o) => o.status === 'done')).toBe(true);
    expect(result.grs.totals.promptTokens).toBeGreaterThan(100);
  });

  it('runs GoT on 64 elements with the expected graph, and runs independent branches at the same time', async () => {
    h.llm.resetStats();
    const result = await resultOf(await startRun(h.client, sortingRun('got', 64), { taskQueue: h.taskQueue }));
    const { grs } = result;

    // split 1 call; 4 sorts; merge level 1: 2 aggregates + 2 improves; root merge: 1 aggregate; final improve 1.
    expect(grs.calls).toHaveLength(11);
    expect(h.llm.stats().requests).toBe(11);
    const created = (prefix: string) => grs.thoughts.filter((t) => t.operationId.startsWith(prefix)).length;
    expect(created('split')).toBe(4);
    expect(created('sort')).toBe(4 * 5);
    expect(created('merge')).toBe(3 * 10);
    expect(created('improve')).toBe(2 * 5 + 10);
    expect(grs.thoughts).toHaveLength(1 + 4 + 20 + 30 + 20);

    // Every edge points at a thought of the graph; every merge has two parents.
    const ids = new Set(grs.thoughts.map((t) => t.id));
    for (const t of grs.thoughts) for (const p of t.parents) expect(ids.has(p)).toBe(true);
    for (const t of grs.thoughts.filter((t) => t.operationId.startsWith('merge'))) expect(t.parents).toHaveLength(2);

    // The final answer is the best of the last round (lower error scope is better).
    const finalScore = grs.operations.find((o) => o.id === 'final')!;
    const candidates = finalScore.inputThoughts.map((id) => grs.thoughts.find((t) => t.id === id)!.score!);
    expect(result.best!.score).toBe(Math.min(...candidates));
    expect(result.best!.id).toBe(result.final[0]!.id);

    // The four part sorts overlapped: each started before any of them ended.
    const sorts = grs.operations.filter((o) => o.id.startsWith('sort'));
    expect(sorts).toHaveLength(4);
    const lastStart = Math.max(...sorts.map((o) => o.startedAt!));
    const firstEnd = Math.min(...sorts.map((o) => o.endedAt!));
    expect(lastStart).toBeLessThan(firstEnd);
    expect(h.llm.stats().maxInFlight).toBeGreaterThanOrEqual(4);
  });

  it('finishes GoT on 128 elements well within the summed latency of its LLM calls', async () => {
    const started = Date.now();
    const { grs } = await resultOf(await startRun(h.client, sortingRun('got', 128), { taskQueue: h.taskQueue }));
    const wallMs = Date.now() - started;
    // 23 calls, but the longest chain of dependent calls is 8 deep: run one after another they would take 23 latencies.
    expect(grs.calls).toHaveLength(23);
    const summedLatency = grs.calls.reduce((sum, c) => sum + c.latencyMs, 0);
    expect(summedLatency).toBeGreaterThan(1.5 * wallMs);
  });

  it('asks k samples as k parallel requests of one call with fanOut perSample, with the same graph shape', async () => {
    h.llm.resetStats();
    const batched = await resultOf(await startRun(h.client, sortingRun('got', 32), { taskQueue: h.taskQueue }));
    h.llm.resetStats();
    const perSample = await resultOf(
      await startRun(h.client, sortingRun('got', 32, { llm: { fanOut: 'perSample' } }), { taskQueue: h.taskQueue }),
    );
    // The calls are the batched run's (split; 2 part sorts of 5; merge of 10; improve of 10), but every
    // sample is a request of its own, the samples of a call sent together.
    expect(perSample.grs.calls.map((c) => c.samples)).toEqual(batched.grs.calls.map((c) => c.samples));
    const stats = h.llm.stats();
    expect(stats.requests).toBe(1 + 10 + 10 + 10);
    expect(stats.completions).toBe(stats.requests);
    expect(stats.maxInFlight).toBeGreaterThanOrEqual(10);
    expect(perSample.grs.thoughts.map((t) => t.id).sort()).toEqual(batched.grs.thoughts.map((t) => t.id).sort());
    const merges = perSample.grs.thoughts.filter((t) => t.operationId.startsWith('merge'));
    expect(new Set(merges.map((t) => t.callId)).size).toBe(1);
  });

  it('keeps at most maxConcurrentCalls LLM calls of a run in flight', async () => {
    h.llm.resetStats();
    const result = await resultOf(
      await startRun(h.client, sortingRun('got', 128, { llm: { maxConcurrentCalls: 2 } }), { taskQueue: h.taskQueue }),
    );
    expect(h.llm.stats().maxInFlight).toBe(2);
    expect(result.grs.calls).toHaveLength(23);
  });

  it('answers the progress query while running', async () => {
    const handle = await startRun(h.client, sortingRun('tot', 32), { taskQueue: h.taskQueue });
    const progress = await queryProgress(handle);
    expect(progress.operationsTotal).toBe(sortingTask.schemes.tot!({ size: 32 }).operations.length);
    await resultOf(handle);
    const done = await queryProgress(handle);
    expect(done.operationsDone).toBe(done.operationsTotal);
    expect(done.llmCalls).toBe(2);
  });

  it('stops scheduling LLM work when the token budget is spent', async () => {
    h.llm.resetStats();
    const result = await resultOf(
      await startRun(h.client, sortingRun('tot2', 64, { budget: { maxTokens: 1 } }), { taskQueue: h.taskQueue }),
    );
    expect(result.grs.budgetExhausted).toBe(true);
    expect(h.llm.stats().requests).toBe(1);
    expect(result.grs.operations.filter((o) => o.status === 'skipped').length).toBeGreaterThan(0);
    expect(result.best).toBeDefined();
  });
});

describe('bad input is refused before any LLM call', () => {
  const cyclic: GoO = {
    version: 1,
    operations: [
      { id: 'a', type: 'generate', inputs: ['b'], prompt: 'sort', k: 1 },
      { id: 'b', type: 'score', inputs: ['a'], scorer: { kind: 'local' } },
    ],
  };

  it.each([
    ['a GoO with a cycle', { goo: cyclic }, /cycle/],
    ['an unknown task', { task: 'poetry' }, /task.*unknown task "poetry"/s],
    [
      'an unknown prompt',
      { goo: { version: 1, operations: [{ id: 'g', type: 'generate', prompt: 'dance', k: 1, inputs: [] }] } },
      /prompt.*dance/s,
    ],
    ['a problem of the wrong shape', { problem: { list: 'not a list' } }, /problem\.list/],
    ['a budget that is not positive', { budget: { maxCostUsd: -1 } }, /budget\.maxCostUsd.*positive/s],
  ] as const)('refuses %s when started directly by a client', async (_name, patch, message) => {
    h.llm.resetStats();
    const request = { ...sortingRun('io', 32), ...patch };
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `bad-${Math.random()}`,
      args: [request],
    });
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as Error & { type?: string };
    expect(cause.message).toMatch(message);
    expect(h.llm.stats().requests).toBe(0);
  });
});
