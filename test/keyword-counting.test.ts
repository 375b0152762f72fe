import { describe, expect, it } from 'vitest';
import type { GoO, Operation } from '../src/goo/schema';
import { countLambda, GAZETTEER, improveTally, keywordCountingResponder } from '../src/simllm/keyword-counting';
import { sortingResponder } from '../src/simllm/sorting';
import { readCsv } from '../src/tasks/dataset';
import { type KeywordCountingProblem, type KeywordCountingState, keywordCountingTask as task } from '../src/tasks/keyword-counting';
import { GENERATOR_COUNTRIES, generateKeywordCountingProblem, parseKeywordCountingCsv } from '../src/tasks/keyword-counting/dataset';
import { groupSentences, parseCounts, parsePassages, splitSentences } from '../src/tasks/keyword-counting/parse';
import {
  countCotPrompt,
  countPrompt,
  fmtCounts,
  improveMergePrompt,
  improvePrompt,
  KEYWORD_COUNTING_MARKERS,
  mergePrompt,
  splitPrompt,
} from '../src/tasks/keyword-counting/prompts';
import { addCounts, type Counts, countError, countMentions, tally, UNPARSEABLE_SCORE } from '../src/tasks/keyword-counting/score';
import { sortPrompt } from '../src/tasks/sorting/prompts';
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

const csvText = () => readSharedData('countries.csv');

/* ------------------------------------------------------------------ score */

describe('counting mentions and scoring', () => {
  it.each([
    { name: 'repeats', text: 'Peru and Chile, then Peru again.', want: { Peru: 2, Chile: 1 } },
    {
      name: 'whole words only',
      text: 'Nigeria is not Niger; a Perusal by Nigerians.',
      names: ['Niger', 'Nigeria', 'Peru'],
      want: { Nigeria: 1, Niger: 1 },
    },
    {
      name: 'the longest name wins',
      text: 'Papua New Guinea and Guinea.',
      names: ['Guinea', 'Papua New Guinea'],
      want: { 'Papua New Guinea': 1, Guinea: 1 },
    },
    { name: 'possessives and punctuation', text: "Peru's coast, (Chile)!", want: { Peru: 1, Chile: 1 } },
    { name: 'case-sensitive', text: 'peru is lower case', want: {} },
    { name: 'no mentions', text: 'It rained all week.', want: {} },
  ])('countMentions: $name', ({ text, names, want }) => {
    expect(countMentions(text, names ?? ['Peru', 'Chile'])).toEqual(want);
  });

  it('countError sums |counted - true| over the countries of either tally', () => {
    expect(countError({ Peru: 2, Chile: 1 }, { Peru: 2, Chile: 1 })).toBe(0);
    expect(countError({ Peru: 2, Chile: 1 }, { Peru: 1, Chile: 1 })).toBe(1);
    expect(countError({ Peru: 2 }, { Peru: 2, Chile: 3 })).toBe(3);
    // the paper's example: two missed mentions and a made-up "country"
    expect(countError({ Australia: 2, 'New Zealand': 2 }, { Australia: 1, 'New Zealand': 1, 'Australia and New Zealand': 1 })).toBe(3);
    expect(countError({ Peru: 0 }, {})).toBe(0);
  });

  it('tally and addCounts', () => {
    expect(tally(['Peru', 'Chile', 'Peru'])).toEqual({ Peru: 2, Chile: 1 });
    expect(addCounts({ Peru: 2, Chile: 1 }, { Chile: 2, Cuba: 1 })).toEqual({ Peru: 2, Chile: 3, Cuba: 1 });
  });
});

/* ------------------------------------------------------------------ parsing */

