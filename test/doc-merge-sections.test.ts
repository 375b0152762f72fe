import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import type { ThoughtState } from '../src/grs/types';
import { estimateChatTokens, estimateTokens } from '../src/llm/context-windows';
import { docMergeTask } from '../src/tasks/doc-merge';
import { answerReserve, answerTokensFor, expectedMergeTokens, JUDGE_ANSWER_TOKENS, taggedTokens } from '../src/tasks/doc-merge/budget';
import { CONTRACT_TOPICS } from '../src/tasks/doc-merge/contract-samples';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { generateDocMergeProblem } from '../src/tasks/doc-merge/dataset';
import { splitDocument, titleKey, titleSimilarity } from '../src/tasks/doc-merge/headings';
import { DOC_MERGE_MARKERS, EXAMPLES_END } from '../src/tasks/doc-merge/prompts';
import { fitsWhole } from '../src/tasks/doc-merge/schemes';
import { clausesOf, informationUnits, mergeScore } from '../src/tasks/doc-merge/score';
import { SECTION_MARKERS } from '../src/tasks/doc-merge/section-prompts';
import { aggregationLevels, PART_BODIES } from '../src/tasks/doc-merge/sectioned-schemes';
import { alignDocuments, alignmentOf, sectionTexts } from '../src/tasks/doc-merge/sections';
import { type AssembledState, planSections, type SectionState } from '../src/tasks/doc-merge/splits';
import type { Part, PromptRequest } from '../src/tasks/task';

/** Titles of a document's sections, as `number:title`. */
const outline = (text: string) => splitDocument(text).map((s) => `${s.number ?? '-'}:${s.title}`);

describe('cutting a document into sections', () => {
  it('numbered headings start sections; sub-clauses and restarted lists stay inside', () => {
    const text = [
      'SERVICES AGREEMENT',
      'This agreement is made between Acme and Beta.',
      '1. Definitions',
      '1.1 "Services" means the work in Schedule 1.',
      '1.2 Headings do not affect interpretation.',
      '2. Fees',
      'The Customer pays:',
      '1. the monthly charge;',
      '2. the expenses agreed in writing.',
      '3. Term',
      '3.1 This agreement lasts two years.',
    ].join('\n');
    expect(outline(text)).toEqual(['0:Preamble', '1:Definitions', '2:Fees', '3:Term']);
    const [, definitions, fees] = splitDocument(text);
    expect(text.slice(definitions!.start, definitions!.end)).toContain('1.2 Headings');
    expect(text.slice(fees!.start, fees!.end)).toContain('2. the expenses agreed in writing.');
  });

  it.each([
    [
      'Section markers',
      'Section 1. Scope\nThe scope.\nSection 2 - Price\nThe price.\nSection 2 of this agreement survives.',
      ['1:Scope', '2:Price'],
    ],
    ['ARTICLE with roman numbers', 'ARTICLE I - SCOPE\nText.\nSection 1.01 Detail.\nARTICLE IV: PRICE\nText.', ['1:SCOPE', '4:PRICE']],
    ['Clause markers', 'Clause 7 Liability\nText.\nClause 8. Insurance\nText.', ['7:Liability', '8:Insurance']],
    ['markdown headings', '# Master Agreement\nIntro.\n## Scope\nText.\n## 2. Price\nText.', ['0:Preamble', '-:Scope', '2:Price']],
    [
      'ALL-CAPS heading lines',
      'NDA\nParties.\nCONFIDENTIALITY\nKeep it secret.\nGOVERNING LAW\nOntario.',
      ['0:Preamble', '-:CONFIDENTIALITY', '-:GOVERNING LAW'],
    ],
    ['run-in titles', '1. Fees. The Customer pays monthly.\n2. Term. Two years from signature.', ['1:Fees', '2:Term']],
    ['untitled numbered clauses', '1. The Customer pays monthly.\n2. The agreement lasts two years.', ['1:', '2:']],
  ])('%s', (_name, text, want) => {
    expect(outline(text)).toEqual(want);
  });

  it('finds no structure in plain prose (and a single heading is not structure)', () => {
    expect(splitDocument('This is prose.\n\nIt has two paragraphs.')).toEqual([]);
    expect(splitDocument('NDA\n\n1. Purpose\nOnly one section here.')).toEqual([]);
  });

  it('reads titles as word stems, so rewordings and plurals match', () => {
    expect(titleKey('Service Levels')).toEqual(titleKey('service level'));
    expect(titleSimilarity(titleKey('Taxes'), titleKey('Tax Matters'))).toBeGreaterThan(0.5);
    expect(titleSimilarity(titleKey('Confidentiality'), titleKey('Confidential Information'))).toBeGreaterThan(0.5);
    expect(titleSimilarity(titleKey('Limitation of Liability'), titleKey('Liability Insurance'))).toBeLessThanOrEqual(0.5);
    expect(titleSimilarity([], titleKey('Fees'))).toBeUndefined();
  });
});

