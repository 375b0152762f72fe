import { describe, expect, it } from 'vitest';
import type { GoO, Operation } from '../src/goo/schema';
import { ValidationError, validateGoO } from '../src/goo/validate';
import { checkRun } from '../src/run/check';
import { docMergeResponder, dropProbability } from '../src/simllm/doc-merge';
import { type DocMergeState, docMergeTask } from '../src/tasks/doc-merge';
import { docMergeProblemSchema, generateDocMergeProblem, parseDocMergeCsv } from '../src/tasks/doc-merge/dataset';
import { extractMerged, parseRatings } from '../src/tasks/doc-merge/parse';
import {
  aggregatePrompt,
  DOC_MERGE_MARKERS,
  EXAMPLES_END,
  improvePrompt,
  judgePrompt,
  mergeCotPrompt,
  mergePrompt,
} from '../src/tasks/doc-merge/prompts';
import { halves } from '../src/tasks/doc-merge/schemes';
import { clausesOf, combineRatings, harmonicMean, informationUnits, mergeScore, proxyRatings } from '../src/tasks/doc-merge/score';
import type { PromptRequest } from '../src/tasks/task';
import { seededRandom } from '../src/util/random';
import { readSharedData } from './support/tasks';

const A =
  'NDA\n1. Scope\nAlpha Corp shares its battery designs with Beta Labs for a joint pilot. Beta Labs keeps the battery designs secret for three years.\n2. Law\nThe laws of Ontario govern this agreement.';
const B =
  'CONFIDENTIALITY AGREEMENT\nBeta Labs must keep the battery designs of Alpha Corp secret for three years. Beta Labs returns every drawing when Alpha Corp asks for it.';
const PERFECT =
  'Alpha Corp shares its battery designs with Beta Labs for a joint pilot. Beta Labs keeps the battery designs secret for three years and returns every drawing when Alpha Corp asks for it. The laws of Ontario govern this agreement.';

describe('the problem: 2 to 200 plain-text documents of up to 1,000,000 characters', () => {
  const request = (documents: unknown) => ({ task: 'doc-merge', problem: { documents }, goo: docMergeTask.schemes.io!({ size: 2 }) });
  const refusal = (documents: unknown) => {
    try {
      checkRun(request(documents));
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return (e as Error).message;
    }
    throw new Error('expected the problem to be refused');
  };

  it('accepts overlapping NDAs', () => {
    expect(checkRun(request([A, B])).problem).toEqual({ documents: [A, B] });
  });

  it.each([
    ['one document', [A], /problem\.documents.*at least 2 documents/],
    ['201 documents', Array(201).fill(A), /problem\.documents.*at most 200 documents/],
    ['an empty document', [A, B, '  \n '], /problem\.documents\[2\]: the document is empty/],
    ['a document with NUL bytes', [A, `PK\u0003\u0004${'x'.repeat(50)}\u0000`], /problem\.documents\[1\]: .*binary.*NUL/],
    ['mostly unprintable text', [A, '\u0001\u0002\u0003\ufffd\ufffd abc'], /problem\.documents\[1\]: .*binary.*not printable/],
    ['a document that is not text', [A, 42], /problem\.documents\[1\]: expected the text of an NDA/],
  ])('refuses %s, naming the document', (_name, documents, message) => {
    expect(refusal(documents)).toMatch(message);
  });

  it('refuses a document over the configured character limit', () => {
    const result = docMergeProblemSchema({ maxDocumentChars: A.length }).safeParse({ documents: [A, `${A}!`] });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toHaveLength(1);
    expect(result.error!.issues[0]!.path).toEqual(['documents', 1]);
    expect(result.error!.issues[0]!.message).toBe(`the document has ${A.length + 1} characters; at most ${A.length} are allowed`);
    expect(refusal([A, 'x'.repeat(1_000_001)])).toMatch(
      /problem\.documents\[1\]: the document has 1000001 characters; at most 1000000 are allowed/,
    );
  });

  it('accepts a data room: 200 documents, and documents of 1,000,000 characters', () => {
    expect(docMergeTask.problem.safeParse({ documents: Array(200).fill(A) }).success).toBe(true);
    expect(docMergeTask.problem.safeParse({ documents: [A, `${A}\n${'y'.repeat(1_000_000 - A.length - 1)}`] }).success).toBe(true);
  });
});