describe('parsing model output', () => {
  it.each([
    { name: 'an Output line', text: 'Output: {"Peru": 2, "Chile": 1}', want: { Peru: 2, Chile: 1 } },
    {
      name: 'the last tally after intermediate ones',
      text: 'Tallies:\n{"Peru": 1}\n{"Peru": 1, "Cuba": 1}\nOutput: {"Peru": 2, "Cuba": 1}',
      want: { Peru: 2, Cuba: 1 },
    },
    { name: "the paper's doubled braces", text: 'Output: {{ "Iran": 2, "China": 2 }}', want: { Iran: 2, China: 2 } },
    { name: 'a Python dict', text: "{'Peru': 3}", want: { Peru: 3 } },
    { name: 'numbers as strings', text: '{"Peru": "2"}', want: { Peru: 2 } },
    { name: 'an empty tally', text: 'Output: {}', want: {} },
    { name: 'a bad last tally: the one before', text: '{"Peru": 1} then {"Peru": -1}', want: { Peru: 1 } },
    { name: 'no braces', text: 'I am sorry, I cannot count that.', want: undefined },
    { name: 'fractions only', text: '{"Peru": 1.5}', want: undefined },
    { name: 'an unclosed object', text: 'Output: {"Peru": 2', want: undefined },
    { name: 'strings that are not counts', text: '{"Passage 1": "Peru is far."}', want: undefined },
  ])('parseCounts: $name', ({ text, want }) => {
    expect(parseCounts(text)).toEqual(want);
  });

  it.each([
    { name: 'a JSON object', text: '{"Passage 1": "A b.", "Passage 2": "C d."}', want: ['A b.', 'C d.'] },
    { name: 'text around it', text: 'Here you go:\n{"Passage 1": "A \\"quoted\\" b."}\nDone.', want: ['A "quoted" b.'] },
    { name: 'a truncated object', text: '{"Passage 1": "A b.", "Passage 2": "C d.", "Passage 3": "E', want: ['A b.', 'C d.'] },
    { name: 'no passages', text: 'Sure! Here is the answer you asked for.', want: undefined },
    { name: 'numbers instead of text', text: '{"Passage 1": 3}', want: undefined },
  ])('parsePassages: $name', ({ text, want }) => {
    expect(parsePassages(text)).toEqual(want);
  });

  it('splitSentences cuts at sentence ends, also where the space is missing', () => {
    expect(splitSentences('One in Peru. Two! Three? Its heritage.Thomas then left.  ')).toEqual([
      'One in Peru.',
      'Two!',
      'Three?',
      'Its heritage.',
      'Thomas then left.',
    ]);
    expect(splitSentences('')).toEqual([]);
  });

  it('groupSentences makes runs of about equal size, never empty ones', () => {
    const s = ['a.', 'b.', 'c.', 'd.', 'e.'];
    expect(groupSentences(s, 2)).toEqual(['a. b.', 'c. d. e.']);
    expect(groupSentences(s, 8)).toEqual(s);
    expect(groupSentences(s, 1)).toEqual(['a. b. c. d. e.']);
  });
});

/* ------------------------------------------------------------------ task */

const req = (prompt: string, thoughts: KeywordCountingState[], params: Record<string, unknown> = {}): PromptRequest => ({
  prompt,
  params,
  thoughts,
});
const problem: KeywordCountingProblem = {
  text: 'We left Peru for Chile. It rained. In Chile we met people from Peru and Cuba. Peru won.',
  countries: ['Peru', 'Chile', 'Chile', 'Peru', 'Cuba', 'Peru'],
};