describe('aligning sections across documents', () => {
  const titles = (documents: string[]) =>
    alignDocuments(documents).sections.map((s) => `${s.title}:${s.spans.map((x) => (x ? 1 : 0)).join('')}`);

  it('by similar title whatever the numbering and heading style; sections only some have stay their own, in order', () => {
    const a = 'AGREEMENT\nParties A.\n1. Fees\nA pays.\n2. Term\nTwo years.\n3. Governing Law\nOntario.';
    const b =
      'AGREEMENT\nParties B.\nARTICLE I - FEES AND CHARGES\nB pays.\nARTICLE II - AUDIT\nAudits.\nARTICLE III - TERM OF AGREEMENT\nThree years.\nARTICLE IV - GOVERNING LAW\nQuebec.';
    const c = 'AGREEMENT\nParties C.\nSection 1. Fees\nC pays.\nSection 2. Term\nOne year.\nSection 3. Insurance\nCover.';
    expect(titles([a, b, c])).toEqual(['Preamble:111', 'Fees:111', 'AUDIT:010', 'Term:111', 'Insurance:001', 'Governing Law:110']);
  });

  it('by number where a title is missing', () => {
    const a = '1. Fees\nA pays.\n2. Term\nTwo years.';
    const b = '1. The Customer pays monthly.\n2. The agreement lasts three years.';
    expect(titles([a, b])).toEqual(['Fees:11', 'Term:11']);
  });

  it('different titles under one number are different sections', () => {
    const a = '1. Fees\nA pays.\n2. Taxes\nVAT.\n3. Term\nTwo years.';
    const b = '1. Fees\nB pays.\n2. Term\nOne year.';
    expect(titles([a, b])).toEqual(['Fees:11', 'Taxes:10', 'Term:11']);
  });

  it('cuts documents without structure into paragraph-bounded pieces aligned by position', () => {
    const paragraph = (doc: string, i: number) => `${doc} paragraph ${i} says something about clause ${i} of the deal.`;
    const documents = ['A', 'B'].map((d) => Array.from({ length: 40 }, (_, i) => paragraph(d, i)).join('\n\n'));
    const alignment = alignDocuments(documents);
    expect(alignment.sections).toHaveLength(1);
    expect(alignment.structured).toEqual([false, false]);
    const pieces = [0, 1, 2, 3].map((piece) => sectionTexts(documents, { section: 0, piece, pieces: 4 }));
    for (const texts of pieces) for (const t of texts) expect(t).toMatch(/^[AB] paragraph \d+ .*deal\.$/s);
    // Piece i of each document covers the same paragraphs, and the pieces add up to the document.
    for (const texts of pieces) expect(texts[0]!.replace(/A paragraph/g, 'B paragraph')).toBe(texts[1]);
    expect(pieces.map((texts) => texts[0]).join('\n\n')).toBe(documents[0]);
  });

  it('spreads an unstructured document over the sections of the others by position, losing nothing', () => {
    const structured = Array.from({ length: 4 }, (_, i) => `${i + 1}. Topic ${i + 1}\n${'Words of the topic. '.repeat(20)}`).join('\n');
    const plain = Array.from({ length: 8 }, (_, i) => `Plain paragraph ${i} with its own words.`).join('\n\n');
    const alignment = alignDocuments([structured, plain]);
    expect(alignment.structured).toEqual([true, false]);
    const spans = alignment.sections.flatMap((s) => (s.spans[1] ? [s.spans[1]] : []));
    expect(spans.length).toBeGreaterThan(2);
    expect(spans.map((s) => plain.slice(s.start, s.end)).join('')).toBe(plain);
  });

  it('is deterministic and remembered by content', () => {
    const { documents } = generateDataRoom(4, 20_000, 3);
    expect(alignDocuments(documents)).toEqual(alignDocuments([...documents]));
    expect(alignmentOf([...documents])).toBe(alignmentOf([...documents]));
  });

  it('aligns a data room of 30 contracts of 200,000 characters: every character in one section, shared sections across all', () => {
    const { documents } = generateDataRoom(30, 200_000, 1);
    const { sections, structured } = alignDocuments(documents);
    expect(structured.every(Boolean)).toBe(true);
    documents.forEach((text, d) => {
      const spans = sections.flatMap((s) => (s.spans[d] ? [s.spans[d]!] : [])).sort((x, y) => x.start - y.start);
      expect(spans[0]!.start).toBe(0);
      expect(spans.at(-1)!.end).toBe(text.length);
      for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBe(spans[i - 1]!.end);
    });
    // The template's core topics and the preamble are in every contract, each optional topic in some.
    const core = CONTRACT_TOPICS.filter((t) => t.core).length;
    expect(sections.filter((s) => s.spans.every(Boolean))).toHaveLength(core + 1);
    expect(sections).toHaveLength(CONTRACT_TOPICS.length + 1);
  });
});

