import { describe, expect, it } from 'vitest';
import type { Operation } from '../src/goo/schema';
import { improveSampler, intersectLambda, setIntersectionResponder, systematicShare } from '../src/simllm/set-intersection';
import { readCsv } from '../src/tasks/dataset';
import { type SetIntersectionState, setIntersectionTask as task } from '../src/tasks/set-intersection';
import { generateSetIntersectionProblem, parseSetIntersectionCsv } from '../src/tasks/set-intersection/dataset';
import { findIntegerLists, jsonLists, lastIntegerList } from '../src/tasks/set-intersection/parse';
import { fmt, SET_INTERSECTION_MARKERS } from '../src/tasks/set-intersection/prompts';
import { errorScope, intersect, intersectionErrors, UNPARSEABLE_SCORE } from '../src/tasks/set-intersection/score';
import type { PromptRequest } from '../src/tasks/task';
import { seededRandom } from '../src/util/random';
import {
  expectKeepBest1,
  expectLocalScore,
  expectSchemesWellFormed,
  gooGraph,
  readSharedData,
  sameSet,
  validationIssues,
} from './support/tasks';

const req = (prompt: string, thoughts: SetIntersectionState[], params: Record<string, unknown> = {}): PromptRequest => ({
  prompt,
  params,
  thoughts,
});

/* ------------------------------------------------------------------ score */

describe('error scope', () => {
  const truth = [4, 9, 2];

  it.each([
    { name: 'the exact intersection', answer: [4, 9, 2], want: 0 },
    { name: 'the exact intersection in another order', answer: [2, 4, 9], want: 0 },
    { name: 'one missing', answer: [4, 9], want: 1 },
    { name: 'one wrongly included', answer: [4, 9, 2, 7], want: 1 },
    { name: 'one duplicated', answer: [4, 9, 9, 2], want: 1 },
    { name: 'a wrong number written twice', answer: [4, 9, 2, 7, 7], want: 2 },
    { name: 'a number written three times', answer: [4, 4, 4, 9, 2], want: 2 },
    { name: 'an empty answer', answer: [], want: 3 },
    { name: 'a replaced number (one wrong, one missing)', answer: [4, 9, 3], want: 2 },
  ])('$name scores $want', ({ answer, want }) => {
    expect(errorScope(truth, answer)).toBe(want);
  });

  it('breaks the errors down as the paper does', () => {
    expect(intersectionErrors([1, 2, 3, 4], [1, 1, 5, 6, 2])).toEqual({ wronglyIncluded: 2, missing: 2, duplicates: 1 });
  });

  it('intersect keeps the order of the second set and each number once', () => {
    expect(intersect([5, 1, 3, 8], [8, 2, 3, 5])).toEqual([8, 3, 5]);
    expect(intersect([1, 2], [3, 4])).toEqual([]);
  });
});

/* ------------------------------------------------------------------ parsing */

describe('parsing model output', () => {
  it.each([
    { name: 'text around a list', text: 'The shared numbers are [7, 3, 12].', want: [7, 3, 12] },
    { name: 'inputs restated before the answer', text: 'Set 1: [1, 2]\nSet 2: [2, 3]\nOutput: [2]', want: [2] },
    { name: 'an empty intersection', text: 'Output: []', want: [] },
    { name: 'no list', text: 'I cannot work this out.', want: undefined },
    { name: 'a malformed last list', text: '[1, 2] then [1, x]', want: [1, 2] },
    { name: 'an unclosed bracket', text: 'Output: [1, 2', want: undefined },
  ])('lastIntegerList: $name', ({ text, want }) => {
    expect(lastIntegerList(text)).toEqual(want);
  });

  it('findIntegerLists skips lists that are not integers', () => {
    expect(findIntegerLists('[1.5] [a] [3, 4] [ -2 ]')).toEqual([[3, 4], [-2]]);
  });

  it.each([
    { text: '{"List 1": [1, 2], "List 2": [3]}', want: [[1, 2], [3]] },
    { text: 'Output: {"List 1": [1], "List 2": [2]} done', want: [[1], [2]] },
    { text: '{"List 1": [1, 2], "List 2": [3, }', want: undefined },
    { text: '{"List 1": "one two"}', want: undefined },
    { text: 'no braces [1, 2]', want: undefined },
  ])('jsonLists($text)', ({ text, want }) => {
    expect(jsonLists(text)).toEqual(want);
  });
});

