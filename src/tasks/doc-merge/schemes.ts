import { GooBuilder } from '../../goo/builder';
import type { GoO, Operation } from '../../goo/schema';
import { estimateTokens, UNKNOWN_MODEL_CONTEXT_TOKENS } from '../../llm/context-windows';
import { choiceParam, intParam, resolveConfig, type SearchSpace } from '../../tune/space';
import type { SchemeOptions } from '../task';
import { answerReserve, answerTokensFor, CHAT_TOKENS, taggedTokens } from './budget';
import { clauseScheme } from './clause-groups/scheme';
import { DocMergeProblem } from './dataset';
import { aggregatePrompt, improvePrompt, judgePrompt, mergeCotPrompt, mergePrompt } from './prompts';
import { type SectionedScheme, sectionedScheme } from './sectioned-schemes';

/**
 * The paper's document merging experiments as GoOs (REFERENCE-GOO.md): every Score asks the LLM
 * judge 3 times, and higher scores are better. IO and CoT merge once; ToT refines the best of 10
 * merges twice; GoT aggregates the best 3 merges and refines; GoT2 merges each half of the
 * documents on its own, aggregates the two halves and refines.
 *
 * Given the model's context window, a scheme whose largest prompt (with its answer) would not fit
 * becomes its sectioned form (`sectioned-schemes.ts`, decision 36); otherwise, and without a
 * window, it is exactly the GoO above.
 */

const HIGHER = { higherIsBetter: true } as const;
const JUDGE = { llm: { prompt: 'judge', samples: 3 } } as const;

function single(prompt: 'merge' | 'mergeCot'): GoO {
  const b = new GooBuilder();
  b.score(b.generate(null, { prompt, id: prompt }), { ...JUDGE, id: 'final' });
  return b.build();
}

/** Who rates what the merges keep in every judgement: the LLM judge (the paper) or the engine's measure (decision 82). */
const RETENTION = {
  retention: choiceParam(
    ['judged', 'measured'],
    'judged',
    "who rates retention in each judgement: the LLM judge (the paper's), or the engine's measure of the sources' clauses the merge keeps",
  ),
};

/**
 * When the documents are merged section by section (decision 87): only when they do not fit one
 * prompt (the paper's merges of the NDAs are whole), or always, which a small model needs: asked for
 * four whole NDAs at once, Qwen2.5-Coder-1.5B restated the first and dropped the rest.
 */
const SECTIONS = {
  sections: choiceParam(
    ['when-needed', 'always'],
    'when-needed',
    'merge section by section only when the documents do not fit one prompt (the paper), or always (small prompts, which small models keep more of)',
  ),
};

/** The judges a measured-retention scheme uses instead of the paper's (decision 82). */
const KEPT_SCORERS: Record<string, string> = { judge: 'judgeKept', judgeSection: 'judgeSectionKept' };

/** The GoO with each LLM judge of a merge replaced by its measured-retention form, inside forEach bodies too. */
export function withMeasuredRetention(goo: GoO): GoO {
  const swap = (op: Operation): Operation => {
    if (op.type === 'forEach') return { ...op, body: op.body.map(swap) };
    if (op.type === 'score' && op.scorer.kind === 'llm' && KEPT_SCORERS[op.scorer.prompt])
      return { ...op, scorer: { ...op.scorer, prompt: KEPT_SCORERS[op.scorer.prompt]! } };
    return op;
  };
  return { ...goo, operations: goo.operations.map(swap) };
}

