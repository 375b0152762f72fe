import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput } from '../src/run/request';
import { type SetIntersectionProblem, type SetIntersectionState, setIntersectionTask as task } from '../src/tasks/set-intersection';
import { intersect, UNPARSEABLE_SCORE } from '../src/tasks/set-intersection/score';
import { type Harness, startHarness } from './support/harness';
import { readSharedData } from './support/tasks';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: 50 } });
});
afterAll(async () => h?.close());

function run(scheme: keyof typeof task.schemes, problem: SetIntersectionProblem, sample: number | string): RunRequestInput {
  const size = task.sizeOf(problem);
  return { task: task.id, problem, goo: task.schemes[scheme]!({ size }), labels: { scheme, size, sample } };
}

const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);

describe('the Controller workflow on set intersection', () => {
  it('runs IO on the first row of the reference dataset: one call, one scored and checked thought', async () => {
    const csv = readSharedData('set_intersection_032.csv');
    const sample = task.parseDataset(csv)[0]!;
    h.llm.resetStats();
    const result = await resultOf(await startRun(h.client, run('io', sample.problem, sample.id), { taskQueue: h.taskQueue }));
    expect(h.llm.stats().requests).toBe(1);
    expect(h.llm.stats().byKind).toEqual({ 'set-intersection.intersect': 1 });
    expect(result.grs.thoughts.map((t) => t.id)).toEqual(['root/0', 'intersect/0.0']);
    const best = result.best!;
    expect(best.score).toBeTypeOf('number');
    expect(best.score).toBeLessThan(UNPARSEABLE_SCORE);
    expect(best.solved).toBe(best.score === 0);
    expect(result.grs.operations.every((o) => o.status === 'done')).toBe(true);
  });

  it('runs GoT on 64-element sets: split into 4, intersect each part 5 times, merge pairwise', async () => {
    const problem = task.generateProblem(64, 11);
    h.llm.resetStats();
    const { grs, best, final } = await resultOf(await startRun(h.client, run('got', problem, 11), { taskQueue: h.taskQueue }));

    // 1 split + 4 part intersections + 3 merges
    expect(grs.calls).toHaveLength(8);
    expect(h.llm.stats().byKind).toEqual({ 'set-intersection.split': 1, 'set-intersection.intersect': 4, 'set-intersection.merge': 3 });
    const created = (prefix: string) => grs.thoughts.filter((t) => t.operationId.startsWith(prefix));
    expect(created('split')).toHaveLength(4);
    expect(created('intersect')).toHaveLength(4 * 5);
    expect(created('merge')).toHaveLength(3 * 10);
    expect(grs.thoughts).toHaveLength(1 + 4 + 20 + 30);

    // Edges: every parent exists; each part's intersections descend from the split thought of that part; merges have two parents.
    const byId = new Map(grs.thoughts.map((t) => [t.id, t]));
    for (const t of grs.thoughts) for (const p of t.parents) expect(byId.has(p)).toBe(true);
    for (const t of created('intersect')) {
      const parent = byId.get(t.parents[0]!)!;
      expect(parent.operationId).toBe('split');
      expect(t.state.part).toBe(parent.state.part);
      expect(t.state.subset).toEqual(problem.set2.slice(16 * (t.state.part as number), 16 * (t.state.part as number) + 16));
    }
    for (const t of created('merge')) expect(t.parents).toHaveLength(2);

    // The final thought answers about all of set2, so its score is its ground truth.
    expect(final).toHaveLength(1);
    const state = best!.state as SetIntersectionState;
    expect(sorted(state.subset)).toEqual(sorted(problem.set2));
    expect(best!.solved).toBe(best!.score === 0);
    expect(best!.solved).toBe(sorted(state.result ?? []).join() === sorted(intersect(problem.set1, problem.set2)).join());

    // The final Keep chose the best of the root merge's samples.
    const finalKeep = grs.operations.find((o) => o.id === 'final')!;
    const candidates = finalKeep.inputThoughts.map((id) => byId.get(id)!.score!);
    expect(candidates).toHaveLength(10);
    expect(best!.score).toBe(Math.min(...candidates));
  });

  it('runs ToT on 32-element sets: 20 samples, then one improve level from the best', async () => {
    h.llm.resetStats();
    const { grs, best } = await resultOf(await startRun(h.client, run('tot', task.generateProblem(32, 4), 4), { taskQueue: h.taskQueue }));
    expect(h.llm.stats().byKind).toEqual({ 'set-intersection.intersect': 1, 'set-intersection.improve': 1 });
    expect(grs.thoughts).toHaveLength(1 + 20 + 20);
    const improved = grs.thoughts.filter((t) => t.operationId.startsWith('improve'));
    const firstBest = Math.min(...grs.thoughts.filter((t) => t.operationId.startsWith('intersect')).map((t) => t.score!));
    expect(new Set(improved.map((t) => t.parents[0]))).toHaveProperty('size', 1);
    expect(best!.score).toBe(Math.min(firstBest, ...improved.map((t) => t.score!)));
  });
});