describe('setIntersectionTask.parseResponse', () => {
  const root: SetIntersectionState = { set1: [1, 2, 3, 4], subset: [3, 4, 5, 6] };

  it('intersect: the last list is the result; set1 and subset carried over', () => {
    const out = task.parseResponse(req('intersect', [root]), 'Set 2: [3, 4, 5, 6]\nOutput: [3, 4]');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ valid: true, state: { set1: [1, 2, 3, 4], subset: [3, 4, 5, 6], result: [3, 4] } });
    expect(out[0]!.state.part).toBeUndefined();
  });

  it('intersect on a split part keeps its part, true subset and the copy the model made', () => {
    const t: SetIntersectionState = { set1: [1, 2], subset: [2, 9], given: [2, 8], part: 1 };
    const out = task.parseResponse(req('intersect', [t]), '[2]');
    expect(out[0]).toMatchObject({ valid: true, state: { set1: [1, 2], subset: [2, 9], given: [2, 8], part: 1, result: [2] } });
  });

  it('improve replaces the result, not the question', () => {
    const t: SetIntersectionState = { ...root, result: [3, 5] };
    const out = task.parseResponse(req('improve', [t]), 'Reason: 5 is not in Set 1; 4 is missing.\nOutput: [3, 4]');
    expect(out[0]).toMatchObject({ valid: true, state: { ...root, result: [3, 4] } });
  });

  it("merge: the subset is the union of the parents' subsets, without a part", () => {
    const a: SetIntersectionState = { set1: [1, 2, 3], subset: [1, 7], result: [1], part: 0 };
    const b: SetIntersectionState = { set1: [1, 2, 3], subset: [3, 8], result: [3], part: 1 };
    const out = task.parseResponse(req('merge', [a, b]), '[1, 3]');
    expect(out[0]).toMatchObject({ valid: true, state: { set1: [1, 2, 3], subset: [1, 7, 3, 8], result: [1, 3] } });
    expect(out[0]!.state.part).toBeUndefined();
    expect(task.score!(out[0]!.state, { set1: [1, 2, 3], set2: [1, 7, 3, 8] })).toBe(0);
  });

  it.each(['intersect', 'intersectCot', 'improve', 'merge'])(
    '%s: an answer without a list is one invalid thought that scores the sentinel',
    (prompt) => {
      const out = task.parseResponse(req(prompt, prompt === 'merge' ? [root, root] : [root]), 'Sure! Here is the answer you asked for.');
      expect(out).toHaveLength(1);
      expect(out[0]!.valid).toBe(false);
      expect(out[0]!.error).toBeTruthy();
      expect(out[0]!.state.result).toBeUndefined();
      expect(task.score!(out[0]!.state, { set1: root.set1, set2: root.subset })).toBe(UNPARSEABLE_SCORE);
    },
  );

  describe('split', () => {
    const set2 = Array.from({ length: 32 }, (_, i) => (i * 5 + 3) % 64);
    const parent: SetIntersectionState = { set1: [3, 8, 13], subset: set2 };
    const slice = (i: number, size = 16) => set2.slice(i * size, (i + 1) * size);

    it('reads the JSON into one thought per part, with the true slice as subset', () => {
      const out = task.parseResponse(req('split', [parent], { parts: 2 }), JSON.stringify({ 'List 1': slice(0), 'List 2': slice(1) }));
      expect(out.map((t) => t.state)).toEqual([
        { set1: [3, 8, 13], subset: slice(0), given: slice(0), part: 0 },
        { set1: [3, 8, 13], subset: slice(1), given: slice(1), part: 1 },
      ]);
      expect(out.every((t) => t.valid)).toBe(true);
    });

    it('keeps a wrong copy as given but scores against the true slice', () => {
      const wrong = [...slice(0).slice(0, 15), 99];
      const out = task.parseResponse(req('split', [parent], { parts: 2 }), JSON.stringify({ 'List 1': wrong, 'List 2': slice(1) }));
      expect(out[0]!.state).toMatchObject({ given: wrong, subset: slice(0) });
      // the next prompt shows the model's copy as Set 2
      expect(task.buildPrompt(req('intersect', [out[0]!.state as SetIntersectionState]))[0]!.content.endsWith(`Set 2: ${fmt(wrong)}`)).toBe(
        true,
      );
    });

    it('falls back to the last lists without JSON, and makes 4 parts of 8 when asked', () => {
      const text = `Input: ${fmt(set2)}\n${[0, 1, 2, 3].map((i) => `List ${i + 1}: ${fmt(slice(i, 8))}`).join('\n')}`;
      const out = task.parseResponse(req('split', [parent], { parts: 4 }), text);
      expect(out.map((t) => t.state.part)).toEqual([0, 1, 2, 3]);
      expect(out.map((t) => t.state.subset)).toEqual([0, 1, 2, 3].map((i) => slice(i, 8)));
    });

    it('an answer with no lists is one invalid thought', () => {
      const out = task.parseResponse(req('split', [parent], { parts: 2 }), 'I would rather not.');
      expect(out).toHaveLength(1);
      expect(out[0]).toMatchObject({ valid: false, state: { set1: [3, 8, 13], subset: set2 } });
    });
  });
});