/** What `got tune` may change in each scheme (FoT tuned GoT's merges, kept merges, aggregations and improvements). */
export const docMergeTunables = {
  io: () => ({ ...RETENTION, ...SECTIONS }),
  cot: () => ({ ...RETENTION, ...SECTIONS }),
  tot: () => ({
    ...RETENTION,
    ...SECTIONS,
    branches: intParam(2, 15, 10, 'samples of the first merge and of each improvement level'),
    levels: intParam(1, 4, 2, 'improvement levels'),
  }),
  got: () => ({
    ...RETENTION,
    ...SECTIONS,
    merges: intParam(1, 10, 5, 'merges of all documents'),
    keepBest: intParam(1, 5, 3, 'best merges aggregated'),
    aggregations: intParam(1, 10, 5, 'samples of the aggregation'),
    improvements: intParam(1, 15, 10, 'samples of the final improvement'),
  }),
  got2: () => ({
    ...RETENTION,
    ...SECTIONS,
    merges: intParam(1, 10, 5, 'merges of each half'),
    aggregations: intParam(1, 10, 5, 'samples of the aggregation of the halves'),
    improvements: intParam(1, 10, 5, 'samples of the final improvement'),
  }),
  // Clause by clause (issue 38): the engine aligns the clauses, the model merges each group that differs.
  clauses: () => ({
    candidates: intParam(1, 10, 3, 'merges asked of each clause group whose clauses differ'),
    improvements: intParam(1, 10, 2, 'improvements asked of a group whose best merge the engine scores weak'),
  }),
} satisfies Record<string, (size: number) => SearchSpace>;

const paramsOf = (scheme: keyof typeof docMergeTunables, o: SchemeOptions) =>
  resolveConfig(docMergeTunables[scheme](), o.params) as Record<string, number> & {
    retention?: 'judged' | 'measured';
    sections?: 'when-needed' | 'always';
  };

function tot(o: SchemeOptions): GoO {
  const p = paramsOf('tot', o);
  const b = new GooBuilder();
  let best = b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: p.branches }), JUDGE), { n: 1, ...HIGHER });
  for (let level = 0; level < p.levels!; level++) {
    const improved = b.score(b.generate(best, { prompt: 'improve', k: p.branches }), JUDGE);
    best = b.keepBestN([improved, best], { n: 1, ...HIGHER, ...(level === p.levels! - 1 ? { id: 'final' } : {}) });
  }
  return b.build();
}

function got(o: SchemeOptions): GoO {
  const p = paramsOf('got', o);
  const b = new GooBuilder();
  const drafts = b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: p.merges }), JUDGE), { n: p.keepBest!, ...HIGHER });
  const aggregated = b.score(b.aggregate(drafts, { prompt: 'aggregate', k: p.aggregations }), JUDGE);
  const best = b.keepBestN([aggregated, drafts], { n: 1, ...HIGHER });
  const improved = b.score(b.generate(best, { prompt: 'improve', k: p.improvements }), JUDGE);
  b.keepBestN([improved, best], { n: 1, ...HIGHER, id: 'final' });
  return b.build();
}

/** The documents' indices cut in two: the first half (one more when odd) and the rest. */
export function halves(count: number): [number[], number[]] {
  const all = Array.from({ length: count }, (_, i) => i);
  const cut = Math.ceil(count / 2);
  return [all.slice(0, cut), all.slice(cut)];
}

function got2(o: SchemeOptions): GoO {
  const { size } = o;
  const p = paramsOf('got2', o);
  if (!Number.isInteger(size) || size < 2)
    throw new RangeError(`got2 merges two halves of the documents: it needs at least 2 documents, got ${size}`);
  const b = new GooBuilder();
  const parts = halves(size).map((documents, i) =>
    b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: p.merges, id: `merge-half-${i + 1}`, params: { documents } }), JUDGE), {
      n: 1,
      ...HIGHER,
    }),
  );
  const best = b.keepBestN(b.score(b.aggregate(parts, { prompt: 'aggregate', k: p.aggregations }), JUDGE), { n: 1, ...HIGHER });
  const improved = b.score(b.generate(best, { prompt: 'improve', k: p.improvements }), JUDGE);
  b.keepBestN([improved, best], { n: 1, ...HIGHER, id: 'final' });
  return b.build();
}

