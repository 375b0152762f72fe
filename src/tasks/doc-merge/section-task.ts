import { ValidationError } from '../../goo/validate';
import type { ThoughtState } from '../../grs/types';
import { estimateTokens } from '../../llm/context-windows';
import { endOf } from '../answer-schema';
import type { LlmScorer, ParsedThought, PromptRequest } from '../task';
import { answerReserve, JUDGE_ANSWER_TOKENS, taggedTokens } from './budget';
import type { DocMergeProblem } from './dataset';
import { parseRatings, RATINGS_SCHEMA, readMerged } from './parse';
import {
  analyseMerge,
  combineRatings,
  combineWithMeasuredRetention,
  harmonicMean,
  informationUnits,
  mergeScore,
  UNPARSEABLE_SCORE,
} from './score';
import {
  aggregateSectionPrompt,
  improveSectionPrompt,
  judgeSectionPrompt,
  mergeSectionCotPrompt,
  mergeSectionPrompt,
} from './section-prompts';
import { alignmentOf, sectionTexts } from './sections';
import { type AssembledState, nameOf, type SectionState, sectionOverhead } from './splits';

/**
 * Document merging section by section, on the task's side: the section prompts recover their
 * sources from the problem by the thought's section index, the answers become section thoughts, a
 * judge rates a section draft against that section's versions, and the local score reads section
 * thoughts and the assembled document (decision 36).
 */

/** The named section prompts of the task. */
export const SECTION_PROMPTS = ['mergeSection', 'mergeSectionCot', 'aggregateSection', 'improveSection'] as const;
export type SectionPrompt = (typeof SECTION_PROMPTS)[number];
export const isSectionPrompt = (prompt: string): prompt is SectionPrompt => (SECTION_PROMPTS as readonly string[]).includes(prompt);

const positiveInt = (v: unknown) => Number.isInteger(v) && (v as number) > 0;

/** A thought's section fields, checked against the problem; the error names the field. */
export function sectionOf(state: ThoughtState, problem: DocMergeProblem): SectionState {
  const count = problem.documents.length;
  const sections = alignmentOf(problem.documents).sections.length;
  const issues: { path: string; message: string }[] = [];
  const s = state as Partial<SectionState>;
  if (!Number.isInteger(s.section) || s.section! < 0 || s.section! >= sections) {
    issues.push({ path: 'state.section', message: `expected a section index from 0 to ${sections - 1}, got ${JSON.stringify(s.section)}` });
  }
  const documents = s.documents;
  if (!Array.isArray(documents) || !documents.length || !documents.every((d) => Number.isInteger(d) && d >= 0 && d < count)) {
    issues.push({
      path: 'state.documents',
      message: `expected indices of documents from 0 to ${count - 1}, got ${JSON.stringify(documents)}`,
    });
  }
  if (typeof s.title !== 'string') issues.push({ path: 'state.title', message: 'expected the section title' });
  if (!positiveInt(s.contextTokens) || !positiveInt(s.answerTokens)) {
    issues.push({ path: 'state.contextTokens', message: 'expected the window the section was planned for (contextTokens, answerTokens)' });
  }
  if (s.pieces !== undefined && (!positiveInt(s.pieces) || !Number.isInteger(s.piece) || s.piece! < 0 || s.piece! >= s.pieces)) {
    issues.push({
      path: 'state.piece',
      message: `expected piece 0 to ${(s.pieces ?? 1) - 1} of ${s.pieces}, got ${JSON.stringify(s.piece)}`,
    });
  }
  if (issues.length) throw new ValidationError('section thought', issues);
  return s as SectionState;
}

/** The versions of a thought's section (piece) in the documents it merges, in document order. */
function versionsOf(problem: DocMergeProblem, s: SectionState, documents = s.documents): string[] {
  const texts = sectionTexts(problem.documents, s);
  return [...documents].sort((a, b) => a - b).flatMap((d) => texts[d] ?? []);
}

/** Indices 0..n-1 spread evenly, k of them. */
const spread = (n: number, k: number) => Array.from({ length: k }, (_, i) => Math.floor((i * n) / k));

/**
 * The versions one prompt can carry beside `reserved` tokens (a draft and the answer): all of them
 * when they fit, else as many as fit, spread evenly over the documents. Only a draft that merges
 * more documents than one prompt holds (an aggregation's) is rated or improved on such a sample.
 */
function versionsThatFit(texts: readonly string[], s: SectionState, reserved: number): string[] {
  const budget = s.contextTokens - sectionOverhead(nameOf(s)) - reserved;
  const sizes = taggedTokens(texts);
  for (let k = texts.length; k > 1; k--) {
    const chosen = spread(texts.length, k);
    if (chosen.reduce((sum, i) => sum + sizes[i]!, 0) <= budget) return chosen.map((i) => texts[i]!);
  }
  return texts.slice(0, 1);
}

const draftOf = (s: ThoughtState) => (typeof s.merged === 'string' ? s.merged : undefined);

/** The documents an aggregation covers: the union of its drafts'. */
const unionOf = (states: readonly SectionState[]) => [...new Set(states.flatMap((s) => s.documents))].sort((a, b) => a - b);