/* ------------------------------------------------------------------ prompts */

describe('setIntersectionTask.buildPrompt', () => {
  const set1 = [40, 2, 17, 33, 8, 61, 25, 12];
  const set2 = [5, 17, 44, 8, 30, 61, 9, 50];
  const attempt = [17, 8, 9];
  const table: {
    prompt: keyof typeof SET_INTERSECTION_MARKERS;
    thoughts: SetIntersectionState[];
    params?: Record<string, unknown>;
    last: number[][];
  }[] = [
    { prompt: 'intersect', thoughts: [{ set1, subset: set2 }], last: [set1, set2] },
    { prompt: 'intersectCot', thoughts: [{ set1, subset: set2 }], last: [set1, set2] },
    { prompt: 'improve', thoughts: [{ set1, subset: set2, result: attempt }], last: [set1, set2, attempt] },
    { prompt: 'split', thoughts: [{ set1, subset: set2 }], params: { parts: 2 }, last: [set2] },
    {
      prompt: 'merge',
      thoughts: [
        { set1, subset: [], result: [1, 2] },
        { set1, subset: [], result: [3] },
      ],
      last: [[1, 2], [3]],
    },
  ];

  it.each(table)('$prompt: contains its marker and ends with the real input', ({ prompt, thoughts, params, last }) => {
    const messages = task.buildPrompt({ prompt, params: params ?? {}, thoughts });
    expect(messages).toHaveLength(1);
    expect(messages[0]!.role).toBe('user');
    const content = messages[0]!.content;
    expect(content.indexOf(SET_INTERSECTION_MARKERS[prompt])).toBeGreaterThan(0);
    expect(content.indexOf(SET_INTERSECTION_MARKERS[prompt])).toBeLessThan(content.indexOf('</Instruction>'));
    expect(findIntegerLists(content).slice(-last.length)).toEqual(last);
    expect(content.trimEnd().endsWith(fmt(last.at(-1)!))).toBe(true);
    expect(content.lastIndexOf(fmt(last[0]!))).toBeGreaterThan(content.lastIndexOf('</Examples>'));
  });

  it('split states the number and the length of the parts', () => {
    const [m] = task.buildPrompt(req('split', [{ set1, subset: Array.from({ length: 64 }, (_, i) => i) }], { parts: 4 }));
    expect(m!.content).toContain(`${SET_INTERSECTION_MARKERS.split} 4 lists of 16 numbers`);
    expect(m!.content).toContain('"List 4"');
  });

  it('the few-shot examples are correct intersections', () => {
    const content = task.buildPrompt(req('intersect', [{ set1, subset: set2 }]))[0]!.content;
    const examples = content.slice(content.indexOf('<Examples>'), content.indexOf('</Examples>'));
    const lists = findIntegerLists(examples);
    expect(lists.length).toBeGreaterThanOrEqual(6);
    for (let i = 0; i < lists.length; i += 3) expect(lists[i + 2]).toEqual(intersect(lists[i]!, lists[i + 1]!));
  });

  it('refuses a prompt it does not have', () => {
    expect(() => task.buildPrompt(req('sort', [{ set1, subset: set2 }]))).toThrow(/sort/);
  });
});

/* ------------------------------------------------------------------ task */