/**
 * The largest prompt of each scheme on the whole documents, with what it leaves free: the answer
 * and the drafts it carries (a judge's candidate, ToT's draft to improve, GoT's three drafts to
 * aggregate, GoT2's two halves), each planned as long as the expected merge.
 */
const LARGEST_PROMPTS: Record<SectionedScheme, { prompts: (documents: string[]) => string[]; drafts: number }> = {
  io: { prompts: (d) => [mergePrompt(d), judgePrompt(d, '')], drafts: 1 },
  cot: { prompts: (d) => [mergeCotPrompt(d), judgePrompt(d, '')], drafts: 1 },
  tot: { prompts: (d) => [improvePrompt(d, ''), judgePrompt(d, '')], drafts: 1 },
  got: { prompts: (d) => [aggregatePrompt(d, ['', '', '']), improvePrompt(d, '')], drafts: 3 },
  got2: { prompts: (d) => [aggregatePrompt(d, ['', '']), improvePrompt(d, '')], drafts: 2 },
};

/** Whether a scheme's prompts over the whole documents fit the window, each with its answer (decision 36). */
export function fitsWhole(scheme: SectionedScheme, problem: DocMergeProblem, contextTokens: number): boolean {
  const { prompts, drafts } = LARGEST_PROMPTS[scheme];
  const reserve = answerReserve(taggedTokens(problem.documents), { contextTokens, answerTokens: answerTokensFor(contextTokens) });
  const largest = Math.max(...prompts(problem.documents).map(estimateTokens));
  return CHAT_TOKENS + largest + (drafts + 1) * reserve <= contextTokens;
}

/**
 * The scheme as it always was when its prompts fit (or no window is known), else its sectioned form;
 * with `sections: always`, the sectioned form whatever the window (planned for the model's window, or
 * UNKNOWN_MODEL_CONTEXT_TOKENS), its merge judged whole where the judge's prompt fits; with
 * `retention: measured`, its judges rate retention by the engine's measure.
 */
const windowed =
  (scheme: SectionedScheme, whole: (o: SchemeOptions<DocMergeProblem>) => GoO) =>
  (o: SchemeOptions<DocMergeProblem>): GoO => {
    const { problem, contextTokens } = o;
    const params = paramsOf(scheme, o);
    const always = params.sections === 'always';
    // A problem not yet validated (a user's files) is planned only when valid; the run's check says what
    // is wrong with it. Without a window and without `always` nothing is planned, so nothing is checked.
    const plannable = (always || contextTokens !== undefined) && DocMergeProblem.safeParse(problem).success;
    let goo: GoO;
    if (plannable && always) {
      const window = contextTokens ?? UNKNOWN_MODEL_CONTEXT_TOKENS;
      goo = sectionedScheme(scheme, problem!, window, { judgeWhole: fitsWhole('io', problem!, window) });
    } else if (!plannable || fitsWhole(scheme, problem!, contextTokens!)) goo = whole(o);
    else goo = sectionedScheme(scheme, problem!, contextTokens!);
    return params.retention === 'measured' ? withMeasuredRetention(goo) : goo;
  };

export const docMergeSchemes = {
  io: windowed('io', () => single('merge')),
  cot: windowed('cot', () => single('mergeCot')),
  tot: windowed('tot', tot),
  got: windowed('got', got),
  got2: windowed('got2', got2),
  clauses: (o: SchemeOptions<DocMergeProblem>): GoO => {
    const p = paramsOf('clauses', o);
    const valid = DocMergeProblem.safeParse(o.problem).success;
    const window = o.contextTokens ?? UNKNOWN_MODEL_CONTEXT_TOKENS;
    return clauseScheme(o.problem, {
      candidates: p.candidates!,
      improvements: p.improvements!,
      judgeWhole: valid && fitsWhole('io', o.problem!, window),
    });
  },
} satisfies Record<string, (o: SchemeOptions<DocMergeProblem>) => GoO>;
