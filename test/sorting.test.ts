import { describe, expect, it } from 'vitest';
import type { GoO, Operation } from '../src/goo/schema';
import { readCsv } from '../src/tasks/dataset';
import { type SortingState, sortingTask } from '../src/tasks/sorting';
import { generateSortingProblem, parseSortingCsv } from '../src/tasks/sorting/dataset';
import { findIntegerLists, lastIntegerList } from '../src/tasks/sorting/parse';
import { fmt, SORTING_MARKERS } from '../src/tasks/sorting/prompts';
import { errorScope, UNPARSEABLE_SCORE } from '../src/tasks/sorting/score';
import type { PromptRequest } from '../src/tasks/task';
import {
  expectKeepBest1,
  expectLocalScore,
  expectSchemesWellFormed,
  gooGraph,
  readSharedData,
  sameSet,
  validationIssues,
} from './support/tasks';

const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);

describe('errorScope', () => {
  const expected = [3, 1, 2];
  it.each([
    { name: 'a correct sort', answer: [1, 2, 3], want: 0 },
    { name: 'a missing element', answer: [1, 2], want: 1 },
    { name: 'an extra element', answer: [1, 2, 3, 3], want: 1 },
    { name: 'one descent', answer: [1, 3, 2], want: 1 },
    { name: 'two descents', answer: [3, 2, 1], want: 2 },
    { name: 'a wrong digit (one missing, one extra)', answer: [1, 2, 4], want: 2 },
    { name: 'an empty answer', answer: [], want: 3 },
    { name: 'the unsorted input itself', answer: [3, 1, 2], want: 1 },
  ])('$name scores $want', ({ answer, want }) => {
    expect(errorScope(expected, answer)).toBe(want);
  });

  it('adds count errors and descents', () => {
    // 0 appears once instead of twice (1) and 1 > 0 is a descent (1)
    expect(errorScope([0, 0, 1], [1, 0])).toBe(2);
    // a whole list reversed: every adjacent pair is a descent
    expect(errorScope([0, 1, 2, 3, 4], [4, 3, 2, 1, 0])).toBe(4);
    // equal neighbours are not descents
    expect(errorScope([5, 5, 5], [5, 5, 5])).toBe(0);
  });
});

describe('parsing model output', () => {
  it.each([
    { name: 'text around a list', text: 'Sure! The answer is [1, 2, 3]. Hope it helps.', want: [[1, 2, 3]] },
    { name: 'no list', text: 'I cannot sort this.', want: [] },
    {
      name: 'input restated before the answer',
      text: 'Input: [3, 1]\nOutput: [1, 3]',
      want: [
        [3, 1],
        [1, 3],
      ],
    },
    { name: 'nested brackets', text: '[[1, 2], [3]]', want: [[1, 2], [3]] },
    { name: 'non-integers', text: '[1.5, 2] [a, b] [1, 2, ] [1, ..., 9]', want: [] },
    { name: 'an empty list', text: 'Output: []', want: [[]] },
    { name: 'whitespace, newlines and signs', text: '[ -1 , 0 ,\n 2 ]', want: [[-1, 0, 2]] },
    { name: 'an unclosed bracket', text: 'Output: [1, 2, 3', want: [] },
    { name: 'a malformed list among good ones', text: '[1, 2] [x] [4]', want: [[1, 2], [4]] },
  ])('findIntegerLists: $name', ({ text, want }) => {
    expect(findIntegerLists(text)).toEqual(want);
  });

  it.each([
    { text: 'Input: [3, 1, 2]\nOutput: [1, 2, 3]', want: [1, 2, 3] },
    { text: '[1, 2] and then [oops]', want: [1, 2] },
    { text: 'nothing to see', want: undefined },
    { text: '[]', want: [] },
  ])('lastIntegerList($text)', ({ text, want }) => {
    expect(lastIntegerList(text)).toEqual(want);
  });
});