describe('setIntersectionTask problem, score and groundTruth', () => {
  const problem = { set1: [1, 2, 3, 4], set2: [3, 4, 5, 6, 7, 8] };

  it('accepts sets of distinct integers and refuses duplicates, non-integers and extra fields clearly', () => {
    expect(task.problem.safeParse(problem).success).toBe(true);
    const dup = task.problem.safeParse({ set1: [1, 2, 2, 5, 5], set2: [1] });
    expect(dup.success).toBe(false);
    expect(dup.error!.issues[0]!.path).toEqual(['set1']);
    expect(dup.error!.issues[0]!.message).toMatch(/must not repeat a number, but 2, 5 appear more than once/);
    expect(task.problem.safeParse({ set1: [1.5], set2: [1] }).success).toBe(false);
    expect(task.problem.safeParse({ set1: [], set2: [1] }).success).toBe(false);
    expect(task.problem.safeParse({ ...problem, list: [1] }).success).toBe(false);
  });

  it('scores a thought against set1 and its own part, unparseable as 1000', () => {
    expect(UNPARSEABLE_SCORE).toBe(1000);
    expect(task.score!({ set1: [1, 2, 3, 4], subset: [3, 4, 5], result: [3, 4] }, problem)).toBe(0);
    // a part: only 3 is shared with set1 in this slice
    expect(task.score!({ set1: [1, 2, 3, 4], subset: [3, 5], result: [3], part: 0 }, problem)).toBe(0);
    expect(task.score!({ set1: [1, 2, 3, 4], subset: [3, 5], result: [3, 4], part: 0 }, problem)).toBe(1);
    expect(task.score!({ set1: [1, 2, 3, 4], subset: [3, 5] }, problem)).toBe(UNPARSEABLE_SCORE);
    // the engine's own invalid thoughts carry only the raw answer
    expect(task.score!({ answer: 'garbled' }, problem)).toBe(UNPARSEABLE_SCORE);
    expect(task.validate!({ answer: 'garbled' }, problem)).toBe(false);
  });

  it('groundTruth compares against the intersection of the whole problem', () => {
    expect(task.groundTruth!({ set1: [], subset: [], result: [4, 3] }, problem)).toBe(true);
    // a correct part is not a solution
    expect(task.groundTruth!({ set1: [1, 2, 3, 4], subset: [3, 5], result: [3], part: 0 }, problem)).toBe(false);
    expect(task.groundTruth!({ set1: [1, 2, 3, 4], subset: [3, 4, 5], result: [3, 4, 4] }, problem)).toBe(false);
    expect(task.groundTruth!({ set1: [1, 2, 3, 4], subset: [3, 4, 5] }, problem)).toBe(false);
  });

  it('rootState asks about all of set2; sizeOf is the length of set2', () => {
    expect(task.rootState(problem)).toEqual({ set1: [1, 2, 3, 4], subset: [3, 4, 5, 6, 7, 8] });
    expect(task.sizeOf(problem)).toBe(6);
    expect(task.answerText({ set1: [], subset: [], result: [3, 4] })).toBe('[3, 4]');
  });
});

/* ------------------------------------------------------------------ scheme shapes */