describe('the long-contract generator', () => {
  it('writes N contracts of about C characters, reproducibly, overlapping like versions of one template', () => {
    const room = generateDataRoom(6, 40_000, 7);
    expect(room).toEqual(generateDataRoom(6, 40_000, 7));
    expect(room).not.toEqual(generateDataRoom(6, 40_000, 8));
    expect(docMergeTask.problem.safeParse(room).success).toBe(true);
    for (const d of room.documents) {
      expect(d.length).toBeGreaterThan((2 / 3) * 40_000);
      expect(d.length).toBeLessThan((4 / 3) * 40_000);
      expect(splitDocument(d).length).toBeGreaterThan(20);
    }
    // A shared section: its versions share most clauses but none is a copy of another.
    const fees = alignmentOf(room.documents).sections.findIndex((s) => /fees/i.test(s.title));
    const versions = sectionTexts(room.documents, { section: fees }) as string[];
    const clauses = versions.map((v) => new Set(clausesOf(v).map((c) => c.text)));
    const shared = [...clauses[0]!].filter((c) => clauses[1]!.has(c)).length;
    expect(shared).toBeGreaterThan(0.4 * clauses[0]!.size);
    expect(versions[0]).not.toBe(versions[1]);
    expect(() => generateDataRoom(201, 10_000, 0)).toThrow(/2 to 200 documents/);
  });
});

/** Each part's state, for a problem and window. */
const sectionParts = (problem: { documents: string[] }, contextTokens: number, extra: Record<string, unknown> = {}) =>
  docMergeTask.splits!.sections!([docMergeTask.rootState(problem)], problem, {
    contextTokens,
    answerTokens: answerTokensFor(contextTokens),
    ...extra,
  }).map((p) => (p as { state: SectionState }).state);

/** Parts grouped by their section. */
const groupsBySection = (parts: SectionState[]) =>
  [...new Set(parts.map((s) => s.section))].map((section) => parts.filter((s) => s.section === section));

const prompt = (problem: { documents: string[] }, name: string, thoughts: ThoughtState[]) =>
  docMergeTask.buildPrompt({ prompt: name, params: {}, thoughts, problem });