const req = (prompt: string, thoughts: SortingState[], params: Record<string, unknown> = {}): PromptRequest => ({
  prompt,
  params,
  thoughts,
});

describe('sortingTask.parseResponse', () => {
  const root: SortingState = { unsorted: [3, 1, 2, 0], list: [3, 1, 2, 0] };

  it('sort: the last list is the answer, unsorted carried over', () => {
    const out = sortingTask.parseResponse(req('sort', [root]), 'Input: [3, 1, 2, 0]\nOutput: [0, 1, 2, 3]');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ valid: true, state: { unsorted: [3, 1, 2, 0], list: [0, 1, 2, 3] } });
    expect(out[0]!.state.part).toBeUndefined();
  });

  it('sort: keeps the part of a split thought', () => {
    const out = sortingTask.parseResponse(req('sort', [{ unsorted: [9, 8], list: [9, 8], part: 3 }]), '[8, 9]');
    expect(out[0]).toMatchObject({ valid: true, state: { unsorted: [9, 8], list: [8, 9], part: 3 } });
  });

  it('sortCot: intermediate lines do not fool the parser', () => {
    const text = [
      'Sublists: [3, 1], [2, 0]',
      'Sorted sublists: [1, 3], [0, 2]',
      'Merging [1, 3] and [0, 2]...',
      'Output: [0, 1, 2, 3]',
    ].join('\n');
    const out = sortingTask.parseResponse(req('sortCot', [root]), text);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ valid: true, state: { unsorted: [3, 1, 2, 0], list: [0, 1, 2, 3] } });
  });

  it("merge: unsorted is the concatenation of the parents' unsorted lists, and no part", () => {
    const a: SortingState = { unsorted: [3, 1], list: [1, 3], part: 0 };
    const b: SortingState = { unsorted: [2, 0], list: [0, 2], part: 1 };
    const out = sortingTask.parseResponse(req('merge', [a, b]), 'Merged: [0, 1, 2, 3]');
    expect(out).toHaveLength(1);
    expect(out[0]!.valid).toBe(true);
    expect(out[0]!.state.unsorted).toEqual([3, 1, 2, 0]);
    expect(out[0]!.state.list).toEqual([0, 1, 2, 3]);
    expect(out[0]!.state.part).toBeUndefined();
  });

  it('improve: keeps unsorted and part of the thought it improves', () => {
    const t: SortingState = { unsorted: [5, 4, 4], list: [4, 5], part: 1 };
    const out = sortingTask.parseResponse(req('improve', [t]), 'Original: [5, 4, 4]\nOutput: [4, 4, 5]');
    expect(out[0]).toMatchObject({ valid: true, state: { unsorted: [5, 4, 4], list: [4, 4, 5], part: 1 } });
  });

  it.each(['sort', 'sortCot', 'improve', 'merge'])('%s: an answer without a list is one invalid thought', (prompt) => {
    const thoughts = prompt === 'merge' ? [root, root] : [root];
    const out = sortingTask.parseResponse(req(prompt, thoughts), 'I am unable to help with that.');
    expect(out).toHaveLength(1);
    expect(out[0]!.valid).toBe(false);
    expect(out[0]!.error).toBeTruthy();
    expect(out[0]!.state.list).toBeUndefined();
    expect(out[0]!.state.unsorted).toEqual(prompt === 'merge' ? [...root.unsorted, ...root.unsorted] : root.unsorted);
  });

  describe('split', () => {
    const list = Array.from({ length: 32 }, (_, i) => (i * 3 + 1) % 10);
    const parent: SortingState = { unsorted: list, list };
    const half = (i: number) => list.slice(i * 16, (i + 1) * 16);
    const expectParts = (out: ReturnType<typeof sortingTask.parseResponse>, lists: number[][]) => {
      expect(out).toHaveLength(lists.length);
      out.forEach((t, i) => {
        expect(t.valid).toBe(true);
        expect(t.state.part).toBe(i);
        expect(t.state.list).toEqual(lists[i]);
        // the truth for part i is the parent's i-th slice, whatever the model wrote
        expect(t.state.unsorted).toEqual(half(i));
      });
    };

    it('reads a JSON answer into one thought per part', () => {
      const text = JSON.stringify({ 'List 1': half(0), 'List 2': half(1) });
      expectParts(sortingTask.parseResponse(req('split', [parent], { parts: 2 }), text), [half(0), half(1)]);
    });

    it('reads the JSON even when the input is restated before it', () => {
      const text = `Input: ${fmt(list)}\nOutput: ${JSON.stringify({ 'List 1': half(0), 'List 2': half(1) })}`;
      expectParts(sortingTask.parseResponse(req('split', [parent], { parts: 2 }), text), [half(0), half(1)]);
    });

    it('falls back to the last lists when there is no JSON', () => {
      const text = `Input: ${fmt(list)}\nList 1: ${fmt(half(0))}\nList 2: ${fmt(half(1))}`;
      expectParts(sortingTask.parseResponse(req('split', [parent], { parts: 2 }), text), [half(0), half(1)]);
    });

    it("keeps the model's (wrong) parts as lists but the true slices as unsorted", () => {
      const wrong = [
        [1, 2, 3],
        [4, 5],
      ];
      const out = sortingTask.parseResponse(
        req('split', [parent], { parts: 2 }),
        JSON.stringify({ 'List 1': wrong[0], 'List 2': wrong[1] }),
      );
      expectParts(out, wrong);
      expect(sortingTask.score!(out[0]!.state, { list })).toBeGreaterThan(0);
    });

    it('splits into 4 parts of 8 when asked for 4', () => {
      const quarter = (i: number) => list.slice(i * 8, (i + 1) * 8);
      const text = JSON.stringify(Object.fromEntries([0, 1, 2, 3].map((i) => [`List ${i + 1}`, quarter(i)])));
      const out = sortingTask.parseResponse(req('split', [parent], { parts: 4 }), text);
      expect(out.map((t) => t.state.part)).toEqual([0, 1, 2, 3]);
      expect(out.map((t) => t.state.unsorted)).toEqual([0, 1, 2, 3].map(quarter));
    });

    it('an answer with no lists gives one invalid thought', () => {
      const out = sortingTask.parseResponse(req('split', [parent], { parts: 2 }), 'Sorry, I do not know how to split this.');
      expect(out).toHaveLength(1);
      expect(out[0]!.valid).toBe(false);
      expect(out[0]!.error).toBeTruthy();
      expect(out[0]!.state.unsorted).toEqual(list);
      expect(out[0]!.state.list).toBeUndefined();
    });
  });
});