describe('reading model output', () => {
  it.each([
    { name: 'a tagged answer', text: '<Merged>\nNDA text.\n</Merged>', want: 'NDA text.' },
    { name: 'a restated draft before the answer', text: '<Merged>draft</Merged>\nBetter:\n<Merged>final</Merged>', want: 'final' },
    { name: 'a missing closing tag', text: 'Here it is: <Merged>\nThe NDA runs on', want: 'The NDA runs on' },
    { name: 'a missing opening tag', text: 'The NDA text.\n</Merged>', want: 'The NDA text.' },
    { name: 'lower-case tags', text: '<merged>x</merged>', want: 'x' },
    { name: 'no tags at all', text: 'Sure! Here is the answer you asked for.', want: undefined },
    { name: 'empty tags', text: '<Merged>\n  \n</Merged>', want: undefined },
  ])('extractMerged: $name', ({ text, want }) => {
    expect(extractMerged(text)).toBe(want);
  });

  it.each([
    { name: 'plain marks', text: '<Redundancy>7</Redundancy>\n<Retained>9</Retained>', want: [7, 9] },
    { name: 'reasoning first, decimals', text: 'Some repetition.\n<Redundancy> 7.5 </Redundancy> <Retained>8</Retained>', want: [7.5, 8] },
    { name: 'marks out of ten', text: '<Redundancy>6/10</Redundancy><Retained>10 / 10</Retained>', want: [6, 10] },
    {
      name: 'the last marks count',
      text: '<Redundancy>1</Redundancy><Retained>1</Retained> On reflection: <Redundancy>8</Redundancy><Retained>6</Retained>',
      want: [8, 6],
    },
    { name: 'a missing mark', text: '<Redundancy>7</Redundancy>', want: undefined },
    { name: 'a mark above 10', text: '<Redundancy>11</Redundancy><Retained>9</Retained>', want: undefined },
    { name: 'words instead of a number', text: '<Redundancy>high</Redundancy><Retained>9</Retained>', want: undefined },
    { name: 'no marks', text: 'I am sorry, but I cannot help with that request.', want: undefined },
  ])('parseRatings: $name', ({ text, want }) => {
    expect(parseRatings(text)).toEqual(want);
  });
});

describe('the clause-level proxy score', () => {
  it('reads sentences, skipping headings and list numbers', () => {
    expect(clausesOf(A).map((c) => c.text)).toEqual([
      'Alpha Corp shares its battery designs with Beta Labs for a joint pilot.',
      'Beta Labs keeps the battery designs secret for three years.',
      'The laws of Ontario govern this agreement.',
    ]);
    expect(clausesOf('a) Access is limited, e.g. to staff with a need to know. Copies of it are logged daily.')).toHaveLength(2);
  });

  it('groups rewordings across documents into one piece of information', () => {
    const { units } = informationUnits([A, B]);
    expect(units.map((u) => u.length)).toEqual([1, 2, 1, 1]);
  });

  it.each([
    { name: 'a perfect merge', merged: PERFECT, want: { redundancy: 10, retention: 10 } },
    { name: 'the concatenation (1 of 5 clauses repeats)', merged: `${A}\n${B}`, want: { redundancy: 6, retention: 10 } },
    { name: 'one source alone (3 of 4 pieces)', merged: A, want: { redundancy: 10, retention: 7.5 } },
    {
      name: 'a verbatim repeat (1 of 4 clauses)',
      merged: `${PERFECT} The laws of Ontario govern this agreement.`,
      want: { redundancy: 5, retention: 10 },
    },
    { name: 'an empty merge', merged: '', want: { redundancy: 10, retention: 0 } },
  ])('$name', ({ merged, want }) => {
    expect(proxyRatings([A, B], merged)).toEqual(want);
  });

  it('combines the ratings by a harmonic mean', () => {
    expect(mergeScore([A, B], PERFECT)).toBe(10);
    expect(mergeScore([A, B], A)).toBeCloseTo(harmonicMean(10, 7.5));
    expect(mergeScore([A, B], '')).toBe(0);
    expect(harmonicMean(8, 7)).toBeCloseTo(112 / 15);
    expect(harmonicMean(0, 9)).toBe(0);
  });

  it('averages each rating over the judge samples before the harmonic mean', () => {
    expect(
      combineRatings([
        [8, 6],
        [6, 6],
        [10, 9],
      ]),
    ).toBeCloseTo(harmonicMean(8, 7));
    expect(
      combineRatings([
        [0, 10],
        [0, 10],
      ]),
    ).toBe(0);
    expect(combineRatings([])).toBe(0);
  });
});