describe('keywordCountingTask.parseResponse', () => {
  const root = task.rootState(problem) as KeywordCountingState;

  it('count: the tally becomes the answer; the passage and its part are kept', () => {
    const part: KeywordCountingState = { text: 'In Chile we met people from Peru.', part: 2, parts: 4, covered: 1 };
    const [out] = task.parseResponse(req('count', [part]), 'Chile once, Peru once.\nOutput: {"Chile": 1, "Peru": 1}');
    // `end`: where the tally closed, for the engine's check of an answer cut at max tokens (decision 66).
    expect(out).toEqual({ valid: true, state: { ...part, counts: { Chile: 1, Peru: 1 } }, end: 54 });
  });

  it.each(['count', 'countCot', 'improve', 'improveMerge'])(
    '%s: an answer without a tally is one invalid thought that keeps its passage',
    (prompt) => {
      const out = task.parseResponse(req(prompt, [{ ...root, counts: { Peru: 1 } }]), 'I cannot help with that.');
      // the activity passes '' for an empty or refused answer: same result
      expect(task.parseResponse(req(prompt, [{ ...root, counts: { Peru: 1 } }]), '')).toEqual(out);
      expect(out).toHaveLength(1);
      expect(out[0]!.valid).toBe(false);
      expect(out[0]!.error).toMatch(/tally/);
      expect(out[0]!.state.text).toBe(problem.text);
      expect(out[0]!.state.counts).toBeUndefined();
    },
  );

  it('improve: replaces the previous tally', () => {
    const [out] = task.parseResponse(req('improve', [{ ...root, counts: { Peru: 1 } }]), 'Output: {"Peru": 3, "Chile": 2, "Cuba": 1}');
    expect(out!.state).toEqual({ text: problem.text, counts: { Peru: 3, Chile: 2, Cuba: 1 } });
  });

  describe('split', () => {
    const passages = ['We left Peru for Chile.', 'It rained.', 'In Chile we met people from Peru and Cuba.', 'Peru won.'];
    const json = (ps: string[]) => JSON.stringify(Object.fromEntries(ps.map((p, i) => [`Passage ${i + 1}`, p])));

    it('one thought per passage, numbered, knowing how many parts there are', () => {
      const out = task.parseResponse(req('split', [root], { parts: 4 }), json(passages));
      expect(out.map((t) => t.state)).toEqual(passages.map((text, part) => ({ text, part, parts: 4, covered: 1 })));
      expect(out.every((t) => t.valid)).toBe(true);
    });

    it('always exactly `parts` thoughts: surplus passages join the last, missing ones are empty', () => {
      const more = task.parseResponse(req('split', [root], { parts: 2 }), json(passages));
      expect(more.map((t) => t.state.text)).toEqual([passages[0], passages.slice(1).join(' ')]);
      const fewer = task.parseResponse(req('split', [root], { parts: 6 }), json(passages));
      expect(fewer.map((t) => t.state.text)).toEqual([...passages, '', '']);
      expect(fewer.map((t) => t.state.part)).toEqual([0, 1, 2, 3, 4, 5]);
    });

    it('an answer without passages is one invalid thought without a part', () => {
      const out = task.parseResponse(req('split', [root], { parts: 4 }), 'Output: see above');
      expect(out).toHaveLength(1);
      expect(out[0]!.valid).toBe(false);
      expect(out[0]!.state.part).toBeUndefined();
    });
  });

  it("merge: the passages are joined, the inputs' tallies and their sum kept for validation", () => {
    const a: KeywordCountingState = { text: 'We left Peru for Chile.', part: 0, parts: 4, covered: 1, counts: { Peru: 1, Chile: 1 } };
    const b: KeywordCountingState = { text: 'In Chile we met Peru.', part: 1, parts: 4, covered: 1, counts: { Chile: 1, Peru: 1 } };
    const [out] = task.parseResponse(req('merge', [a, b]), '{"Peru": 2, "Chile": 1}');
    expect(out!.valid).toBe(true);
    expect(out!.state).toEqual({
      text: 'We left Peru for Chile. In Chile we met Peru.',
      parts: 4,
      covered: 2,
      expected: { Peru: 2, Chile: 2 },
      sources: [a.counts, b.counts],
      counts: { Peru: 2, Chile: 1 },
    });
    // an input without a tally counts as empty
    const [lone] = task.parseResponse(req('merge', [a, { text: 'x', part: 1, parts: 4, covered: 1 }]), '{}');
    expect(lone!.state.expected).toEqual(a.counts);
  });

  it('improveMerge: keeps what the merge knew, replaces only the tally', () => {
    const merged: KeywordCountingState = {
      text: 't',
      parts: 2,
      covered: 2,
      expected: { Peru: 2 },
      sources: [{ Peru: 1 }, { Peru: 1 }],
      counts: { Peru: 1 },
    };
    const [out] = task.parseResponse(req('improveMerge', [merged]), 'Output: {"Peru": 2}');
    expect(out!.state).toEqual({ ...merged, counts: { Peru: 2 } });
  });
});