describe('sortingTask.buildPrompt', () => {
  const input = [7, 3, 3, 9, 0, 1, 4, 4, 8, 2, 6, 5, 5, 1, 0, 9];
  const other = [2, 2, 0, 8];
  const table: { prompt: keyof typeof SORTING_MARKERS; thoughts: SortingState[]; params?: Record<string, unknown>; last: number[][] }[] = [
    { prompt: 'sort', thoughts: [{ unsorted: [1], list: input }], last: [input] },
    { prompt: 'sortCot', thoughts: [{ unsorted: [1], list: input }], last: [input] },
    { prompt: 'split', thoughts: [{ unsorted: input, list: input }], params: { parts: 2 }, last: [input] },
    {
      prompt: 'merge',
      thoughts: [
        { unsorted: input, list: input },
        { unsorted: other, list: other },
      ],
      last: [input, other],
    },
    { prompt: 'improve', thoughts: [{ unsorted: other, list: input }], last: [other, input] },
  ];

  it.each(table)('$prompt: contains its marker and ends with the real input', ({ prompt, thoughts, params, last }) => {
    const messages = sortingTask.buildPrompt({ prompt, params: params ?? {}, thoughts });
    expect(messages).toHaveLength(1);
    expect(messages[0]!.role).toBe('user');
    const content = messages[0]!.content;
    expect(content).toContain(SORTING_MARKERS[prompt]);
    // the last lists of the prompt are the real input (examples come before it)
    expect(findIntegerLists(content).slice(-last.length)).toEqual(last);
    const tail = fmt(last.at(-1)!);
    expect(content.lastIndexOf(tail)).toBeGreaterThan(content.lastIndexOf('</Examples>'));
    expect(content.lastIndexOf(tail)).toBeGreaterThan(content.lastIndexOf('</Approach>'));
    expect(content.lastIndexOf(tail)).toBeGreaterThan(content.lastIndexOf('</Instruction>'));
  });

  it('split tells the model how many parts and how long each is', () => {
    const [m] = sortingTask.buildPrompt({ prompt: 'split', params: { parts: 4 }, thoughts: [{ unsorted: input, list: input }] });
    expect(m!.content).toContain(`${SORTING_MARKERS.split} 4 lists of 4 numbers`);
  });

  it('refuses a prompt it does not have', () => {
    expect(() => sortingTask.buildPrompt({ prompt: 'teleport', params: {}, thoughts: [{ unsorted: input, list: input }] })).toThrow(
      /teleport/,
    );
  });
});