/** The section prompt a request asks for. */
export function sectionPrompt(req: PromptRequest & { prompt: SectionPrompt }, problem: DocMergeProblem): string {
  const s = sectionOf(req.thoughts[0] ?? {}, problem);
  const name = nameOf(s);
  switch (req.prompt) {
    case 'mergeSection':
      return mergeSectionPrompt(name, versionsOf(problem, s));
    case 'mergeSectionCot':
      return mergeSectionCotPrompt(name, versionsOf(problem, s));
    case 'aggregateSection': {
      const drafts = req.thoughts.flatMap((t) => draftOf(t) ?? []);
      if (drafts.length) return aggregateSectionPrompt(name, drafts);
      // With no readable draft left, aggregating degrades to merging afresh what one prompt holds.
      const documents = unionOf(req.thoughts.map((t) => sectionOf(t, problem)));
      const texts = versionsOf(problem, s, documents);
      return mergeSectionPrompt(name, versionsThatFit(texts, s, answerReserve(taggedTokens(texts), s)));
    }
    case 'improveSection': {
      const draft = draftOf(s) ?? '';
      const texts = versionsOf(problem, s);
      return improveSectionPrompt(name, versionsThatFit(texts, s, estimateTokens(draft) + answerReserve(taggedTokens(texts), s)), draft);
    }
  }
}

/** One answer to a section prompt as a section thought: the input's section, the documents it merges, the draft. */
export function parseSectionAnswer(
  req: PromptRequest & { prompt: SectionPrompt },
  problem: DocMergeProblem,
  text: string,
): ParsedThought[] {
  const inputs = req.thoughts.map((t) => sectionOf(t, problem));
  const { section, piece, pieces, title, contextTokens, answerTokens } = inputs[0]!;
  const documents = req.prompt === 'aggregateSection' ? unionOf(inputs) : inputs[0]!.documents;
  const state: SectionState = {
    documents,
    section,
    ...(pieces !== undefined ? { piece, pieces } : {}),
    title,
    contextTokens,
    answerTokens,
  };
  const answer = readMerged(text, versionsOf(problem, state));
  if (!answer.ok) return [{ state, valid: false, error: answer.error }];
  return [
    { state: { ...state, merged: answer.merged, ...(answer.untagged ? { untagged: true as const } : {}) }, valid: true, ...endOf(answer) },
  ];
}

/** The judge of a section draft: its section's versions (as many as one prompt holds), then the candidate. */
export const judgeSection: LlmScorer<DocMergeProblem> = {
  buildPrompt(state, problem) {
    const s = sectionOf(state, problem);
    const candidate = draftOf(s) ?? '';
    const texts = versionsOf(problem, s);
    const shown = versionsThatFit(texts, s, estimateTokens(candidate) + JUDGE_ANSWER_TOKENS);
    return [{ role: 'user', content: judgeSectionPrompt(nameOf(s), shown, candidate, texts.length) }];
  },
  parseRatings,
  combine: combineRatings,
  unparseableScore: UNPARSEABLE_SCORE,
  ratingsSchema: RATINGS_SCHEMA,
};

/** The section judge, its retention rating replaced by the engine's measure against the section's versions (decision 82). */
export const judgeSectionKept: LlmScorer<DocMergeProblem> = {
  ...judgeSection,
  combine: (samples, { state, problem }) => {
    const s = sectionOf(state, problem);
    return combineWithMeasuredRetention(samples, draftOf(s) ?? '', versionsOf(problem, s));
  },
};

/** The local score of a section draft: the clause-level proxy against all versions of its documents. */
export function sectionScore(s: SectionState, problem: DocMergeProblem): number {
  const merged = draftOf(s);
  return merged === undefined ? UNPARSEABLE_SCORE : mergeScore(versionsOf(problem, s), merged);
}

/**
 * The local score of the assembled document: the proxy's two ratings summed over sections (each
 * section's draft against every document's version of it; a section missing from the document
 * counts as nothing retained), then their harmonic mean. Repeats across sections are not counted:
 * the sections say different things.
 */
export function assembledScore(state: AssembledState, problem: DocMergeProblem): number {
  const merged = draftOf(state);
  if (merged === undefined) return UNPARSEABLE_SCORE;
  const entries = new Map(state.outline.map((e) => [`${e.section}/${e.piece ?? 0}`, e]));
  const piecesOf = new Map(state.outline.map((e) => [e.section, e.pieces ?? 1]));
  let units = 0;
  let kept = 0;
  let clauses = 0;
  let repeated = 0;
  alignmentOf(problem.documents).sections.forEach((_, section) => {
    const pieces = piecesOf.get(section) ?? 1;
    for (let piece = 0; piece < pieces; piece++) {
      const sources = sectionTexts(problem.documents, { section, piece, pieces }).flatMap((t) => t ?? []);
      if (!sources.length) continue;
      const entry = entries.get(`${section}/${piece}`);
      if (!entry) {
        units += informationUnits(sources).units.length;
        continue;
      }
      const analysis = analyseMerge(sources, merged.slice(entry.start, entry.end));
      units += analysis.units.length;
      kept += analysis.coverage.filter((c) => c > 0).length;
      clauses += analysis.mergedClauses.length;
      repeated += analysis.redundant.filter(Boolean).length;
    }
  });
  const redundancy = 10 * Math.max(0, 1 - 2 * (clauses ? repeated / clauses : 0));
  const retention = units ? (10 * kept) / units : 10;
  return harmonicMean(redundancy, retention);
}