describe('the sections split', () => {
  const room = generateDataRoom(30, 200_000, 1);
  const window = 32_000;
  const parts = sectionParts(room, window);

  it('makes parts that name their section and documents, never carrying source text', () => {
    expect(parts.length).toBeGreaterThan(35);
    for (const s of parts) {
      expect(Object.keys(s).sort()).toEqual(
        expect.arrayContaining(['answerTokens', 'contextTokens', 'documents', 'section', 'title'].sort()),
      );
      expect(JSON.stringify(s).length).toBeLessThan(400);
    }
    // Every document's version of every section is merged in exactly one part.
    const { sections } = alignmentOf(room.documents);
    sections.forEach((aligned, section) => {
      const covered = parts.filter((p) => p.section === section).flatMap((p) => p.documents);
      expect(covered.sort((a, b) => a - b)).toEqual(aligned.spans.flatMap((s, d) => (s ? [d] : [])));
    });
  });

  it('30 x 200,000 characters in a 32K window: every merge, improve and judge prompt fits with its answer', () => {
    for (const s of parts) {
      const versions = sectionTexts(room.documents, s).filter((_, d) => s.documents.includes(d)) as string[];
      const reserve = answerReserve(taggedTokens(versions), s);
      const draft = 'x'.repeat(3 * expectedMergeTokens(taggedTokens(versions), s.answerTokens));
      expect(estimateChatTokens(prompt(room, 'mergeSection', [s])) + reserve).toBeLessThanOrEqual(window);
      expect(estimateChatTokens(prompt(room, 'mergeSectionCot', [s])) + reserve).toBeLessThanOrEqual(window);
      expect(estimateChatTokens(prompt(room, 'improveSection', [{ ...s, merged: draft }])) + reserve).toBeLessThanOrEqual(window);
      const judge = docMergeTask.llmScorers!.judgeSection!.buildPrompt({ ...s, merged: draft }, room);
      expect(estimateChatTokens(judge) + JUDGE_ANSWER_TOKENS).toBeLessThanOrEqual(window);
      // Nothing of the other documents' versions.
      expect(prompt(room, 'mergeSection', [s])[0]!.content).toContain(`${s.documents.length} version`);
    }
    // Most sections of this data room need several groups in 32K tokens; in 128K one each.
    expect(parts.length).toBeGreaterThan(2 * 35);
    expect(sectionParts(room, 128_000)).toHaveLength(35);
  });

  it('cuts a section longer than half the answer reserve into pieces aligned across documents', () => {
    const long = generateDataRoom(3, 60_000, 2);
    const small = sectionParts(long, 2_048);
    const pieced = small.filter((s) => (s.pieces ?? 1) > 1);
    expect(pieced.length).toBeGreaterThan(0);
    for (const s of small) {
      const versions = sectionTexts(long.documents, s).filter((_, d) => s.documents.includes(d)) as string[];
      for (const v of versions) expect(estimateTokens(v)).toBeLessThanOrEqual(s.answerTokens / 2);
      expect(estimateChatTokens(prompt(long, 'mergeSection', [s])) + answerReserve(taggedTokens(versions), s)).toBeLessThanOrEqual(2_048);
    }
  });

  it('makes at least minGroups groups per section when asked (GoT2 merges subsets first)', () => {
    const four = generateDocMergeProblem(4, 1);
    const parts2 = sectionParts(four, 128_000, { minGroups: 2 });
    for (const group of groupsBySection(parts2)) if (group.flatMap((s) => s.documents).length > 1) expect(group.length).toBe(2);
  });

  it('refuses a window that cannot hold one version of a section, and bad params, naming them', () => {
    const room3 = generateDataRoom(3, 20_000, 1);
    expect(() => sectionParts(room3, 600)).toThrow(/context window of 600 tokens cannot hold/);
    const split = docMergeTask.splits!.sections!;
    expect(() => split([], room3, { contextTokens: 0, answerTokens: 10 })).toThrow(/params\.contextTokens/);
    expect(() => split([], room3, { contextTokens: 1000, answerTokens: 1000 })).toThrow(/params\.answerTokens/);
  });
});