describe('keywordCountingTask score, validate and groundTruth', () => {
  const truth = tally(problem.countries);

  it("scores the whole text against the problem's list, and a tally-less thought with the sentinel", () => {
    expect(UNPARSEABLE_SCORE).toBe(100);
    expect(task.score!({ text: problem.text }, problem)).toBe(100);
    expect(task.score!({ text: problem.text, counts: truth }, problem)).toBe(0);
    expect(task.score!({ text: problem.text, counts: { Peru: 2, Chile: 2, Cuba: 1, Spain: 1 } }, problem)).toBe(2);
  });

  it('scores a part against the mentions in its own passage, whatever the split did', () => {
    const part = { text: 'In Chile we met people from Peru and Cuba.', part: 2, parts: 4, covered: 1 };
    expect(task.score!({ ...part, counts: { Chile: 1, Peru: 1, Cuba: 1 } }, problem)).toBe(0);
    expect(task.score!({ ...part, counts: { Chile: 1 } }, problem)).toBe(2);
    // a passage that lost its sentences is judged by what it holds...
    expect(task.score!({ text: '', part: 3, parts: 4, covered: 1, counts: {} }, problem)).toBe(0);
    // ...but a merge covering every part is judged against the whole problem
    expect(task.score!({ text: 'We left Peru for Chile.', parts: 2, covered: 2, counts: { Peru: 1, Chile: 1 } }, problem)).toBe(4);
    expect(task.score!({ text: 'We left Peru for Chile.', parts: 4, covered: 2, counts: { Peru: 1, Chile: 1 } }, problem)).toBe(0);
  });

  it('validates a merge against the sum of its inputs, not against the truth', () => {
    expect(task.validate!({ text: 't', expected: { Peru: 2 }, counts: { Peru: 2 } }, problem)).toBe(true);
    expect(task.validate!({ text: 't', expected: { Peru: 2 }, counts: { Peru: 2, Cuba: 0 } }, problem)).toBe(true);
    expect(task.validate!({ text: 't', expected: { Peru: 2 }, counts: { Peru: 3 } }, problem)).toBe(false);
    expect(task.validate!({ text: 't', expected: { Peru: 2 } }, problem)).toBe(false);
    expect(task.validate!({ text: 't', counts: {} }, problem)).toBe(true);
  });

  it("groundTruth compares with the whole problem's counts", () => {
    expect(task.groundTruth!({ text: 'anything', counts: truth }, problem)).toBe(true);
    expect(task.groundTruth!({ text: problem.text, counts: { ...truth, Cuba: 2 } }, problem)).toBe(false);
    expect(task.groundTruth!({ text: problem.text }, problem)).toBe(false);
  });

  it('sizeOf counts sentences; the root thought is the text', () => {
    expect(task.sizeOf(problem)).toBe(4);
    expect(task.rootState(problem)).toEqual({ text: problem.text });
    expect(task.answerText({ text: 'x', counts: { Peru: 2 } })).toBe('{"Peru": 2}');
  });

  it('checks split params against the problem before a run', () => {
    expect(task.checkParams!('split', { parts: 4 }, problem)).toEqual([]);
    expect(task.checkParams!('split', { parts: 4, bySentence: true }, problem)).toEqual([]);
    expect(task.checkParams!('split', { parts: 0 }, problem)[0]).toMatch(/parts: .*positive integer/);
    expect(task.checkParams!('split', { parts: 5, bySentence: true }, problem)[0]).toMatch(/makes 4 passages.*5 branches/);
    expect(task.checkParams!('count', { anything: 1 }, problem)).toEqual([]);
  });

  it('refuses a problem whose list disagrees with its text, naming the country', () => {
    const bad = task.problem.safeParse({ text: problem.text, countries: [...problem.countries, 'Cuba', 'Spain'] });
    expect(bad.success).toBe(false);
    const messages = bad.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(messages).toEqual([
      'countries: lists "Cuba" 2 times but the text mentions it 1 times',
      'countries: lists "Spain" 1 times but the text mentions it 0 times',
    ]);
    expect(task.problem.safeParse(problem).success).toBe(true);
  });
});

/* ------------------------------------------------------------------ prompts */

