import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { GOT_SEARCH_ATTRIBUTES } from '../src/run/search-attributes';
import { NON_ANSWER } from '../src/simllm/faults';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

/**
 * Real models answer badly at times: an LLM step whose answers are unusable asks again (a new seed,
 * the missing samples only, each re-ask a call of its own), and a run that still ends with no valid
 * final thought says so instead of completing as if it had answered.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: 10, seed: 1 } });
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.llm.clearFaults();
  h.llm.resetStats();
});

function sortingRun(scheme: keyof typeof sortingTask.schemes, size: number, llm: RunRequestInput['llm'] = {}): RunRequestInput {
  const problem = sortingTask.generateProblem(size, 5);
  return { task: 'sorting', problem, goo: sortingTask.schemes[scheme]!({ size, problem }), llm, labels: { scheme, size, sample: 5 } };
}

async function run(request: RunRequestInput): Promise<{ result: RunResult; handle: WorkflowHandle }> {
  const handle = await startRun(h.client, request, { taskQueue: h.taskQueue });
  return { result: await resultOf(handle), handle };
}

const statusOf = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(GOT_SEARCH_ATTRIBUTES.status);

describe('an LLM step whose answers are unusable', () => {
  it('asks again with a new seed when its one answer is cut off, and goes on with the usable answer only', async () => {
    // GoT sorting-32: the first request is the split; its answer is cut at max tokens.
    h.llm.injectFaults([{ kind: 'truncated', choice: 0 }]);
    const { result, handle } = await run(sortingRun('got', 32));
    const splits = result.grs.calls.filter((c) => c.operationId === 'split');
    expect(splits.map((c) => c.reask)).toEqual([undefined, 1]);
    const [first, again] = splits;
    // The cut-off answer's thoughts stay in the graph, marked, but the split's outputs are the re-asked ones.
    expect(first!.outputThoughts.length).toBeGreaterThan(0);
    for (const id of first!.outputThoughts)
      expect(result.grs.thoughts.find((t) => t.id === id)).toMatchObject({ valid: false, error: expect.stringMatching(/truncated/) });
    const split = result.grs.operations.find((o) => o.id === 'split')!;
    expect(split.outputThoughts).toEqual(again!.outputThoughts);
    expect(split.outputThoughts.every((id) => result.grs.thoughts.find((t) => t.id === id)!.valid)).toBe(true);
    // The re-ask is paid and counted like any call.
    expect(result.grs.totals.llmCalls).toBe(result.grs.calls.length);
    expect(again!.usage.completionTokens).toBeGreaterThan(0);
    expect(result.status).toBe('answered');
    expect(result.best?.valid).toBe(true);
    expect(await statusOf(handle)).toBe('completed');
  });

  it('asks only for the missing samples of a batch, and not at all when enough answers are usable', async () => {
    // ToT sorting-32 asks 20 samples at once; with reaskBelowShare 1, every unusable one is asked for again.
    h.llm.injectFaults([{ kind: 'unparseable', choice: 3 }]);
    const { result } = await run(sortingRun('tot', 32, { reaskBelowShare: 1 }));
    const [batch, again, ...more] = result.grs.calls.filter((c) => c.operationId === result.grs.calls[0]!.operationId);
    const unusable = batch!.outputThoughts.filter((id) => !result.grs.thoughts.find((t) => t.id === id)!.valid);
    expect(unusable.length).toBeGreaterThanOrEqual(1); // the injected one (the simulated model may add its own)
    expect([batch!.samples, batch!.reask]).toEqual([20, undefined]);
    expect([again!.samples, again!.reask]).toEqual([unusable.length, 1]);
    expect(more.every((c) => c.reask === 2)).toBe(true);
    // By default (re-ask only when nothing is usable) one unusable answer of 20 asks nothing again.
    h.llm.injectFaults([{ kind: 'unparseable', choice: 3 }]);
    const { result: lenient } = await run(sortingRun('tot', 32));
    expect(lenient.grs.calls.some((c) => c.reask)).toBe(false);
  });
});

describe('a run that ends with no valid final thought', () => {
  it('re-asks up to llm.reask times, then ends as noAnswer, naming the operation and quoting the model', async () => {
    h.llm.injectFaults(Array.from({ length: 5 }, () => ({ kind: 'unparseable' as const, choice: 0 })));
    const { result, handle } = await run(sortingRun('io', 32, { reask: 2 }));
    expect(result.grs.calls.map((c) => c.reask)).toEqual([undefined, 1, 2]);
    expect(h.llm.stats().completions).toBe(3);
    expect(result.status).toBe('noAnswer');
    expect(result.noAnswer).toMatchObject({ operation: 'sort', reason: expect.stringContaining(NON_ANSWER) });
    expect(result.noAnswer!.reason).toMatch(/none valid: no list of numbers/);
    expect(await statusOf(handle)).toBe('noAnswer');
  });

  it('asks once when re-asking is off', async () => {
    h.llm.injectFaults([{ kind: 'unparseable', choice: 0 }]);
    const { result } = await run(sortingRun('io', 32, { reask: 0 }));
    expect(result.grs.calls).toHaveLength(1);
    expect(result.status).toBe('noAnswer');
  });

  it('reports answered when a final thought is valid', async () => {
    const { result, handle } = await run(sortingRun('io', 32));
    expect(result.status).toBe('answered');
    expect(result.noAnswer).toBeUndefined();
    expect(await statusOf(handle)).toBe('completed');
  });
});
