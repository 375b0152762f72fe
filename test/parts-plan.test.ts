import { describe, expect, it } from 'vitest';
import type { ForEachOperation } from '../src/goo/grow';
import { budgetShare, callsPerPart, partBatches, RUN_HISTORY, runHistoryEstimate, runHistoryIssues } from '../src/parts/plan';
import { PART_BODIES } from '../src/tasks/doc-merge/sectioned-schemes';

/** Which parts of a forEach run in child workflows, in which batches, and what the run's own history may hold (decision 71). */

const forEach = (body: ForEachOperation['body'], maxParts = 100): ForEachOperation => ({
  id: 'F',
  type: 'forEach',
  inputs: [],
  parts: { split: 'sections', params: {} },
  maxParts,
  body,
});
const parts = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('callsPerPart', () => {
  it('counts every LLM call of a part: the ToT section body makes 3 × (1 merge + 10 judgements)', () => {
    expect(callsPerPart(forEach(PART_BODIES.tot()), false)).toBe(33);
    // Samples asked one request each are still one call (decision 69); judging 10 thoughts is 10 calls.
    expect(callsPerPart(forEach(PART_BODIES.tot()), true)).toBe(33 + 3 * 9);
  });

  it('counts a nested forEach at its maxParts, and nothing for a body without LLM steps', () => {
    const nested = forEach([{ id: 'G', type: 'forEach', inputs: [], parts: 'each', maxParts: 7, body: PART_BODIES.io() }]);
    // `each` takes its input thoughts: one, the part's.
    expect(callsPerPart(nested, false)).toBe(1);
    const split = forEach([
      { id: 'G', type: 'forEach', inputs: [], parts: { split: 's', params: {} }, maxParts: 7, body: PART_BODIES.io() },
    ]);
    expect(callsPerPart(split, false)).toBe(7);
    expect(callsPerPart(forEach([]), false)).toBe(0);
  });
});

describe('partBatches', () => {
  const tot = forEach(PART_BODIES.tot());
  it('keeps parts that fit beside what the history holds in the run', () => {
    expect(partBatches(tot, parts(60), { perSample: false, maxCalls: 2_000, here: 0 })).toBeUndefined();
    // 60 parts of 33 calls fit 2,000 alone, not beside 30 calls the run already made: one child takes them.
    expect(partBatches(tot, parts(60), { perSample: false, maxCalls: 2_000, here: 30 })).toEqual([parts(60)]);
  });

  it('cuts the parts into batches of at most maxCalls calls, in part order; a part worth more is a batch alone', () => {
    const batches = partBatches(tot, parts(100), { perSample: false, maxCalls: 2_000, here: 0 })!;
    expect(batches.map((b) => b.length)).toEqual([60, 40]);
    expect(batches.flat()).toEqual(parts(100));
    expect(partBatches(tot, [3, 5, 8], { perSample: false, maxCalls: 10, here: 0 })).toEqual([[3], [5], [8]]);
  });

  it('keeps a body a person scores in the run, where the person answers', () => {
    const body: ForEachOperation['body'] = [
      { id: 'g', type: 'generate', inputs: [], prompt: 'merge', k: 1 },
      { id: 's', type: 'score', inputs: ['g'], scorer: { kind: 'human' } } as ForEachOperation['body'][number],
    ];
    expect(partBatches(forEach(body), parts(5_000), { perSample: false, maxCalls: 10, here: 0 })).toBeUndefined();
  });
});

describe('budgetShare', () => {
  it('gives a child an even share of what is left among the batches waiting, never less than nothing', () => {
    expect(budgetShare({ maxCostUsd: 10, maxTokens: 1_000 }, { costUsd: 4, tokens: 400 }, 3)).toEqual({ maxCostUsd: 2, maxTokens: 200 });
    expect(budgetShare({ maxTokens: 1_000 }, { costUsd: 0, tokens: 1_500 }, 2)).toEqual({ maxTokens: 0 });
  });
});

describe('the run’s own history', () => {
  it('holds a data room of 200 documents: its 141 section parts in two children', () => {
    const sections = { ...forEach(PART_BODIES.got(), 141), id: 'sections' };
    const estimate = runHistoryEstimate([sections], { perSample: false, maxCalls: 2_000 });
    expect(estimate.children).toBe(2);
    expect(estimate.events).toBeLessThan(RUN_HISTORY.maxEvents);
  });

  it('refuses, naming the forEach and what helps, a run whose children alone would overflow it', () => {
    const huge = forEach(PART_BODIES.tot(), 10_000);
    const issues = runHistoryIssues([huge], { perSample: false, maxCalls: 20 });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/forEach "F" may start 10000 child workflows; raise children\.maxCalls \(now 20\)/);
    expect(runHistoryIssues([huge], { perSample: false, maxCalls: 2_000 })).toEqual([]);
  });
});