describe('keywordCountingTask.buildPrompt', () => {
  const text = 'Our friend from Ghana visited Peru. Then Peru again.';
  const a = { Peru: 2 };
  const b = { Ghana: 1, Peru: 1 };
  const table: {
    prompt: keyof typeof KEYWORD_COUNTING_MARKERS;
    thoughts: KeywordCountingState[];
    params?: Record<string, unknown>;
    tail: string;
  }[] = [
    { prompt: 'count', thoughts: [{ text }], tail: `Input: ${text}` },
    { prompt: 'countCot', thoughts: [{ text }], tail: `Input: ${text}` },
    { prompt: 'split', thoughts: [{ text }], params: { parts: 4 }, tail: `Input: ${text}` },
    {
      prompt: 'merge',
      thoughts: [
        { text, counts: a },
        { text, counts: b },
      ],
      tail: `Tally A: ${fmtCounts(a)}\nTally B: ${fmtCounts(b)}\nCombined tally:`,
    },
    {
      prompt: 'improveMerge',
      thoughts: [{ text, counts: { Peru: 2 }, sources: [a, b], expected: addCounts(a, b) }],
      tail: `Tally A: ${fmtCounts(a)}\nTally B: ${fmtCounts(b)}\nWrong sum: {"Peru": 2}`,
    },
    { prompt: 'improve', thoughts: [{ text, counts: b }], tail: `Input: ${text}\nAttempt: ${fmtCounts(b)}` },
  ];

  it.each(table)('$prompt: opens with its marker and ends with the real input', ({ prompt, thoughts, params, tail }) => {
    const messages = task.buildPrompt({ prompt, params: params ?? {}, thoughts });
    expect(messages).toHaveLength(1);
    expect(messages[0]!.role).toBe('user');
    const content = messages[0]!.content;
    expect(content.startsWith(`<Instruction> ${KEYWORD_COUNTING_MARKERS[prompt]}`)).toBe(true);
    expect(content.endsWith(tail)).toBe(true);
    for (const closing of ['</Instruction>', '</Examples>', '</Approach>'])
      expect(content.lastIndexOf(closing)).toBeLessThan(content.length - tail.length);
    // no other prompt's marker appears, so the simulator cannot mistake one for another
    for (const [other, marker] of Object.entries(KEYWORD_COUNTING_MARKERS)) if (other !== prompt) expect(content).not.toContain(marker);
  });

  it('split says how many passages, or one per sentence', () => {
    expect(splitPrompt(text, { parts: 8 })).toContain('Make exactly 8 passages');
    const bySentence = task.buildPrompt({ prompt: 'split', params: { parts: 2, bySentence: true }, thoughts: [{ text }] })[0]!.content;
    expect(bySentence).toContain('one passage per sentence');
    expect(bySentence).not.toContain('Make exactly');
  });

  it('the few-shot examples are consistent with the scoring', () => {
    // each count example's answer is what countMentions finds in its text
    const examples = [...countPrompt('x').matchAll(/^Input: (.*)\nOutput: (.*)$/gm)];
    expect(examples).toHaveLength(3);
    for (const [, input, output] of examples) {
      const counts = parseCounts(output!)!;
      expect(countMentions(input!, Object.keys(counts))).toEqual(counts);
    }
  });

  it('refuses a prompt it does not have, and a merge of more than two tallies', () => {
    expect(() => task.buildPrompt({ prompt: 'translate', params: {}, thoughts: [{ text }] })).toThrow(/translate/);
    expect(() => task.buildPrompt({ prompt: 'merge', params: {}, thoughts: [{ text }, { text }, { text }] })).toThrow(/two tallies/);
  });
});

/* ------------------------------------------------------------------ schemes */