const problem = generateDocMergeProblem(4, 3);
const root = docMergeTask.rootState(problem) as DocMergeState;
const req = (prompt: string, thoughts: DocMergeState[], params: Record<string, unknown> = {}): PromptRequest => ({
  prompt,
  params,
  thoughts,
  problem,
});
const promptOf = (r: PromptRequest) => docMergeTask.buildPrompt(r)[0]!.content;
const realInput = (prompt: string) => prompt.slice(prompt.lastIndexOf(EXAMPLES_END));

describe('prompts', () => {
  const docs = problem.documents;
  it.each([
    ['merge', mergePrompt(docs), docs.at(-1)!],
    ['mergeCot', mergeCotPrompt(docs), docs.at(-1)!],
    ['aggregate', aggregatePrompt(docs, ['first draft', 'second draft']), 'second draft'],
    ['improve', improvePrompt(docs, 'the draft'), 'the draft'],
    ['judge', judgePrompt(docs, 'the candidate'), 'the candidate'],
  ] as const)('%s: marker first, examples, then the real input last', (kind, prompt, last) => {
    expect(prompt.startsWith(`<Instruction> ${DOC_MERGE_MARKERS[kind]}`)).toBe(true);
    expect(
      prompt
        .trimEnd()
        .endsWith(
          `${last}\n</${kind === 'judge' ? 'Candidate' : kind === 'improve' ? 'Draft' : kind === 'aggregate' ? 'Draft2' : 'Doc4'}>`,
        ),
    ).toBe(true);
    // Every document comes after the examples, in order.
    const input = realInput(prompt);
    const at = docs.map((d) => input.indexOf(d));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    // No other prompt's marker leaks in, so the simulator cannot mistake it.
    for (const [other, marker] of Object.entries(DOC_MERGE_MARKERS)) if (other !== kind) expect(prompt).not.toContain(marker);
  });

  it('merges only the documents a GoT2 branch names', () => {
    const prompt = promptOf(req('merge', [root], { documents: [2, 3] }));
    expect(prompt).toContain('The 2 NDAs to merge');
    expect(realInput(prompt)).toContain(problem.documents[2]!);
    expect(realInput(prompt)).toContain(problem.documents[3]!);
    expect(realInput(prompt)).not.toContain(problem.documents[0]!);
  });

  it.each([[[4]], [[]], [[1, 1]], ['all']])('refuses params.documents = %j', (documents) => {
    expect(() => promptOf(req('merge', [root], { documents }))).toThrow(/params\.documents.*indices of documents from 0 to 3/);
  });

  it('aggregates the drafts of the two halves against all their documents', () => {
    const halfA: DocMergeState = { documents: [0, 1], merged: 'draft of the first half' };
    const halfB: DocMergeState = { documents: [2, 3], merged: 'draft of the second half' };
    const prompt = promptOf(req('aggregate', [halfA, halfB]));
    expect(prompt).toContain('The 4 source NDAs');
    expect(prompt).toContain('<Draft2>\ndraft of the second half\n</Draft2>');
  });

  it('falls back to a fresh merge when no input of an aggregate has a draft', () => {
    const prompt = promptOf(req('aggregate', [{ documents: [0, 1, 2, 3] }]));
    expect(prompt).toContain(DOC_MERGE_MARKERS.merge);
  });

  it('refuses to build a prompt without the problem, which holds the source documents', () => {
    expect(() => promptOf({ prompt: 'improve', params: {}, thoughts: [{ answer: 'garbage' }] })).toThrow(/carries no problem/);
  });

  it('builds from a thought that lost its documents (an unreadable answer) against all documents', () => {
    const prompt = promptOf(req('improve', [{ answer: 'garbage' } as unknown as DocMergeState]));
    for (const d of problem.documents) expect(realInput(prompt)).toContain(d);
  });
});