/** A section draft of the given length for a state. */
const draft = (s: SectionState, merged: string): SectionState => ({ ...s, merged });

describe('the bySection split: aggregation levels', () => {
  const room = generateDataRoom(12, 60_000, 4);
  const window = 8_192;
  const parts = sectionParts(room, window);
  const params = { contextTokens: window, answerTokens: answerTokensFor(window) };
  const bySection = (inputs: ThoughtState[]) => docMergeTask.splits!.bySection!(inputs, room, params);

  it('keeps a section with one draft, groups several drafts that fit one aggregation prompt', () => {
    const drafts = parts.map((s) => draft(s, 'A short draft of this section.'));
    const out = bySection(drafts);
    const sections = new Set(parts.map((s) => s.section)).size;
    expect(out).toHaveLength(sections);
    for (const part of out) {
      const indices = 'keep' in part ? part.keep : 'thoughts' in part ? part.thoughts : [];
      expect(new Set(indices.map((i) => drafts[i]!.section)).size).toBe(1);
      if ('thoughts' in part) expect(part.thoughts.length).toBeGreaterThan(1);
    }
    expect(out.some((p) => 'keep' in p)).toBe(true);
  });

  it('ignores thoughts without a draft (unreadable answers)', () => {
    const out = bySection(parts.map((s, i) => (i % 2 ? draft(s, 'A draft.') : s)));
    const kept = out.flatMap((p) => ('keep' in p ? p.keep : 'thoughts' in p ? p.thoughts : []));
    expect(kept.every((i) => i % 2 === 1)).toBe(true);
  });

  it('drafts too long for one prompt take several levels, as many as the scheme plans', () => {
    // Every draft as long as the answer reserve allows: the worst case the scheme plans for.
    const longest = 'word '.repeat(Math.floor((params.answerTokens * 3) / 5));
    let thoughts: ThoughtState[] = parts.map((s) => draft(s, longest));
    let levels = 0;
    while (new Set(thoughts.map((t) => t.section)).size < thoughts.length) {
      const out = bySection(thoughts);
      expect(out.some((p) => 'thoughts' in p)).toBe(true);
      thoughts = out.flatMap((p) => {
        if ('keep' in p) return p.keep.map((i) => thoughts[i]!);
        if ('thoughts' in p) {
          const group = p.thoughts.map((i) => thoughts[i] as SectionState);
          for (const g of group) expect(estimateTokens(g.merged!)).toBeLessThanOrEqual(params.answerTokens);
          return [{ ...group[0]!, documents: [...new Set(group.flatMap((g) => g.documents))] }];
        }
        return [];
      });
      levels++;
    }
    const perSection = Math.max(...groupsBySection(parts).map((g) => g.length));
    expect(perSection).toBeGreaterThan(2);
    expect(levels).toBeGreaterThan(1);
    const goo = docMergeTask.schemes.io!({ size: 12, problem: room, contextTokens: window });
    const combines = goo.operations.filter((o) => o.id.startsWith('combine-'));
    expect(combines.length).toBeGreaterThanOrEqual(levels);
  });

  it('counts levels from the drafts per section and the drafts per prompt, with one to spare', () => {
    expect(aggregationLevels(1, 2)).toBe(0);
    expect(aggregationLevels(2, 2)).toBe(2);
    expect(aggregationLevels(4, 2)).toBe(3);
    expect(aggregationLevels(9, 3)).toBe(3);
    expect(aggregationLevels(10, 3)).toBe(4);
  });
});