describe('keyword counting schemes against REFERENCE-GOO.md', () => {
  const size = 12;

  it.each([
    ['io', 'count'],
    ['cot', 'countCot'],
  ] as const)('%s: generate(k=1) -> score -> groundTruth', (scheme, prompt) => {
    const goo = task.schemes[scheme]!({ size });
    const g = gooGraph(goo);
    expect(goo.operations).toHaveLength(3);
    expect(g.roots[0]).toMatchObject({ type: 'generate', prompt, k: 1 });
    const score = g.one(g.roots[0]!.id, 'score');
    expectLocalScore(score);
    expect(g.a.sinks).toEqual([g.one(score.id, 'groundTruth').id]);
  });

  it.each([
    { scheme: 'tot', k: 20, levels: 3 },
    { scheme: 'tot2', k: 10, levels: 5 },
  ])('$scheme: count(k=$k) then $levels improve levels, each kept against the previous best', ({ scheme, k, levels }) => {
    const goo = task.schemes[scheme]!({ size });
    const g = gooGraph(goo);
    expect(g.roots).toHaveLength(1);
    expect(g.roots[0]).toMatchObject({ type: 'generate', prompt: 'count', k });
    let best = g.one(g.one(g.roots[0]!.id, 'score').id, 'keepBestN');
    expectKeepBest1(best);
    for (let level = 0; level < levels; level++) {
      const gen = g.one(best.id, 'generate');
      expect(gen).toMatchObject({ prompt: 'improve', k, inputs: [best.id] });
      const score = g.one(gen.id, 'score');
      expectLocalScore(score);
      const keep = g.one(score.id, 'keepBestN');
      expectKeepBest1(keep);
      sameSet(keep.inputs, [score.id, best.id]);
      best = keep;
    }
    const final = g.one(best.id, 'keepBestN');
    expectKeepBest1(final);
    expect(g.a.sinks).toEqual([g.one(final.id, 'groundTruth').id]);
    expect(goo.operations).toHaveLength(3 + 3 * levels + 2);
  });

  /** Walks a GoT GoO as REFERENCE-GOO.md describes it and returns the merge count and tree depth. */
  function walkGot(goo: GoO, params: Record<string, unknown>) {
    const g = gooGraph(goo);
    expect(g.roots).toHaveLength(1);
    const split = g.roots[0]!;
    expect(split).toMatchObject({ type: 'generate', prompt: 'split', k: 1, params });
    const parts = params.parts as number;
    const selectors = g.succ(split.id);
    expect(selectors).toHaveLength(parts);
    let level: Operation[] = selectors.map((sel, i) => {
      expect(sel).toMatchObject({ type: 'selector', where: { part: i } });
      const count = g.one(sel.id, 'generate');
      expect(count).toMatchObject({ prompt: 'count', k: 10 });
      const score = g.one(count.id, 'score');
      expectLocalScore(score);
      const keep = g.one(score.id, 'keepBestN');
      expectKeepBest1(keep);
      return keep;
    });
    let merges = 0;
    let depth = 0;
    while (level.length > 1) {
      const next: Operation[] = [];
      for (let i = 0; i < level.length; i += 2) {
        if (i + 1 === level.length) {
          next.push(level[i]!); // the odd one out moves up unmerged
          continue;
        }
        const aggregate = g.one(level[i]!.id, 'aggregate');
        expect(aggregate).toMatchObject({ prompt: 'merge', k: 3, inputs: [level[i]!.id, level[i + 1]!.id] });
        const checked = g.one(aggregate.id, 'validateAndImprove');
        expect(checked).toMatchObject({ prompt: 'improveMerge', tries: 3 });
        const score = g.one(checked.id, 'score');
        expectLocalScore(score);
        const keep = g.one(score.id, 'keepBestN');
        expectKeepBest1(keep);
        next.push(keep);
        merges++;
      }
      level = next;
      depth++;
    }
    expect(g.a.sinks).toEqual([g.one(level[0]!.id, 'groundTruth').id]);
    expect(goo.operations.filter((o) => o.type === 'aggregate')).toHaveLength(parts - 1);
    return { merges, depth };
  }

  it.each([
    { scheme: 'got4', parts: 4, depth: 2 },
    { scheme: 'got8', parts: 8, depth: 3 },
  ])('$scheme: split into $parts, count k=10 per passage, binary tree of checked merges', ({ scheme, parts, depth }) => {
    expect(walkGot(task.schemes[scheme]!({ size }), { parts })).toEqual({ merges: parts - 1, depth });
  });

  it('gotx: one passage per sentence of the problem, odd levels carrying the last one up', () => {
    const p = generateKeywordCountingProblem(13, 3);
    expect(task.sizeOf(p)).toBe(13);
    // 13 -> 7 -> 4 -> 2 -> 1
    expect(walkGot(task.schemes.gotx!({ size: 13, problem: p }), { parts: 13, bySentence: true })).toEqual({ merges: 12, depth: 4 });
  });

  it('gotx without the problem says what is missing', () => {
    expect(() => task.schemes.gotx!({ size: 12 })).toThrow(/one passage per sentence.*problem/);
  });

  it("every scheme has unique ids, validates and uses only the task's prompts", () => {
    expectSchemesWellFormed(task, [16], (size) => generateKeywordCountingProblem(size, 1));
  });
});

/* ------------------------------------------------------------------ dataset */