describe('sortingTask score, validate and groundTruth', () => {
  const problem = { list: [3, 1, 2, 0] };

  it('scores an invalid thought with UNPARSEABLE_SCORE and a valid one with errorScope', () => {
    expect(UNPARSEABLE_SCORE).toBe(300);
    expect(sortingTask.score!({ unsorted: [3, 1, 2, 0] }, problem)).toBe(UNPARSEABLE_SCORE);
    expect(sortingTask.score!({ unsorted: [3, 1, 2, 0], list: [0, 1, 2, 3] }, problem)).toBe(0);
    expect(sortingTask.score!({ unsorted: [3, 1, 2, 0], list: [0, 2, 1] }, problem)).toBe(2);
    // a part is scored against its own slice, not the whole problem
    expect(sortingTask.score!({ unsorted: [3, 1], list: [1, 3], part: 0 }, problem)).toBe(0);
  });

  it('validates a thought against its own unsorted list', () => {
    expect(sortingTask.validate!({ unsorted: [3, 1], list: [1, 3] }, problem)).toBe(true);
    expect(sortingTask.validate!({ unsorted: [3, 1], list: [3, 1] }, problem)).toBe(false);
    expect(sortingTask.validate!({ unsorted: [3, 1] }, problem)).toBe(false);
  });

  it('groundTruth compares against the whole problem', () => {
    expect(sortingTask.groundTruth!({ unsorted: [3, 1, 2, 0], list: [0, 1, 2, 3] }, problem)).toBe(true);
    // a correctly sorted part is not a solution of the problem
    expect(sortingTask.groundTruth!({ unsorted: [3, 1], list: [1, 3], part: 0 }, problem)).toBe(false);
    // even if the thought's own unsorted list is wrong, the problem decides
    expect(sortingTask.groundTruth!({ unsorted: [9], list: [0, 1, 2, 3] }, problem)).toBe(true);
    expect(sortingTask.groundTruth!({ unsorted: [3, 1, 2, 0], list: [0, 1, 3, 2] }, problem)).toBe(false);
    expect(sortingTask.groundTruth!({ unsorted: [3, 1, 2, 0] }, problem)).toBe(false);
  });

  it('rootState starts from the problem list', () => {
    expect(sortingTask.rootState(problem)).toMatchObject({ unsorted: [3, 1, 2, 0], list: [3, 1, 2, 0] });
    expect(sortingTask.sizeOf(problem)).toBe(4);
  });
});

/* ------------------------------------------------------------------ scheme shapes */