describe('the assemble split', () => {
  const room = generateDataRoom(3, 10_000, 5);
  const parts = sectionParts(room, 128_000);

  it("joins the sections' drafts in section order into one thought over all documents", () => {
    const drafts = [...parts].reverse().map((s) => draft(s, `Draft of ${s.title}.`));
    const [part] = docMergeTask.splits!.assemble!(drafts, room, {}) as [Part & { state: AssembledState }];
    const { state } = part;
    expect(state.documents).toEqual([0, 1, 2]);
    expect(state.merged).toBe(parts.map((s) => `Draft of ${s.title}.`).join('\n\n'));
    for (const entry of state.outline) expect(state.merged!.slice(entry.start, entry.end)).toBe(`Draft of ${parts[entry.section]!.title}.`);
    expect(docMergeTask.answerText(state)).toBe(state.merged);
  });

  it('takes the draft merging the most documents where a section still has several', () => {
    const [first] = parts;
    const one = draft({ ...first!, documents: [0] }, 'Partial.');
    const all = draft(first!, 'Whole.');
    const [part] = docMergeTask.splits!.assemble!([one, all], room, {}) as [{ state: AssembledState }];
    expect(part.state.merged).toBe('Whole.');
  });
});

describe('schemes and the context window', () => {
  const four = generateDocMergeProblem(4, 2);
  // The paper's schemes; `clauses` (decision 91) is planned from the clauses, not the window.
  const schemes = Object.keys(docMergeTask.schemes).filter((n) => n !== 'clauses');

  it.each(schemes)('%s: exactly the paper GoO when the documents fit one prompt', (name) => {
    const scheme = docMergeTask.schemes[name]!;
    const whole = JSON.stringify(scheme({ size: 4 }));
    for (const contextTokens of [16_385, 128_000, 1_047_576]) {
      expect(JSON.stringify(scheme({ size: 4, problem: four, contextTokens }))).toBe(whole);
    }
  });

  const room = generateDataRoom(30, 200_000, 1);
  const parts = planSections(room, { contextTokens: 32_000, answerTokens: answerTokensFor(32_000) });

  it.each(schemes)('%s: sectioned when they do not, a forEach per stage and a whole-document score last', (name) => {
    const goo = docMergeTask.schemes[name]!({ size: 30, problem: room, contextTokens: 32_000 }) as unknown as {
      operations: { id: string; type: string; inputs: string[]; parts?: unknown; maxParts?: number; body?: Record<string, unknown>[] }[];
    };
    const ops = goo.operations;
    const [sections, ...rest] = ops;
    expect(sections).toMatchObject({
      id: 'sections',
      type: 'forEach',
      inputs: [],
      maxParts: name === 'got2' ? expect.any(Number) : parts.length,
    });
    expect(sections!.parts).toEqual({
      split: 'sections',
      params: { contextTokens: 32_000, answerTokens: 8_000, ...(name === 'got2' ? { minGroups: 2 } : {}) },
    });
    expect(sections!.body).toEqual(PART_BODIES[name as keyof typeof PART_BODIES]());
    const combines = rest.filter((o) => o.id.startsWith('combine-'));
    expect(combines.length).toBeGreaterThan(0);
    combines.forEach((c, i) => {
      expect(c).toMatchObject({ type: 'forEach', inputs: [i === 0 ? 'sections' : `combine-${i}`], parts: { split: 'bySection' } });
      expect(c.body![0]).toMatchObject({ type: 'aggregate', prompt: 'aggregateSection', inputs: [] });
    });
    expect(ops.at(-2)).toEqual({
      id: 'assemble',
      type: 'forEach',
      inputs: [combines.at(-1)!.id],
      parts: { split: 'assemble', params: {} },
      maxParts: 1,
      body: [],
    });
    expect(ops.at(-1)).toEqual({ id: 'final', type: 'score', inputs: ['assemble'], scorer: { kind: 'local' } });
    // Every prompt and judge a body names is the task's.
    for (const op of ops.flatMap((o) => o.body ?? [])) {
      if ('prompt' in op) expect(docMergeTask.prompts).toContain(op.prompt);
      if (op.type === 'score') expect(docMergeTask.llmScorers).toHaveProperty((op.scorer as { prompt: string }).prompt);
    }
  });

  it('what each scheme becomes per part: io and cot merge once, tot refines, got aggregates and refines', () => {
    const prompts = (name: keyof typeof PART_BODIES) =>
      PART_BODIES[name]().flatMap((o) => ('prompt' in o ? [`${o.prompt}/${'k' in o ? o.k : 1}`] : []));
    expect(prompts('io')).toEqual(['mergeSection/1']);
    expect(prompts('cot')).toEqual(['mergeSectionCot/1']);
    expect(prompts('tot')).toEqual(['mergeSection/10', 'improveSection/10', 'improveSection/10']);
    expect(prompts('got')).toEqual(['mergeSection/5', 'aggregateSection/5', 'improveSection/10']);
    expect(prompts('got2')).toEqual(['mergeSection/5']);
  });

  it('decides per scheme: a scheme whose largest prompt carries more drafts sections sooner', () => {
    const mid = generateDataRoom(4, 9_000, 3);
    const windows = [8_192, 16_385, 32_000, 48_000, 64_000];
    const io = windows.find((w) => fitsWhole('io', mid, w));
    const got = windows.find((w) => fitsWhole('got', mid, w));
    expect(io).toBeDefined();
    expect(got).toBeDefined();
    expect(io!).toBeLessThan(got!);
    const between = windows.find((w) => w >= io! && w < got!)!;
    expect(docMergeTask.schemes.io!({ size: 4, problem: mid, contextTokens: between }).operations[0]!.type).toBe('generate');
    expect(docMergeTask.schemes.got!({ size: 4, problem: mid, contextTokens: between }).operations[0]!.type).toBe('forEach');
  });
});