describe('keyword counting dataset', () => {
  it('parses the shared countries.csv: 100 texts whose lists agree with their text and Sentences column', () => {
    const text = csvText();
    const samples = parseKeywordCountingCsv(text);
    expect(samples).toHaveLength(100);
    expect(samples[0]!.id).toBe('0');
    expect(samples[0]!.problem.countries.slice(0, 3)).toEqual(['Norway', 'Sweden', 'Norway']);
    const rows = readCsv(text);
    samples.forEach((s, i) => {
      expect(task.problem.safeParse(s.problem).success, `row ${i + 1}`).toBe(true);
      expect(task.sizeOf(s.problem), `row ${i + 1}`).toBe(Number(rows[i]!.Sentences));
      // the simulator's gazetteer finds exactly the listed countries
      expect(countMentions(s.problem.text, GAZETTEER)).toEqual(tally(s.problem.countries));
    });
    expect(task.parseDataset(text)).toEqual(samples);
  });

  it('accepts Python-style quoted names and an empty list', () => {
    const csv = [
      'ID,Text,Countries,Sentences,Characters',
      `7,"Peru, then Chile.","['Peru', ""Chile""]",1,17`,
      '8,"Nothing here.",[],1,13',
    ].join('\n');
    expect(parseKeywordCountingCsv(csv).map((s) => s.problem.countries)).toEqual([['Peru', 'Chile'], []]);
  });

  it('names the row and column of bad cells', () => {
    const csv = ['ID,Text,Countries,Sentences,Characters', '0,"Peru.",[Peru],1,5', '1,"Peru.","Peru, Chile",1,5', ',"",[Peru],1,5'].join(
      '\n',
    );
    const issues = validationIssues(() => parseKeywordCountingCsv(csv));
    expect(issues.map((i) => i.path)).toEqual(['row 2 column Countries', 'row 3 column ID', 'row 3 column Text']);
    expect(issues[0]!.message).toMatch(/list of country names.*Peru, Chile/);
  });

  it('generates reproducible texts of `size` sentences with repeats and country-free sentences', () => {
    const a = generateKeywordCountingProblem(16, 7);
    expect(generateKeywordCountingProblem(16, 7)).toEqual(a);
    expect(generateKeywordCountingProblem(16, 8)).not.toEqual(a);
    expect(task.generateProblem(16, 7)).toEqual(a);
    let quiet = 0;
    let repeated = 0;
    for (let seed = 0; seed < 20; seed++) {
      const p = generateKeywordCountingProblem(12, seed);
      expect(task.sizeOf(p)).toBe(12);
      expect(task.problem.safeParse(p).success).toBe(true);
      expect(p.countries.every((c) => (GENERATOR_COUNTRIES as readonly string[]).includes(c))).toBe(true);
      const sentences = splitSentences(p.text).map((s) => Object.keys(countMentions(s, GAZETTEER)).length);
      quiet += sentences.filter((n) => n === 0).length;
      if (Object.values(tally(p.countries)).some((n) => n > 1)) repeated++;
    }
    expect(quiet).toBeGreaterThan(10);
    expect(repeated).toBe(20);
    expect(() => generateKeywordCountingProblem(0, 1)).toThrow(/at least 1 sentence/);
  });
});

/* ------------------------------------------------------------------ simulator */