describe('sorting schemes against REFERENCE-GOO.md', () => {
  it.each([
    ['io', 'sort'],
    ['cot', 'sortCot'],
  ] as const)('%s: generate(k=1) -> score -> groundTruth', (scheme, prompt) => {
    for (const size of [32, 64, 128]) {
      const goo = sortingTask.schemes[scheme]!({ size });
      const g = gooGraph(goo);
      expect(goo.operations).toHaveLength(3);
      expect(g.roots).toHaveLength(1);
      const gen = g.roots[0]!;
      expect(gen).toMatchObject({ type: 'generate', prompt, k: 1 });
      const score = g.one(gen.id, 'score');
      expectLocalScore(score);
      const gt = g.one(score.id, 'groundTruth');
      expect(g.a.sinks).toEqual([gt.id]);
    }
  });

  it.each([
    { scheme: 'tot', size: 32, k: 20, levels: 1 },
    { scheme: 'tot', size: 64, k: 20, levels: 3 },
    { scheme: 'tot', size: 128, k: 20, levels: 3 },
    { scheme: 'tot2', size: 32, k: 10, levels: 2 },
    { scheme: 'tot2', size: 64, k: 10, levels: 6 },
    { scheme: 'tot2', size: 128, k: 10, levels: 9 },
  ])('$scheme at $size: generate(k=$k) then $levels improve levels, each kept against the previous best', ({ scheme, size, k, levels }) => {
    const goo = sortingTask.schemes[scheme]!({ size });
    const g = gooGraph(goo);
    expect(g.roots).toHaveLength(1);
    const first = g.roots[0]!;
    expect(first).toMatchObject({ type: 'generate', prompt: 'sort', k });
    const firstScore = g.one(first.id, 'score');
    expectLocalScore(firstScore);
    let best = g.one(firstScore.id, 'keepBestN');
    expectKeepBest1(best);

    for (let level = 0; level < levels; level++) {
      const gen = g.one(best.id, 'generate');
      expect(gen).toMatchObject({ prompt: 'improve', k, inputs: [best.id] });
      const score = g.one(gen.id, 'score');
      expect(score.inputs).toEqual([gen.id]);
      const keep = g.one(score.id, 'keepBestN');
      expectKeepBest1(keep);
      sameSet(keep.inputs, [score.id, best.id]);
      best = keep;
    }
    // then a final Keep -> GroundTruth
    expect(g.succ(best.id).filter((o) => o.type === 'generate')).toHaveLength(0);
    const final = g.one(best.id, 'keepBestN');
    expectKeepBest1(final);
    expect(final.inputs).toEqual([best.id]);
    const gt = g.one(final.id, 'groundTruth');
    expect(g.a.sinks).toEqual([gt.id]);
    expect(goo.operations.filter((o) => o.type === 'generate')).toHaveLength(levels + 1);
    expect(goo.operations).toHaveLength(3 + 3 * levels + 2);
  });

  interface MergeNode {
    aggregate: Extract<Operation, { type: 'aggregate' }>;
    mergeKeep: Operation;
    /** The k=5 improve generate after the merge, if any. */
    improve?: Extract<Operation, { type: 'generate' }>;
    out: Operation;
    root: boolean;
  }

  /** Walks the GoT GoO the way REFERENCE-GOO.md describes it, asserting each step; returns the merge nodes. */
  function walkGot(goo: GoO, parts: number) {
    const g = gooGraph(goo);
    expect(g.roots).toHaveLength(1);
    const split = g.roots[0]!;
    expect(split).toMatchObject({ type: 'generate', prompt: 'split', k: 1, params: { parts } });

    const selectors = g.succ(split.id);
    expect(selectors).toHaveLength(parts);
    const leaves = selectors.map((sel, i) => {
      expect(sel).toMatchObject({ type: 'selector', where: { part: i }, inputs: [split.id] });
      const sort = g.one(sel.id, 'generate');
      expect(sort).toMatchObject({ prompt: 'sort', k: 5, inputs: [sel.id] });
      const score = g.one(sort.id, 'score');
      expectLocalScore(score);
      const keep = g.one(score.id, 'keepBestN');
      expectKeepBest1(keep);
      return keep;
    });

    const aggregates = goo.operations.filter((o): o is MergeNode['aggregate'] => o.type === 'aggregate');
    expect(aggregates).toHaveLength(parts - 1);
    const merges: MergeNode[] = [];
    let level: Operation[] = leaves;
    while (level.length > 1) {
      const next: Operation[] = [];
      for (let i = 0; i < level.length; i += 2) {
        const [left, right] = [level[i]!, level[i + 1]!];
        const aggregate = aggregates.find((a) => a.inputs.length === 2 && a.inputs[0] === left.id && a.inputs[1] === right.id);
        expect(aggregate, `an aggregate of ${left.id} and ${right.id}`).toBeDefined();
        expect(aggregate).toMatchObject({ prompt: 'merge', k: 10 });
        const score = g.one(aggregate!.id, 'score');
        expectLocalScore(score);
        const mergeKeep = g.one(score.id, 'keepBestN');
        expectKeepBest1(mergeKeep);
        const node: MergeNode = { aggregate: aggregate!, mergeKeep, out: mergeKeep, root: level.length === 2 };
        const gen = g.one(mergeKeep.id, 'generate');
        if (gen.k === 5) {
          expect(gen).toMatchObject({ prompt: 'improve', inputs: [mergeKeep.id] });
          const improvedScore = g.one(gen.id, 'score');
          sameSet(improvedScore.inputs, [gen.id, mergeKeep.id]);
          const keep = g.one(improvedScore.id, 'keepBestN');
          expectKeepBest1(keep);
          Object.assign(node, { improve: gen, out: keep });
        }
        merges.push(node);
        next.push(node.out);
      }
      level = next;
    }

    // final stage: Generate(k=10, improve) -> Score (also fed by the last Keep) -> Keep -> GroundTruth
    const last = level[0]!;
    const finalGen = g.one(last.id, 'generate');
    expect(finalGen).toMatchObject({ prompt: 'improve', k: 10, inputs: [last.id] });
    const finalScore = g.one(finalGen.id, 'score');
    expectLocalScore(finalScore);
    sameSet(finalScore.inputs, [finalGen.id, last.id]);
    const finalKeep = g.one(finalScore.id, 'keepBestN');
    expectKeepBest1(finalKeep);
    const gt = g.one(finalKeep.id, 'groundTruth');
    expect(g.a.sinks).toEqual([gt.id]);
    return { merges, finalGen, last };
  }

  const gotCases = [
    { size: 32, parts: 2 },
    { size: 64, parts: 4 },
    { size: 128, parts: 8 },
  ];

  it.each(gotCases)(
    'got at $size: split into $parts, sort k=5 per part, binary merge tree of aggregate k=10, final improve k=10',
    ({ size, parts }) => {
      const { merges } = walkGot(sortingTask.schemes.got!({ size }), parts);
      expect(merges).toHaveLength(parts - 1);
      expect(merges.filter((m) => m.root)).toHaveLength(1);
    },
  );

  it.each(gotCases)('got at $size: every merge below the root is followed by improve k=5 (none for 32)', ({ size, parts }) => {
    const { merges } = walkGot(sortingTask.schemes.got!({ size }), parts);
    const inner = merges.filter((m) => !m.root);
    expect(inner).toHaveLength(parts - 2);
    for (const m of inner) expect(m.improve, `improve after ${m.aggregate.id}`).toBeDefined();
    if (size === 32) expect(merges.every((m) => m.improve === undefined)).toBe(true);
  });

  // The reference (spcl/graph-of-thoughts examples/sorting/sorting_064.py and sorting_128.py, got()) runs the
  // k=5 improve after the inner merges only: the root merge's Keep feeds the final Generate(1, 10) directly,
  // exactly as for 32 ("the single merge has no improve step before the final stage").
  it.each([
    { size: 32, parts: 2, improves: 0 },
    { size: 64, parts: 4, improves: 2 },
    { size: 128, parts: 8, improves: 6 },
  ])('got at $size: $improves k=5 improve steps; the root merge feeds the final k=10 improve directly', ({ size, parts, improves }) => {
    const goo = sortingTask.schemes.got!({ size });
    const { merges, finalGen } = walkGot(goo, parts);
    const root = merges.find((m) => m.root)!;
    expect(root.improve).toBeUndefined();
    expect(finalGen.inputs).toEqual([root.mergeKeep.id]);
    expect(goo.operations.filter((o) => o.type === 'generate' && o.k === 5 && o.prompt === 'improve')).toHaveLength(improves);
  });

  it("every scheme has unique ids, validates at every size and uses only the task's prompts", () => {
    expectSchemesWellFormed(sortingTask);
  });
});