describe('docMergeTask.parseResponse', () => {
  it('merge from the root: all documents, and no source text in the state (the problem holds it)', () => {
    const [t] = docMergeTask.parseResponse(req('merge', [root]), '<Merged>\nThe NDA.\n</Merged>');
    // `end`: just past </Merged>, for the engine's check of an answer cut at max tokens (decision 66).
    expect(t).toEqual({ state: { documents: [0, 1, 2, 3], merged: 'The NDA.' }, valid: true, end: 27 });
  });

  it('merge of a half keeps the half in the state', () => {
    const [t] = docMergeTask.parseResponse(req('merge', [root], { documents: [2, 3] }), '<Merged>Half.</Merged>');
    expect(t!.state).toMatchObject({ documents: [2, 3], merged: 'Half.' });
  });

  it("aggregate covers the union of its inputs; improve keeps its input's documents", () => {
    const halfA: DocMergeState = { documents: [0, 1], merged: 'a' };
    const halfB: DocMergeState = { documents: [3, 2], merged: 'b' };
    expect(docMergeTask.parseResponse(req('aggregate', [halfA, halfB]), '<Merged>ab</Merged>')[0]!.state.documents).toEqual([0, 1, 2, 3]);
    expect(docMergeTask.parseResponse(req('improve', [halfA]), '<Merged>a2</Merged>')[0]!.state).toMatchObject({
      documents: [0, 1],
      merged: 'a2',
    });
  });

  it("drops the lines that are only a tag of the model's own, keeps a tag line a source has", () => {
    const answer = '<Merged>\n<Purpose>\nThe NDA.\n</Purpose>\n< merged >\nIts terms.\n</Merged>';
    expect(docMergeTask.parseResponse(req('merge', [root]), answer)[0]!.state.merged).toBe('The NDA.\nIts terms.');
    const sourceTag = { documents: ['Terms\n<Schedule A>\nThe goods.', 'Terms\nThe goods.'] };
    const [kept] = docMergeTask.parseResponse(
      { prompt: 'merge', params: {}, thoughts: [docMergeTask.rootState(sourceTag)], problem: sourceTag },
      '<Merged>Terms\n<Schedule A>\n<Note>\nThe goods.</Merged>',
    );
    expect(kept!.state.merged).toBe('Terms\n<Schedule A>\nThe goods.');
    expect(docMergeTask.parseResponse(req('merge', [root]), '<Merged>\n<Purpose>\n</Purpose>\n</Merged>')[0]).toMatchObject({
      valid: false,
      error: expect.stringMatching(/nothing but tags/),
    });
  });

  it.each(['merge', 'mergeCot', 'improve', 'aggregate'])(
    '%s: an answer without the tags is one invalid thought that keeps its documents',
    (prompt) => {
      const thought: DocMergeState = { ...root, merged: 'draft' };
      const out = docMergeTask.parseResponse(req(prompt, [thought]), 'I am sorry, but I cannot help with that request.');
      expect(out).toHaveLength(1);
      expect(out[0]!.valid).toBe(false);
      expect(out[0]!.error).toMatch(/<Merged>/);
      expect(out[0]!.state).toEqual({ documents: [0, 1, 2, 3] });
    },
  );
});

describe('scoring thoughts', () => {
  const judge = docMergeTask.llmScorers!.judge!;
  const two = { documents: [A, B] };

  it('the judge sees the documents the thought merges, and the candidate last', () => {
    const content = judge.buildPrompt({ documents: [1], merged: PERFECT }, two)[0]!.content;
    expect(realInput(content)).toContain(B);
    expect(realInput(content)).not.toContain(A);
    expect(content.trimEnd().endsWith(`${PERFECT}\n</Candidate>`)).toBe(true);
  });

  it('the judge rates a thought from an unreadable answer against every document', () => {
    const content = judge.buildPrompt({ answer: 'garbage' }, two)[0]!.content;
    expect(realInput(content)).toContain(A);
    expect(content).toContain('<Candidate>\n\n</Candidate>');
    expect(judge.unparseableScore).toBe(0);
  });

  it('the local score is the proxy, 0 without a merged NDA', () => {
    expect(docMergeTask.score!({ documents: [0, 1], merged: PERFECT }, two)).toBe(10);
    expect(docMergeTask.score!({ documents: [0, 1], merged: A }, two)).toBeCloseTo(harmonicMean(10, 7.5));
    expect(docMergeTask.score!({ documents: [0, 1] }, two)).toBe(0);
    expect(docMergeTask.higherIsBetter).toBe(true);
  });
});