describe('simulated keyword counting answers', () => {
  const answer = (prompt: string, seed: number) => keywordCountingResponder(prompt)!.answer(seededRandom(seed));
  const dataset = () => parseKeywordCountingCsv(csvText()).map((s) => s.problem);

  it('recognises each prompt by its marker, and nothing else', () => {
    const text = 'From Peru to Chile.';
    const kinds = [
      countPrompt(text),
      countCotPrompt(text),
      splitPrompt(text, { parts: 4 }),
      mergePrompt({ Peru: 1 }, { Chile: 1 }),
      improveMergePrompt({ Peru: 1 }, { Chile: 1 }, { Peru: 1 }),
      improvePrompt(text, { Peru: 2 }),
    ].map((p) => keywordCountingResponder(p)?.kind);
    expect(kinds).toEqual(Object.keys(KEYWORD_COUNTING_MARKERS).map((k) => `keyword-counting.${k}`));
    expect(keywordCountingResponder(sortPrompt([3, 1, 2]))).toBeUndefined();
    expect(sortingResponder(countPrompt(text))).toBeUndefined();
  });

  it('is deterministic given its random stream', () => {
    const p = countPrompt(dataset()[0]!.text);
    expect(answer(p, 5)).toBe(answer(p, 5));
  });

  /** Mean error of parseable count answers over the first sentences of every dataset text. */
  function meanCountError(sentences: number, make: (text: string) => string) {
    let sum = 0;
    let parsed = 0;
    dataset().forEach((p, i) => {
      const text = splitSentences(p.text).slice(0, sentences).join(' ');
      const counts = parseCounts(answer(make(text), i));
      if (!counts) return;
      sum += countError(countMentions(text, p.countries), counts);
      parsed++;
    });
    expect(parsed).toBeGreaterThan(90);
    return sum / parsed;
  }

  it('makes more counting mistakes on longer texts, but never counts a long text right every time', () => {
    const means = [1, 4, 8, 16].map((n) => meanCountError(n, countPrompt));
    for (let i = 1; i < means.length; i++) expect(means[i]).toBeGreaterThan(means[i - 1]!);
    expect(means[0]).toBeLessThan(0.5);
    expect(means[3]).toBeGreaterThan(2);
    expect(means[3]).toBeLessThan(15);
    expect(countLambda(28, 1800) / countLambda(7, 450)).toBeGreaterThan(4);
  });

  it('CoT answers show passages and tallies and end with the sum of the tallies', () => {
    const text = dataset()[3]!.text;
    const out = answer(countCotPrompt(text), 1);
    const [tallyBlock] = out.split('Output:');
    const tallies = tallyBlock!
      .split('Tallies:')[1]!
      .trim()
      .split('\n')
      .map((l) => parseCounts(l)!);
    expect(tallies).toHaveLength(4);
    expect(parseCounts(out)).toEqual(Object.fromEntries(Object.entries(tallies.reduce(addCounts, {}))));
  });

  it('improve brings a bad tally closer to the truth on average', () => {
    const problems = dataset().slice(0, 50);
    let before = 0;
    let after = 0;
    problems.forEach((p, i) => {
      const truth = tally(p.countries);
      const bad: Counts = { ...truth, [p.countries[0]!]: 0, Iceland: 2 };
      before += countError(truth, bad);
      after += countError(truth, improveTally(p.text, bad, seededRandom(i)));
    });
    expect(after).toBeLessThan(before * 0.85);
  });

  it('merges mostly right; improveMerge fixes most wrong sums', () => {
    const a = { Peru: 2, Chile: 1, Cuba: 3, Spain: 1, Kenya: 2 };
    const b = { Peru: 1, Cuba: 1, Ghana: 2, Nepal: 1, Chile: 4, Japan: 1 };
    const right = addCounts(a, b);
    const wrong = { ...right, Peru: 2 };
    let merged = 0;
    let fixed = 0;
    for (let seed = 0; seed < 200; seed++) {
      if (countError(right, parseCounts(answer(mergePrompt(a, b), seed)) ?? {}) === 0) merged++;
      if (countError(right, parseCounts(answer(improveMergePrompt(a, b, wrong), seed)) ?? {}) === 0) fixed++;
    }
    expect(merged).toBeGreaterThan(100);
    expect(merged).toBeLessThan(195);
    expect(fixed).toBeGreaterThan(150);
  });

  it('splits into the asked passages mostly word for word, sometimes losing or moving a sentence', () => {
    const p = dataset()[0]!;
    const sentences = splitSentences(p.text);
    let exact = 0;
    let answered = 0;
    for (let seed = 0; seed < 100; seed++) {
      for (const o of [{ parts: 4 }, { parts: sentences.length, bySentence: true }]) {
        const passages = parsePassages(answer(splitPrompt(p.text, o), seed));
        if (!passages) continue;
        answered++;
        expect(passages.length).toBeLessThanOrEqual(o.parts);
        if (passages.length === o.parts && passages.join(' ') === sentences.join(' ')) exact++;
      }
    }
    expect(answered).toBeGreaterThan(190);
    expect(exact / answered).toBeGreaterThan(0.6);
    expect(exact).toBeLessThan(answered);
  });
});