describe('set intersection schemes against REFERENCE-GOO.md', () => {
  it.each([
    ['io', 'intersect'],
    ['cot', 'intersectCot'],
  ] as const)('%s: generate(k=1) -> score -> groundTruth', (scheme, prompt) => {
    for (const size of [32, 64, 128]) {
      const goo = task.schemes[scheme]!({ size });
      const g = gooGraph(goo);
      expect(goo.operations).toHaveLength(3);
      expect(g.roots[0]).toMatchObject({ type: 'generate', prompt, k: 1 });
      const score = g.one(g.roots[0]!.id, 'score');
      expectLocalScore(score);
      expect(g.a.sinks).toEqual([g.one(score.id, 'groundTruth').id]);
    }
  });

  it.each([
    { scheme: 'tot', size: 32, k: 20, levels: 1 },
    { scheme: 'tot', size: 64, k: 20, levels: 3 },
    { scheme: 'tot', size: 128, k: 25, levels: 3 },
    { scheme: 'tot2', size: 32, k: 10, levels: 2 },
    { scheme: 'tot2', size: 64, k: 10, levels: 6 },
    { scheme: 'tot2', size: 128, k: 10, levels: 8 },
  ])(
    '$scheme at $size: intersect(k=$k) then $levels improve levels kept against the previous best, then groundTruth',
    ({ scheme, size, k, levels }) => {
      const goo = task.schemes[scheme]!({ size });
      const g = gooGraph(goo);
      expect(g.roots).toHaveLength(1);
      expect(g.roots[0]).toMatchObject({ type: 'generate', prompt: 'intersect', k });
      const firstScore = g.one(g.roots[0]!.id, 'score');
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
      // straight to GroundTruth: no final Keep, as the reference
      const gt = g.one(best.id, 'groundTruth');
      expect(g.a.sinks).toEqual([gt.id]);
      expect(goo.operations).toHaveLength(3 + 3 * levels + 1);
    },
  );

  it.each([
    { size: 32, parts: 2, mergeK: 10 },
    { size: 64, parts: 4, mergeK: 10 },
    { size: 128, parts: 8, mergeK: 5 },
  ])(
    'got at $size: split into $parts, intersect k=5 per part, binary merge tree of aggregate k=$mergeK, no improve',
    ({ size, parts, mergeK }) => {
      const goo = task.schemes.got!({ size });
      const g = gooGraph(goo);
      expect(g.roots).toHaveLength(1);
      const split = g.roots[0]!;
      expect(split).toMatchObject({ type: 'generate', prompt: 'split', k: 1, params: { parts } });
      const selectors = g.succ(split.id);
      expect(selectors).toHaveLength(parts);
      let level: Operation[] = selectors.map((sel, i) => {
        expect(sel).toMatchObject({ type: 'selector', where: { part: i }, inputs: [split.id] });
        const gen = g.one(sel.id, 'generate');
        expect(gen).toMatchObject({ prompt: 'intersect', k: 5, inputs: [sel.id] });
        const score = g.one(gen.id, 'score');
        expectLocalScore(score);
        const keep = g.one(score.id, 'keepBestN');
        expectKeepBest1(keep);
        return keep;
      });
      let merges = 0;
      while (level.length > 1) {
        const next: Operation[] = [];
        for (let i = 0; i < level.length; i += 2) {
          const agg = g.one(level[i]!.id, 'aggregate');
          expect(agg).toMatchObject({ prompt: 'merge', k: mergeK, inputs: [level[i]!.id, level[i + 1]!.id] });
          const score = g.one(agg.id, 'score');
          expectLocalScore(score);
          const keep = g.one(score.id, 'keepBestN');
          expectKeepBest1(keep);
          expect(g.succ(keep.id).filter((o) => o.type === 'generate')).toHaveLength(0);
          next.push(keep);
          merges++;
        }
        level = next;
      }
      expect(merges).toBe(parts - 1);
      const gt = g.one(level[0]!.id, 'groundTruth');
      expect(g.a.sinks).toEqual([gt.id]);
      expect(goo.operations.some((o) => 'prompt' in o && o.prompt === 'improve')).toBe(false);
      expect(goo.operations).toHaveLength(1 + 4 * parts + 3 * (parts - 1) + 1);
    },
  );

  it("every scheme has unique ids, validates at every size and uses only the task's prompts", () => {
    expectSchemesWellFormed(task);
  });
});

/* ------------------------------------------------------------------ dataset */