/* ------------------------------------------------------------------ dataset */

describe('sorting dataset', () => {
  it.each([
    { file: 'sorting_032.csv', size: 32 },
    { file: 'sorting_064.csv', size: 64 },
    { file: 'sorting_128.csv', size: 128 },
  ])('parses $file: 100 rows of $size digits, agreeing with its Sorted column', ({ file, size }) => {
    const text = readSharedData(file);
    const samples = parseSortingCsv(text);
    expect(samples).toHaveLength(100);
    expect(new Set(samples.map((s) => s.id)).size).toBe(100);
    for (const s of samples) {
      expect(s.problem.list).toHaveLength(size);
      expect(s.problem.list.every((x) => Number.isInteger(x) && x >= 0 && x <= 9)).toBe(true);
      expect(sortingTask.problem.safeParse(s.problem).success).toBe(true);
    }
    const rows = readCsv(text);
    rows.forEach((row, i) => {
      const want = JSON.parse(row.Sorted!) as number[];
      expect(want).toEqual(sorted(samples[i]!.problem.list));
      expect(sortingTask.groundTruth!({ unsorted: [], list: want }, samples[i]!.problem)).toBe(true);
    });
    expect(sortingTask.parseDataset(text)).toEqual(samples);
  });

  const issuesOf = (csv: string) => validationIssues(() => parseSortingCsv(csv));

  it('names the row and column of a bad list cell', () => {
    const csv = ['ID,Unsorted,Sorted', '0,"[1, 2]","[1, 2]"', '1,"[1, x]","[1, 2]"', '2,"[3, 4]","[3.5, 4]"'].join('\n');
    const issues = issuesOf(csv);
    expect(issues.map((i) => i.path)).toEqual(['row 2 column Unsorted', 'row 3 column Sorted']);
    expect(issues[0]!.message).toMatch(/list of integers/);
    expect(issues[0]!.message).toContain('[1, x]');
  });

  it('names the row of an empty id and of a cell that is not a list', () => {
    const csv = ['ID,Unsorted,Sorted', ',"[1, 2]","[1, 2]"', '1,"{""a"": 1}","[1]"'].join('\n');
    const paths = issuesOf(csv).map((i) => i.path);
    expect(paths).toContain('row 1 column ID');
    expect(paths).toContain('row 2 column Unsorted');
  });

  it('generates reproducible problems of digits 0-9 per seed', () => {
    const a = generateSortingProblem(64, 7);
    expect(generateSortingProblem(64, 7)).toEqual(a);
    expect(a.list).toHaveLength(64);
    expect(generateSortingProblem(64, 8)).not.toEqual(a);
    const big = generateSortingProblem(2000, 1).list;
    expect(big.every((x) => Number.isInteger(x) && x >= 0 && x <= 9)).toBe(true);
    expect(new Set(big)).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    expect(sortingTask.generateProblem(32, 3)).toEqual(generateSortingProblem(32, 3));
  });
});
