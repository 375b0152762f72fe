import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const problem = sortingTask.generateProblem(32, 12);
const request = (llm: RunRequestInput['llm'], budget?: RunRequestInput['budget']): RunRequestInput => ({
  task: 'sorting',
  problem,
  goo: sortingTask.schemes.got!({ size: 32 }),
  llm,
  seed: 7,
  ...(budget ? { budget } : {}),
});
const run = async (r: RunRequestInput): Promise<RunResult> => resultOf(await startRun(h.client, r, { taskQueue: h.taskQueue }));
const perCall = (r: RunResult) => r.grs.calls.map((c) => [c.id, c.usage.promptTokens, c.usage.completionTokens, c.costUsd]).sort();

describe("the response cache's recorded costs", () => {
  it('replays every answer without a request, and reports the usage and cost each had when it was paid for', async () => {
    const paid = await run(request({ cache: true }));
    expect(paid.grs.totals.costUsd).toBeGreaterThan(0);

    h.llm.resetStats();
    const replayed = await run(request({ cache: true, cacheCosts: 'recorded' }));
    expect(h.llm.stats().requests).toBe(0);
    expect(replayed.grs.calls.every((c) => c.cached === true)).toBe(true);
    expect(replayed.grs.totals).toEqual(paid.grs.totals);
    expect(perCall(replayed)).toEqual(perCall(paid));
    expect(replayed.best!.state).toEqual(paid.best!.state);

    // The default still makes a replayed call free.
    const free = await run(request({ cache: true }));
    expect(free.grs.totals.costUsd).toBe(0);
    expect(free.grs.totals.llmCalls).toBe(paid.grs.totals.llmCalls);
  });

  it("prices the recorded usage at the replaying run's prices, and its budget counts it", async () => {
    // The cache holds this request's answers since the test above; a run without it pays for the same ones again.
    const paid = await run(request({ cache: false }));
    const doubled = await run(request({ cache: true, cacheCosts: 'recorded', pricing: { inputPerMTok: 3.0, outputPerMTok: 4.0 } }));
    expect(doubled.grs.totals.promptTokens).toBe(paid.grs.totals.promptTokens);
    expect(doubled.grs.totals.costUsd).toBeCloseTo(2 * paid.grs.totals.costUsd, 10);

    // A budget of half the run's cost stops it part way, as it would have stopped the paid run.
    const budget = { maxCostUsd: paid.grs.totals.costUsd / 2 };
    const limitedPaid = await run(request({ cache: false }, budget));
    const limitedReplay = await run(request({ cache: true, cacheCosts: 'recorded' }, budget));
    expect(limitedReplay.grs.totals.llmCalls).toBeLessThan(paid.grs.totals.llmCalls);
    expect(limitedReplay.grs.totals.llmCalls).toBe(limitedPaid.grs.totals.llmCalls);
    expect(limitedReplay.grs.totals.costUsd).toBeCloseTo(limitedPaid.grs.totals.costUsd, 10);
  });
});
