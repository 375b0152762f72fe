import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { GoO } from '../src/goo/schema';
import { checkRun } from '../src/run/check';
import type { RunRequestInput } from '../src/run/request';
import { type SetIntersectionState, setIntersectionTask } from '../src/tasks/set-intersection';
import { type SortingState, sortingTask } from '../src/tasks/sorting';
import { EQUAL_PARTS_SPLIT } from '../src/tasks/split-by';
import { type Harness, startHarness } from './support/harness';

/** Decision 84: GoT's `split: engine` cuts the input without an LLM call, into the slices the LLM split is scored against. */

describe('the equal-parts splits', () => {
  it('cut a sorting list into consecutive slices of ceil(n / parts), each a sorted-to-be part', () => {
    const list = Array.from({ length: 33 }, (_, i) => (i * 7) % 10);
    const parts = sortingTask.splits![EQUAL_PARTS_SPLIT]!([{ unsorted: list, list }], { list }, { parts: 2 });
    expect(parts).toEqual([
      { state: { unsorted: list.slice(0, 17), list: list.slice(0, 17), part: 0 } },
      { state: { unsorted: list.slice(17), list: list.slice(17), part: 1 } },
    ]);
  });

  it("cut set intersection's second set, keeping the first whole and showing each part as it is", () => {
    const set1 = [1, 2, 3];
    const set2 = Array.from({ length: 8 }, (_, i) => i * 3);
    const parts = setIntersectionTask.splits![EQUAL_PARTS_SPLIT]!([{ set1, subset: set2 }], { set1, set2 }, { parts: 4 });
    expect(parts.map((p) => ('state' in p ? p.state : undefined))).toEqual(
      [0, 1, 2, 3].map((part) => ({ set1, subset: set2.slice(2 * part, 2 * part + 2), given: set2.slice(2 * part, 2 * part + 2), part })),
    );
  });

  it('refuse a parts count that is not a positive integer, naming the parameter', () => {
    const list = [3, 1, 2];
    expect(() => sortingTask.splits![EQUAL_PARTS_SPLIT]!([{ unsorted: list, list }], { list }, { parts: 0 })).toThrow(/params\.parts/);
  });
});

describe("GoT's split parameter", () => {
  const firstOp = (goo: GoO) => goo.operations[0]!;

  it("defaults to the paper's LLM split, and with split: engine starts with a forEach of the task's equal-parts split", () => {
    for (const task of [sortingTask, setIntersectionTask] as const) {
      expect(firstOp(task.schemes.got!({ size: 64 }))).toMatchObject({ id: 'split', type: 'generate', prompt: 'split' });
      const goo = task.schemes.got!({ size: 64, params: { split: 'engine' } });
      expect(firstOp(goo)).toMatchObject({
        id: 'split',
        type: 'forEach',
        parts: { split: EQUAL_PARTS_SPLIT, params: { parts: 4 } },
        maxParts: 4,
        body: [],
      });
      // The whole run checks: the GoO and the split the task names.
      expect(() => checkRun({ task: task.id, problem: task.generateProblem(64, 1), goo })).not.toThrow();
      expect(task.tunables!.got!(64)).toHaveProperty('split');
    }
  });

  it('refuses a value other than llm or engine', () => {
    expect(() => sortingTask.schemes.got!({ size: 32, params: { split: 'model' } })).toThrow(/split/);
  });
});

describe('GoT with the engine split, run by the Controller', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ llm: { latencyMs: 20 } });
  });
  afterAll(async () => h?.close());

  const request = (task: typeof sortingTask | typeof setIntersectionTask, problem: RunRequestInput['problem']): RunRequestInput => ({
    task: task.id,
    problem,
    goo: task.schemes.got!({ size: 64, params: { split: 'engine' } }),
    labels: { scheme: 'got', size: 64, sample: 3 },
  });

  it('sorts 64 numbers with no split call: each part sort starts from its exact slice of the root', async () => {
    const problem = sortingTask.generateProblem(64, 3);
    h.llm.resetStats();
    const { grs } = await resultOf(await startRun(h.client, request(sortingTask, problem), { taskQueue: h.taskQueue }));
    // 4 sorts; merge level 1: 2 aggregates + 2 improves; root merge: 1 aggregate; final improve 1 (the LLM split's run makes 11).
    expect(grs.calls).toHaveLength(10);
    expect(grs.calls.some((c) => c.operationId === 'split')).toBe(false);
    const parts = grs.thoughts.filter((t) => t.operationId === 'split');
    expect(parts.map((t) => (t.state as SortingState).list)).toEqual([0, 1, 2, 3].map((i) => problem.list.slice(16 * i, 16 * i + 16)));
    for (const t of parts) expect(t.parents).toEqual([grs.thoughts[0]!.id]);
    const partOf = new Map(parts.map((t) => [t.id, t]));
    for (const t of grs.thoughts.filter((t) => t.operationId.startsWith('sort')))
      expect((t.state as SortingState).unsorted).toEqual((partOf.get(t.parents[0]!)!.state as SortingState).unsorted);
  });

  it('intersects 64-element sets with no split call: each part shows the model its exact slice of set2', async () => {
    const problem = setIntersectionTask.generateProblem(64, 3);
    h.llm.resetStats();
    const { grs } = await resultOf(await startRun(h.client, request(setIntersectionTask, problem), { taskQueue: h.taskQueue }));
    expect(h.llm.stats().byKind).toEqual({ 'set-intersection.intersect': 4, 'set-intersection.merge': 3 });
    const parts = grs.thoughts.filter((t) => t.operationId === 'split').map((t) => t.state as SetIntersectionState);
    expect(parts.map((s) => s.given)).toEqual([0, 1, 2, 3].map((i) => problem.set2.slice(16 * i, 16 * i + 16)));
    expect(parts.map((s) => s.subset)).toEqual(parts.map((s) => s.given));
  });
});