describe('datasets', () => {
  const shared = readSharedData('documents.csv');

  it('reads the reference documents.csv: 100 rows of 4 multi-line NDAs', () => {
    const samples = parseDocMergeCsv(shared);
    expect(samples).toHaveLength(100);
    expect(samples[0]!.id).toBe('0');
    for (const s of samples) {
      expect(s.problem.documents).toHaveLength(4);
      expect(docMergeTask.problem.safeParse(s.problem).success).toBe(true);
    }
    expect(samples[0]!.problem.documents[0]).toMatch(/^NON-DISCLOSURE AGREEMENT/);
    expect(samples[0]!.problem.documents[0]!.split('\n').length).toBeGreaterThan(5);
  });

  it('names the row and column of a bad document', () => {
    const csv = 'id,problem,document1,document2,document3,document4\n0,p,"a","b","c","d"\n1,p,"a","b","","d"\n';
    expect(() => parseDocMergeCsv(csv)).toThrow(ValidationError);
    expect(() => parseDocMergeCsv(csv)).toThrow(/row 2 column document3: the document is empty/);
  });

  it('refuses a file without document columns', () => {
    expect(() => parseDocMergeCsv('ID,Unsorted,Sorted\n0,"[1]","[1]"\n')).toThrow(/header.*document1\.\.document4/);
  });

  it('generates reproducible, overlapping NDAs', () => {
    expect(generateDocMergeProblem(4, 5)).toEqual(generateDocMergeProblem(4, 5));
    expect(generateDocMergeProblem(4, 5)).not.toEqual(generateDocMergeProblem(4, 6));
    for (const size of [2, 4, 8]) {
      const p = generateDocMergeProblem(size, size);
      expect(p.documents).toHaveLength(size);
      expect(docMergeTask.problem.safeParse(p).success).toBe(true);
      const perDocument = p.documents.map((d) => clausesOf(d).length);
      const pieces = informationUnits(p.documents).units.length;
      // Shared clauses: fewer pieces than clauses; document-specific ones: more than any one document has.
      expect(pieces).toBeLessThan(perDocument.reduce((a, b) => a + b, 0) * 0.8);
      expect(pieces).toBeGreaterThan(Math.max(...perDocument));
      // Each document is several paragraphs of plain prose.
      for (const d of p.documents) expect(d.split('\n\n').length).toBeGreaterThanOrEqual(8);
    }
    expect(() => generateDocMergeProblem(1, 0)).toThrow(/2 to 200 documents/);
  });
});