describe('set intersection dataset', () => {
  it.each([
    { file: 'set_intersection_032.csv', size: 32 },
    { file: 'set_intersection_064.csv', size: 64 },
    { file: 'set_intersection_128.csv', size: 128 },
  ])('parses $file: 100 rows of two $size-element sets, agreeing with INTERSECTION', ({ file, size }) => {
    const text = readSharedData(file);
    const samples = parseSetIntersectionCsv(text);
    expect(samples).toHaveLength(100);
    expect(new Set(samples.map((s) => s.id)).size).toBe(100);
    expect(task.datasetFile?.(size)).toBe(file);
    const rows = readCsv(text);
    samples.forEach((s, i) => {
      expect(s.problem.set1).toHaveLength(size);
      expect(s.problem.set2).toHaveLength(size);
      expect(task.problem.safeParse(s.problem).success).toBe(true);
      expect(task.sizeOf(s.problem)).toBe(size);
      const want = JSON.parse(rows[i]!.INTERSECTION!) as number[];
      expect(task.groundTruth!({ set1: [], subset: [], result: want }, s.problem)).toBe(true);
    });
    expect(task.parseDataset(text)).toEqual(samples);
  });

  const issuesOf = (csv: string) => validationIssues(() => parseSetIntersectionCsv(csv));

  it('names the row and column of a bad cell, a repeated number and a wrong INTERSECTION', () => {
    const csv = [
      'ID,SET1,SET2,INTERSECTION',
      '0,"[1, 2]","[2, 3]","[2]"',
      '1,"[1, x]","[2, 3]","[]"',
      '2,"[1, 2]","[3, 3]","[]"',
      '3,"[1, 2]","[2, 3]","[1, 2]"',
    ].join('\n');
    const issues = issuesOf(csv);
    expect(issues.map((i) => i.path)).toEqual(['row 2 column SET1', 'row 3 column SET2', 'row 4 column INTERSECTION']);
    expect(issues[0]!.message).toMatch(/list of integers/);
    expect(issues[1]!.message).toMatch(/repeat.*3/);
    expect(issues[2]!.message).toMatch(/share/);
  });

  it.each([32, 64, 128])('generates reproducible problems of size %i sharing 25% to 75% of their numbers', (size) => {
    const a = generateSetIntersectionProblem(size, 7);
    expect(generateSetIntersectionProblem(size, 7)).toEqual(a);
    expect(generateSetIntersectionProblem(size, 8)).not.toEqual(a);
    expect(task.generateProblem(size, 7)).toEqual(a);
    for (let seed = 0; seed < 30; seed++) {
      const p = generateSetIntersectionProblem(size, seed);
      expect(task.problem.safeParse(p).success).toBe(true);
      expect(p.set1).toHaveLength(size);
      expect(p.set2).toHaveLength(size);
      expect([...p.set1, ...p.set2].every((x) => x >= 0 && x < 2 * size)).toBe(true);
      const shared = intersect(p.set1, p.set2).length;
      expect(shared).toBeGreaterThanOrEqual(Math.round(size * 0.25));
      expect(shared).toBeLessThanOrEqual(Math.round(size * 0.75));
    }
  });
});

/* ------------------------------------------------------------------ simulator */

