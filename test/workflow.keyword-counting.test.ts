import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { Thought } from '../src/grs/types';
import type { RunRequestInput } from '../src/run/request';
import { type KeywordCountingProblem, keywordCountingTask as task } from '../src/tasks/keyword-counting';
import { splitSentences } from '../src/tasks/keyword-counting/parse';
import { type Harness, startHarness } from './support/harness';

// Long enough that eight calls sent together overlap at the simulator even when the full suite loads both cores.
const LATENCY_MS = 300;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: LATENCY_MS } });
});
afterAll(async () => h?.close());

function run(scheme: keyof typeof task.schemes, problem: KeywordCountingProblem, sample: number): RunRequestInput {
  const size = task.sizeOf(problem);
  return { task: 'keyword-counting', problem, goo: task.schemes[scheme]!({ size, problem }), labels: { scheme, size, sample } };
}

/** The best final thought is scored and checked exactly as the task would score and check it. */
function expectConsistentBest(best: Thought | undefined, problem: KeywordCountingProblem) {
  expect(best).toBeDefined();
  expect(best!.score).toBe(task.score!(best!.state, problem));
  expect(best!.solved).toBe(best!.score === 0);
  expect(best!.solved).toBe(task.groundTruth!(best!.state, problem));
}

describe('the Controller workflow on keyword counting', () => {
  it('runs IO: one call, one scored and checked tally', async () => {
    const problem = task.generateProblem(12, 4);
    h.llm.resetStats();
    const result = await resultOf(await startRun(h.client, run('io', problem, 4), { taskQueue: h.taskQueue }));
    expect(h.llm.stats().byKind).toEqual({ 'keyword-counting.count': 1 });
    expect(result.grs.thoughts.map((t) => t.id)).toEqual(['root/0', 'count/0.0']);
    expect(result.final).toHaveLength(1);
    expectConsistentBest(result.best, problem);
    expect(result.best!.state.counts).toBeTypeOf('object');
  });

  it('runs GoTx: one passage per sentence, counted in parallel, merged pairwise with checked sums', async () => {
    const problem = task.generateProblem(8, 2);
    const sentences = splitSentences(problem.text);
    expect(sentences).toHaveLength(8);
    h.llm.resetStats();
    const result = await resultOf(await startRun(h.client, run('gotx', problem, 2), { taskQueue: h.taskQueue }));
    const { grs } = result;
    const of = (prefix: string) => grs.thoughts.filter((t) => t.operationId.startsWith(prefix));
    const improves = grs.calls.filter((c) => c.purpose === 'improve');

    // split 1 call; 8 counts (k=10 each); 7 merges (k=3 each); improve calls only for merges that failed validation
    expect(grs.calls).toHaveLength(1 + 8 + 7 + improves.length);
    expect(h.llm.stats().requests).toBe(grs.calls.length);
    expect(h.llm.stats().byKind).toMatchObject({ 'keyword-counting.split': 1, 'keyword-counting.count': 8, 'keyword-counting.merge': 7 });
    expect(improves.length).toBeLessThanOrEqual(7 * 3 * 3);
    expect(of('split').map((t) => t.state.part)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(of('count')).toHaveLength(80);
    expect(of('merge')).toHaveLength(21);
    expect(of('validate')).toHaveLength(improves.length);
    expect(grs.thoughts).toHaveLength(1 + 8 + 80 + 21 + improves.length);

    // edges: every parent exists; a merge has two parents (the kept counts of two branches), an improvement one
    const byId = new Map(grs.thoughts.map((t) => [t.id, t]));
    for (const t of grs.thoughts) for (const p of t.parents) expect(byId.has(p)).toBe(true);
    for (const t of of('merge')) expect(t.parents).toHaveLength(2);
    for (const t of of('validate')) {
      expect(t.parents).toHaveLength(1);
      expect(byId.get(t.parents[0]!)!.operationId).toMatch(/^(merge|validate)-/);
    }
    // a merged thought knows what it must add up to; validation judged it by that
    for (const t of of('merge')) expect(t.state.expected).toBeTypeOf('object');

    // the answer is the best checked sum of the root merge, judged against the whole text
    expect(result.final).toHaveLength(1);
    expect(result.final[0]!.state.covered).toBe(8);
    expectConsistentBest(result.best, problem);
    const rootMerge = grs.operations.find((o) => o.id === 'groundtruth')!;
    expect(rootMerge.inputThoughts).toEqual([result.best!.id]);

    // the eight counts ran at the same time
    const counts = grs.operations.filter((o) => /^count-\d+$/.test(o.id));
    expect(counts).toHaveLength(8);
    expect(Math.max(...counts.map((o) => o.startedAt!))).toBeLessThan(Math.min(...counts.map((o) => o.endedAt!)));
    expect(h.llm.stats().maxInFlight).toBeGreaterThanOrEqual(8);
  });

  it('runs GoT4: four passages, three merges, each passage keeping the best of its ten counts', async () => {
    const problem = task.generateProblem(16, 5);
    const result = await resultOf(await startRun(h.client, run('got4', problem, 5), { taskQueue: h.taskQueue }));
    const { grs } = result;
    const improves = grs.calls.filter((c) => c.purpose === 'improve').length;
    expect(grs.calls).toHaveLength(1 + 4 + 3 + improves);
    expect(grs.thoughts).toHaveLength(1 + 4 + 40 + 9 + improves);
    // each part's kept count is the best of its ten samples
    for (const keep of grs.operations.filter((o) => o.type === 'keepBestN' && o.inputThoughts.some((id) => id.startsWith('count-')))) {
      const scores = keep.inputThoughts.map((id) => grs.thoughts.find((t) => t.id === id)!.score!);
      expect(grs.thoughts.find((t) => t.id === keep.outputThoughts[0])!.score).toBe(Math.min(...scores));
    }
    expectConsistentBest(result.best, problem);
    expect(result.best!.score).toBeLessThan(10);
  });
});