describe('schemes, as in REFERENCE-GOO.md', () => {
  const ops = (goo: GoO) => goo.operations;
  const byId = (goo: GoO) => new Map(goo.operations.map((o) => [o.id, o]));
  const llmOps = (goo: GoO) =>
    goo.operations.filter(
      (o): o is Extract<Operation, { type: 'generate' | 'aggregate' }> => o.type === 'generate' || o.type === 'aggregate',
    );
  const scheme = (name: string, size = 4) => docMergeTask.schemes[name]!({ size });

  // The paper's schemes; `clauses` (decision 91) scores its groups by the engine: test/doc-merge-clauses.test.ts.
  it.each(Object.keys(docMergeTask.schemes).filter((n) => n !== 'clauses'))(
    '%s is a valid GoO whose every Score is the 3-sample judge and every Keep higher-is-better',
    (name) => {
      const goo = scheme(name);
      expect(() => validateGoO(goo)).not.toThrow();
      for (const op of ops(goo)) {
        if (op.type === 'score') expect(op.scorer).toEqual({ kind: 'llm', prompt: 'judge', samples: 3 });
        if (op.type === 'keepBestN') expect(op.higherIsBetter).toBe(true);
        if (op.type === 'generate' || op.type === 'aggregate') expect(docMergeTask.prompts).toContain(op.prompt);
      }
      expect(() => checkRun({ task: 'doc-merge', problem, goo })).not.toThrow();
    },
  );

  it('io and cot: Generate(k=1) -> Score', () => {
    for (const [name, prompt] of [
      ['io', 'merge'],
      ['cot', 'mergeCot'],
    ] as const) {
      expect(ops(scheme(name)).map((o) => o.type)).toEqual(['generate', 'score']);
      expect(llmOps(scheme(name))[0]).toMatchObject({ prompt, k: 1 });
    }
  });

  it('tot: Generate(k=10) -> Score -> Keep(1), then 2 x [Generate(k=10, improve) -> Score -> Keep(1, +prev)]', () => {
    const goo = scheme('tot');
    expect(llmOps(goo).map((o) => [o.prompt, o.k])).toEqual([
      ['merge', 10],
      ['improve', 10],
      ['improve', 10],
    ]);
    const keeps = ops(goo).filter((o) => o.type === 'keepBestN');
    expect(keeps.map((k) => (k.type === 'keepBestN' ? k.n : 0))).toEqual([1, 1, 1]);
    expect(keeps[1]!.inputs).toEqual([expect.stringMatching(/^score/), keeps[0]!.id]);
    expect(keeps[2]!.inputs).toEqual([expect.stringMatching(/^score/), keeps[1]!.id]);
  });

  it('got: Generate(k=5) -> Score -> Keep(3) -> Aggregate(k=5) -> Score -> Keep(1, +Keep(3)) -> Generate(k=10, improve) -> Score -> Keep(1, +prev)', () => {
    const goo = scheme('got');
    expect(ops(goo).map((o) => o.type)).toEqual([
      'generate',
      'score',
      'keepBestN',
      'aggregate',
      'score',
      'keepBestN',
      'generate',
      'score',
      'keepBestN',
    ]);
    expect(llmOps(goo).map((o) => [o.type, o.prompt, o.k])).toEqual([
      ['generate', 'merge', 5],
      ['aggregate', 'aggregate', 5],
      ['generate', 'improve', 10],
    ]);
    const [, , keep3, aggregate, scoreAgg, keep1, improve, scoreImp, final] = ops(goo);
    expect(keep3).toMatchObject({ n: 3 });
    expect(aggregate!.inputs).toEqual([keep3!.id]);
    expect(keep1!.inputs).toEqual([scoreAgg!.id, keep3!.id]);
    expect(improve!.inputs).toEqual([keep1!.id]);
    expect(final).toMatchObject({ n: 1, inputs: [scoreImp!.id, keep1!.id] });
  });

  it('got2: two halves merged (k=5) and kept, Aggregate(k=5) -> Score -> Keep(1) -> Generate(k=5, improve) -> Score -> Keep(1, +prev)', () => {
    const goo = scheme('got2');
    const roots = ops(goo).filter((o) => o.inputs.length === 0);
    expect(roots.map((o) => [o.type, (o as { params?: unknown }).params, (o as { k?: number }).k])).toEqual([
      ['generate', { documents: [0, 1] }, 5],
      ['generate', { documents: [2, 3] }, 5],
    ]);
    const aggregate = ops(goo).find((o) => o.type === 'aggregate')!;
    expect(aggregate).toMatchObject({ k: 5 });
    expect(aggregate.inputs.map((i) => byId(goo).get(i)!.type)).toEqual(['keepBestN', 'keepBestN']);
    expect(llmOps(goo).map((o) => [o.prompt, o.k])).toEqual([
      ['merge', 5],
      ['merge', 5],
      ['aggregate', 5],
      ['improve', 5],
    ]);
    const final = ops(goo).at(-1)!;
    expect(final.inputs.map((i) => byId(goo).get(i)!.type)).toEqual(['score', 'keepBestN']);
    expect(
      ops(goo)
        .filter((o) => o.type === 'keepBestN')
        .every((o) => o.type === 'keepBestN' && o.n === 1),
    ).toBe(true);
  });

  it('got2 halves any number of documents', () => {
    expect(halves(4)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(halves(5)).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    expect(halves(2)).toEqual([[0], [1]]);
    expect(() => scheme('got2', 1)).toThrow(/at least 2 documents/);
  });
});

describe('the simulated LLM on document merging', () => {
  const answer = (prompt: string, seed: number) => docMergeResponder(prompt)!.answer(seededRandom(seed));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  it('recognises each prompt and nothing else', () => {
    const docs = problem.documents;
    expect(docMergeResponder(mergePrompt(docs))?.kind).toBe('doc-merge.merge');
    expect(docMergeResponder(mergeCotPrompt(docs))?.kind).toBe('doc-merge.mergeCot');
    expect(docMergeResponder(aggregatePrompt(docs, ['a', 'b']))?.kind).toBe('doc-merge.aggregate');
    expect(docMergeResponder(improvePrompt(docs, 'a'))?.kind).toBe('doc-merge.improve');
    expect(docMergeResponder(judgePrompt(docs, 'a'))?.kind).toBe('doc-merge.judge');
    expect(docMergeResponder('Put the numbers of the list below into ascending order.\nInput: [1, 0]')).toBeUndefined();
  });

  it('forgets more of the sources the more text it merges', () => {
    expect(dropProbability(12_000)).toBeGreaterThan(dropProbability(3_000));
    const retention = [2, 4, 8].map((size) =>
      mean(
        Array.from({ length: 25 }, (_, seed) => {
          const p = generateDocMergeProblem(size, 100 + seed);
          const merged = extractMerged(answer(mergePrompt(p.documents), seed)) ?? '';
          return proxyRatings(p.documents, merged).retention;
        }),
      ),
    );
    expect(retention[0]).toBeGreaterThan(retention[1]!);
    expect(retention[1]).toBeGreaterThan(retention[2]!);
    expect(retention[2]).toBeGreaterThan(2);
    expect(retention[0]).toBeLessThan(10);
  });

  it('writes imperfect but usable merges of four NDAs, sized like an NDA', () => {
    const scores: number[] = [];
    let repeated = 0;
    for (let seed = 0; seed < 30; seed++) {
      const p = generateDocMergeProblem(4, 200 + seed);
      const merged = extractMerged(answer(mergePrompt(p.documents), seed));
      if (!merged) continue;
      const ratings = proxyRatings(p.documents, merged);
      if (ratings.redundancy < 10) repeated++;
      scores.push(harmonicMean(ratings.redundancy, ratings.retention));
      expect(merged.length).toBeLessThan(p.documents.join('').length);
      expect(merged.length).toBeGreaterThan(Math.min(...p.documents.map((d) => d.length)) * 0.5);
    }
    expect(scores.length).toBeGreaterThanOrEqual(27);
    expect(repeated).toBeGreaterThan(5);
    expect(Math.min(...scores)).toBeLessThan(Math.max(...scores) - 1);
    expect(mean(scores)).toBeGreaterThan(4);
    expect(mean(scores)).toBeLessThan(8.5);
  });

  it('improves and aggregates drafts to better scores on average', () => {
    const before: number[] = [];
    const improved: number[] = [];
    const aggregated: number[] = [];
    for (let seed = 0; seed < 20; seed++) {
      const p = generateDocMergeProblem(4, 300 + seed);
      const drafts = [0, 1, 2].map((i) => extractMerged(answer(mergePrompt(p.documents), 10 * seed + i)) ?? '');
      before.push(mean(drafts.map((d) => mergeScore(p.documents, d))));
      improved.push(mergeScore(p.documents, extractMerged(answer(improvePrompt(p.documents, drafts[0]!), seed)) ?? ''));
      aggregated.push(mergeScore(p.documents, extractMerged(answer(aggregatePrompt(p.documents, drafts), seed)) ?? ''));
    }
    expect(mean(improved)).toBeGreaterThan(mean(before) + 0.5);
    expect(mean(aggregated)).toBeGreaterThan(mean(before) + 0.5);
  });

  it('judges close to the proxy, with noise, in the format the parser reads', () => {
    const p = generateDocMergeProblem(4, 9);
    const merged = extractMerged(answer(mergePrompt(p.documents), 1))!;
    const truth = proxyRatings(p.documents, merged);
    const marks = Array.from({ length: 40 }, (_, seed) => parseRatings(answer(judgePrompt(p.documents, merged), seed))).filter(
      (m) => m !== undefined,
    );
    expect(marks.length).toBeGreaterThanOrEqual(36);
    for (const [redundancy, retention] of marks) {
      expect(Math.abs(redundancy - truth.redundancy)).toBeLessThanOrEqual(1.5);
      expect(Math.abs(retention - truth.retention)).toBeLessThanOrEqual(1.5);
    }
    expect(new Set(marks.map((m) => m.join())).size).toBeGreaterThan(1);
  });

  it('now and then answers without the tags', () => {
    const p = generateDocMergeProblem(2, 1);
    const prompt = mergePrompt(p.documents);
    const missing = Array.from({ length: 600 }, (_, seed) => extractMerged(answer(prompt, seed))).filter((m) => m === undefined).length;
    expect(missing).toBeGreaterThan(0);
    expect(missing).toBeLessThan(30);
  });
});