const real = (content: string) => content.slice(content.lastIndexOf(EXAMPLES_END));

describe('section prompts, answers and scores', () => {
  const room = generateDataRoom(5, 12_000, 6);
  const parts = sectionParts(room, 4_096);
  const part = parts.find((s) => s.documents.length > 1 && s.section > 0)!;
  const versions = sectionTexts(room.documents, part);
  const req = (name: string, thoughts: ThoughtState[]): PromptRequest => ({ prompt: name, params: {}, thoughts, problem: room });

  it.each(Object.keys(SECTION_MARKERS))('%s: marker first, the section named, the real input last, no other marker', (name) => {
    const content =
      name === 'judgeSection'
        ? docMergeTask.llmScorers!.judgeSection!.buildPrompt(draft(part, 'The candidate.'), room)[0]!.content
        : prompt(room, name, [draft(part, 'The draft.'), draft(part, 'Another draft.')])[0]!.content;
    expect(
      content.startsWith(`<Instruction> ${SECTION_MARKERS[name as keyof typeof SECTION_MARKERS]} This is the section "${part.title}"`),
    ).toBe(true);
    const markers = { ...DOC_MERGE_MARKERS, ...SECTION_MARKERS };
    for (const [other, marker] of Object.entries(markers)) if (other !== name) expect(content).not.toContain(marker);
    const input = real(content);
    if (name === 'aggregateSection') {
      expect(input).toContain('<Draft2>\nAnother draft.\n</Draft2>');
      expect(input).not.toContain('<Doc1>');
    } else {
      for (const d of part.documents) expect(input).toContain(versions[d]!);
    }
    // Only the part's documents: another document's version of this section is not there.
    const other = versions.findIndex((v, d) => v && !part.documents.includes(d));
    if (other !== -1) expect(input).not.toContain(versions[other]!);
  });

  it('parses an answer into a section thought; an unusable one keeps the section', () => {
    const [good] = docMergeTask.parseResponse(req('mergeSection', [part]), '<Merged>\nFees\nThe Customer pays monthly.\n</Merged>');
    // `end`: where the closing tag ends, so a merge cut after it still counts (decision 66).
    expect(good).toEqual({ state: { ...part, merged: 'Fees\nThe Customer pays monthly.' }, valid: true, end: 50 });
    const [bad] = docMergeTask.parseResponse(req('improveSection', [draft(part, 'x')]), 'I cannot help with that.');
    expect(bad!.valid).toBe(false);
    expect(bad!.state).toEqual(part);
    const halves = [draft({ ...part, documents: [part.documents[0]!] }, 'a'), draft({ ...part, documents: part.documents.slice(1) }, 'b')];
    const [fused] = docMergeTask.parseResponse(req('aggregateSection', halves), '<Merged>ab</Merged>');
    expect(fused!.state.documents).toEqual(part.documents);
  });

  it('refuses a thought that names no section, naming the field', () => {
    expect(() => prompt(room, 'mergeSection', [{ documents: [0] }])).toThrow(/state\.section/);
    expect(() => prompt(room, 'mergeSection', [{ ...part, section: 999 }])).toThrow(/state\.section: expected a section index/);
  });

  it('the judge sees the versions of the documents the draft merges, or an even sample when they do not fit', () => {
    const judge = docMergeTask.llmScorers!.judgeSection!;
    const long = generateDataRoom(5, 60_000, 6);
    // A draft of all five versions (an aggregation's), judged in a window that holds only some.
    const all = sectionParts(long, 128_000).find((s) => s.documents.length === 5 && s.section > 0)!;
    const narrow = { ...all, contextTokens: 4_096, answerTokens: 1_024 };
    const content = judge.buildPrompt(draft(narrow, 'Candidate.'), long)[0]!.content;
    expect(content).toMatch(/The \d of the 5 versions of the section .*, spread over them:/);
    expect(estimateChatTokens([{ role: 'user', content }]) + JUDGE_ANSWER_TOKENS).toBeLessThanOrEqual(4_096);
    expect(judge.parseRatings('<Redundancy>8</Redundancy><Retained>6</Retained>')).toEqual([8, 6]);
  });

  it('the local score rates a section draft against its versions, and the assembled document section by section', () => {
    const mine = versions.filter((_, d) => part.documents.includes(d)) as string[];
    const merged = mine.join('\n');
    expect(docMergeTask.score!(draft(part, merged), room)).toBeCloseTo(mergeScore(mine, merged));
    expect(docMergeTask.score!(part, room)).toBe(0);
    // Every section's versions, each section's first version only: retention below 10, no repeats.
    const whole = sectionParts(room, 128_000);
    const firstVersions = whole.map((s) => draft(s, sectionTexts(room.documents, s).find(Boolean)!));
    const [assembled] = docMergeTask.splits!.assemble!(firstVersions, room, {}) as [{ state: AssembledState }];
    const score = docMergeTask.score!(assembled.state, room);
    expect(score).toBeGreaterThan(5);
    expect(score).toBeLessThan(10);
    // A section left out counts as nothing retained of it.
    const without = docMergeTask.splits!.assemble!(firstVersions.slice(0, -5), room, {}) as [{ state: AssembledState }];
    expect(docMergeTask.score!(without[0].state, room)).toBeLessThan(score);
    // Each section's distinct statements once: a perfect merge.
    const perfect = whole.map((s) =>
      draft(
        s,
        informationUnits(sectionTexts(room.documents, s).filter(Boolean) as string[])
          .units.map((u) => u[0]!.text)
          .join(' '),
      ),
    );
    const [best] = docMergeTask.splits!.assemble!(perfect, room, {}) as [{ state: AssembledState }];
    expect(docMergeTask.score!(best.state, room)).toBeGreaterThan(9.5);
  });
});

describe('token estimates', () => {
  it('never count fewer tokens than the GPT tokenizer on contracts and section prompts', () => {
    const room = generateDataRoom(3, 20_000, 9);
    for (const d of room.documents) expect(estimateTokens(d)).toBeGreaterThanOrEqual(encode(d).length);
    const s = sectionParts(room, 8_192)[3]!;
    const content = prompt(room, 'mergeSection', [s]);
    expect(estimateChatTokens(content)).toBeGreaterThanOrEqual(encode(content[0]!.content).length + 7);
  });
});