describe('simulated set intersection answers', () => {
  const answer = (prompt: string, thoughts: SetIntersectionState[], seed: number, params: Record<string, unknown> = {}) => {
    const [m] = task.buildPrompt(req(prompt, thoughts, params));
    return setIntersectionResponder(m!.content)!.answer(seededRandom(seed));
  };

  /** Mean score of parseable answers; malformed ones (rare) are skipped. */
  function meanErrors(size: number, prompt: string, seeds = 200) {
    let sum = 0;
    let parsed = 0;
    for (let seed = 0; seed < seeds; seed++) {
      const p = generateSetIntersectionProblem(size, seed + 1000 * size);
      const root = task.rootState(p) as SetIntersectionState;
      const [t] = task.parseResponse(req(prompt, [root]), answer(prompt, [root], seed));
      if (!t!.valid) continue;
      sum += task.score!(t!.state, p);
      parsed++;
    }
    expect(parsed).toBeGreaterThan(seeds * 0.9);
    return sum / parsed;
  }

  it('recognises each prompt of the task and nothing else', () => {
    const root: SetIntersectionState = { set1: [1, 2, 3], subset: [2, 3, 4] };
    for (const prompt of ['intersect', 'intersectCot', 'improve', 'split'] as const) {
      expect(setIntersectionResponder(task.buildPrompt(req(prompt, [{ ...root, result: [2] }], { parts: 2 }))[0]!.content)?.kind).toBe(
        `set-intersection.${prompt}`,
      );
    }
    expect(
      setIntersectionResponder(
        task.buildPrompt(
          req('merge', [
            { ...root, result: [2] },
            { ...root, result: [3] },
          ]),
        )[0]!.content,
      )?.kind,
    ).toBe('set-intersection.merge');
    expect(setIntersectionResponder('Put the numbers of the list below into ascending order.\nInput: [3, 1]')).toBeUndefined();
  });

  it('makes more mistakes on larger sets, some but far fewer than the set size', () => {
    expect(intersectLambda(128, 128) / intersectLambda(64, 64)).toBeGreaterThan(2);
    // a part of 16 against a large set1 stays easy: that is what GoT exploits
    expect(intersectLambda(128, 16)).toBeLessThan(intersectLambda(32, 32));
    const means = [32, 64, 128].map((size) => meanErrors(size, 'intersect'));
    expect(means[0]).toBeGreaterThan(0.3);
    expect(means[1]).toBeGreaterThan(means[0]! * 1.5);
    expect(means[2]).toBeGreaterThan(means[1]! * 1.5);
    expect(means[2]).toBeLessThan(128 / 4);
    expect(meanErrors(64, 'intersectCot')).toBeLessThan(means[1]!);
  });

  it('answers are deterministic per random stream and not all the same', () => {
    const p = generateSetIntersectionProblem(64, 1);
    const root = task.rootState(p) as SetIntersectionState;
    expect(answer('intersect', [root], 5)).toBe(answer('intersect', [root], 5));
    const distinct = new Set(Array.from({ length: 20 }, (_, seed) => answer('intersect', [root], seed)));
    expect(distinct.size).toBeGreaterThan(3);
  });

  it('repeats part of its mistakes in every sample of a long prompt, rarely for a short part', () => {
    expect(systematicShare(128)).toBeGreaterThan(systematicShare(16));
    /** Errors the best of 10 samples of one prompt still makes, summed over problems. */
    const bestOf10 = (size: number, part: number) => {
      let sum = 0;
      for (let p = 0; p < 40; p++) {
        const problem = generateSetIntersectionProblem(size, p);
        const root: SetIntersectionState = { set1: problem.set1, subset: problem.set2.slice(0, part) };
        const scores = Array.from({ length: 10 }, (_, seed) => {
          const [t] = task.parseResponse(req('intersect', [root]), answer('intersect', [root], seed));
          return task.score!(t!.state, problem);
        });
        sum += Math.min(...scores);
      }
      return sum / 40;
    };
    expect(bestOf10(128, 128)).toBeGreaterThan(2);
    expect(bestOf10(128, 16)).toBeLessThan(0.5);
  });

  it('improve fixes part of the errors, a little more in the best of 10, and leaves blind spots', () => {
    let before = 0;
    let single = 0;
    let best = 0;
    let perfect = 0;
    for (let seed = 0; seed < 100; seed++) {
      const p = generateSetIntersectionProblem(64, seed);
      const truth = intersect(p.set1, p.set2);
      // 3 missing, 1 duplicated, 3 wrongly included
      const attempt = [...truth.slice(3), truth[4]!, ...p.set1.filter((x) => !truth.includes(x)).slice(0, 3)];
      before += errorScope(truth, attempt);
      const sample = improveSampler(p.set1, p.set2, attempt, `prompt ${seed}`);
      const scores = Array.from({ length: 10 }, (_, i) => errorScope(truth, sample(seededRandom(i))));
      single += scores[0]!;
      best += Math.min(...scores);
      if (Math.min(...scores) === 0) perfect++;
    }
    expect(before).toBe(700);
    expect(single).toBeLessThan(before * 0.9);
    expect(best).toBeLessThan(before * 0.65);
    expect(best).toBeLessThan(single);
    expect(perfect).toBeLessThan(90);
  });

  it('splits into the requested parts, almost always exactly', () => {
    const set2 = generateSetIntersectionProblem(128, 3).set2;
    const parent: SetIntersectionState = { set1: [], subset: set2 };
    let exact = 0;
    for (let seed = 0; seed < 100; seed++) {
      const out = task.parseResponse(req('split', [parent], { parts: 8 }), answer('split', [parent], seed, { parts: 8 }));
      if (!out[0]!.valid) continue;
      expect(out).toHaveLength(8);
      if (out.every((t) => JSON.stringify(t.state.given) === JSON.stringify(t.state.subset))) exact++;
    }
    expect(exact).toBeGreaterThan(50);
    expect(exact).toBeLessThan(100);
  });

  it('merges two partial results into their union, now and then dropping or repeating a number', () => {
    const a: SetIntersectionState = { set1: [], subset: [], result: Array.from({ length: 20 }, (_, i) => i) };
    const b: SetIntersectionState = { set1: [], subset: [], result: Array.from({ length: 20 }, (_, i) => 100 + i) };
    const union = [...a.result!, ...b.result!];
    let exact = 0;
    for (let seed = 0; seed < 100; seed++) {
      const got = lastIntegerList(answer('merge', [a, b], seed));
      if (got && errorScope(union, got) === 0) exact++;
    }
    expect(exact).toBeGreaterThan(30);
    expect(exact).toBeLessThan(95);
  });
});
