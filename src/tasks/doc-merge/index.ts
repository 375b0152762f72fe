import { ValidationError } from '../../goo/validate';
import type { ThoughtState } from '../../grs/types';
import { type AnswerSchema, answerSchema, endOf, stringField } from '../answer-schema';
import type { ChatMessage, LlmScorer, ParsedThought, PromptRequest, Task } from '../task';
import { clauseSplits } from './clause-groups/scheme';
import {
  CLAUSE_PROMPTS,
  clausePrompt,
  type GroupState,
  groupScore,
  isClausePrompt,
  isGroupState,
  parseClauseAnswer,
} from './clause-groups/task';
import { DocMergeProblem, generateDocMergeProblem, parseDocMergeCsv } from './dataset';
import { parseRatings, RATINGS_SCHEMA, readMerged } from './parse';
import { aggregatePrompt, improvePrompt, judgePrompt, mergeCotPrompt, mergePrompt } from './prompts';
import { docMergeReviewer } from './review';
import { docMergeSchemes, docMergeTunables } from './schemes';
import { combineRatings, combineWithMeasuredRetention, measuredMergeScore, mergeScore, UNPARSEABLE_SCORE } from './score';
import {
  assembledScore,
  isSectionPrompt,
  judgeSection,
  judgeSectionKept,
  parseSectionAnswer,
  SECTION_PROMPTS,
  sectionOf,
  sectionPrompt,
  sectionScore,
} from './section-task';
import { type AssembledState, docMergeSplits } from './splits';

export { DocMergeProblem } from './dataset';

/**
 * A document merging thought: `documents` are the indices of the source NDAs it merges (all of
 * them, or one half in GoT2), `merged` the model's merged NDA. The source texts stay in the
 * problem, which every prompt request carries, so thoughts stay small.
 */
export interface DocMergeState extends ThoughtState {
  documents: number[];
  merged?: string;
  /** The answer had no <Merged> tags: its text is kept as the merge, judged like any other (decision 28). */
  untagged?: true;
}

const asState = (s: ThoughtState) => s as Partial<DocMergeState>;

function problemOf(req: PromptRequest): DocMergeProblem {
  const documents = (req.problem as Partial<DocMergeProblem> | undefined)?.documents;
  if (!Array.isArray(documents)) throw new Error('the prompt request carries no problem, so the source documents are unknown');
  return req.problem as DocMergeProblem;
}

const sourcesOf = (req: PromptRequest): string[] => problemOf(req).documents;

function indicesProblem(value: unknown, count: number): string | undefined {
  const ok =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((i) => Number.isInteger(i) && i >= 0 && i < count) &&
    new Set(value).size === value.length;
  return ok ? undefined : `expected distinct indices of documents from 0 to ${count - 1}, got ${JSON.stringify(value)}`;
}

/** Checks indices of documents (from a GoO's params or a state) against the sources. */
function indicesOf(value: unknown, count: number, where: string): number[] {
  const problem = indicesProblem(value, count);
  if (problem) throw new ValidationError('document merging prompt', [{ path: where, message: problem }]);
  return value as number[];
}

/** The documents a prompt is about: `params.documents` at a root, else the input thought's. */
function documentsOf(req: PromptRequest, count: number): number[] {
  if (req.params.documents !== undefined) return indicesOf(req.params.documents, count, 'params.documents');
  const own = asState(req.thoughts[0] ?? {}).documents;
  return Array.isArray(own) && own.length ? indicesOf(own, count, 'state.documents') : Array.from({ length: count }, (_, i) => i);
}

/** The union of the inputs' documents: an aggregate of the two halves covers all of them. */
function aggregateInput(req: PromptRequest, count: number): { documents: number[]; drafts: string[] } {
  const documents = [...new Set(req.thoughts.flatMap((t) => asState(t).documents ?? []))].sort((a, b) => a - b);
  const drafts = req.thoughts.flatMap((t) => (typeof asState(t).merged === 'string' ? [asState(t).merged!] : []));
  return { documents: documents.length ? documents : Array.from({ length: count }, (_, i) => i), drafts };
}

function inputDocuments(req: PromptRequest): number[] {
  const count = sourcesOf(req).length;
  return req.prompt === 'aggregate' ? aggregateInput(req, count).documents : documentsOf(req, count);
}

const textsOf = (req: PromptRequest, documents: number[]) => documents.map((i) => sourcesOf(req)[i]!);

/** The documents a merge thought merges (all of them for a thought from an unreadable answer, which has no indices). */
function judgedDocuments(state: ThoughtState, problem: DocMergeProblem): number[] {
  const { documents } = asState(state);
  return Array.isArray(documents) && documents.length
    ? indicesOf(documents, problem.documents.length, 'state.documents')
    : problem.documents.map((_, i) => i);
}

const judge: LlmScorer<DocMergeProblem> = {
  buildPrompt(state, problem): ChatMessage[] {
    const { merged } = asState(state);
    const indices = judgedDocuments(state, problem);
    return [
      {
        role: 'user',
        content: judgePrompt(
          indices.map((i) => problem.documents[i]!),
          merged ?? '',
        ),
      },
    ];
  },
  parseRatings,
  combine: combineRatings,
  unparseableScore: UNPARSEABLE_SCORE,
  ratingsSchema: RATINGS_SCHEMA,
};

/** The same judge, its retention rating replaced by the engine's measure of the clauses kept (decision 82). */
const judgeKept: LlmScorer<DocMergeProblem> = {
  ...judge,
  combine: (samples, { state, problem }) =>
    combineWithMeasuredRetention(
      samples,
      asState(state).merged ?? '',
      judgedDocuments(state, problem).map((i) => problem.documents[i]!),
    ),
};

/** The answer each prompt expects as JSON (structured output): the merged document as one string, after the working notes for CoT. */
function docMergeSchema({ prompt }: PromptRequest): AnswerSchema | undefined {
  if (prompt === 'mergeCot' || prompt === 'mergeSectionCot')
    return answerSchema(`doc_merge_${prompt}`, { notes: stringField, merged: stringField });
  return docMergeTask.prompts.includes(prompt) ? answerSchema(`doc_merge_${prompt}`, { merged: stringField }) : undefined;
}

export const docMergeTask: Task<DocMergeProblem> = {
  id: 'doc-merge',
  title: 'Merging overlapping NDAs',
  problem: DocMergeProblem,
  higherIsBetter: true,
  noAnswerScore: UNPARSEABLE_SCORE,
  sizes: [4],
  prompts: ['merge', 'mergeCot', 'aggregate', 'improve', ...SECTION_PROMPTS, ...CLAUSE_PROMPTS],
  schemes: docMergeSchemes,
  splits: { ...docMergeSplits, ...clauseSplits },
  tunables: docMergeTunables,
  sizeOf: (p) => p.documents.length,
  sizeMeans: 'documents',
  rootState: (p): DocMergeState => ({ documents: p.documents.map((_, i) => i) }),
  checkParams: (_prompt, params, problem) => {
    if (params.documents === undefined) return [];
    const problemWith = indicesProblem(params.documents, problem.documents.length);
    return problemWith ? [`documents: ${problemWith}`] : [];
  },
  answerText: (state) => asState(state).merged ?? `(no merged NDA: ${String(state.answer ?? 'unparseable answer')})`,
  parseDataset: parseDocMergeCsv,
  // The paper's samples of four NDAs each: one file for the one size.
  datasetFile: () => 'documents.csv',
  problemFromFiles: (files) => ({
    documents: files.map((f) => f.text),
    // Sources are named only when every file was read as a document: a name per index or none.
    ...(files.every((f) => f.source) ? { sources: files.map((f) => f.source!) } : {}),
  }),
  reviewer: docMergeReviewer,
  generateProblem: generateDocMergeProblem,
  llmScorers: { judge, judgeKept, judgeSection, judgeSectionKept },

  buildPrompt(req: PromptRequest): ChatMessage[] {
    const content = (() => {
      if (isSectionPrompt(req.prompt)) return sectionPrompt({ ...req, prompt: req.prompt }, problemOf(req));
      if (isClausePrompt(req.prompt)) return clausePrompt({ ...req, prompt: req.prompt }, problemOf(req));
      switch (req.prompt) {
        case 'merge':
          return mergePrompt(textsOf(req, documentsOf(req, sourcesOf(req).length)));
        case 'mergeCot':
          return mergeCotPrompt(textsOf(req, documentsOf(req, sourcesOf(req).length)));
        case 'aggregate': {
          const input = aggregateInput(req, sourcesOf(req).length);
          // With no readable draft left, aggregating degrades to merging the sources afresh.
          return input.drafts.length
            ? aggregatePrompt(textsOf(req, input.documents), input.drafts)
            : mergePrompt(textsOf(req, input.documents));
        }
        case 'improve':
          return improvePrompt(textsOf(req, documentsOf(req, sourcesOf(req).length)), asState(req.thoughts[0]!).merged ?? '');
        default:
          throw new Error(`doc-merge has no prompt "${req.prompt}"`);
      }
    })();
    return [{ role: 'user', content }];
  },

  answerSchema: (req) => docMergeSchema(req),

  parseResponse(req: PromptRequest, text: string): ParsedThought[] {
    if (isSectionPrompt(req.prompt)) return parseSectionAnswer({ ...req, prompt: req.prompt }, problemOf(req), text);
    if (isClausePrompt(req.prompt)) return parseClauseAnswer({ ...req, prompt: req.prompt }, problemOf(req), text);
    const documents = inputDocuments(req);
    const state: DocMergeState = { documents };
    const answer = readMerged(text, textsOf(req, documents));
    if (!answer.ok) return [{ state, valid: false, error: answer.error }];
    return [
      {
        state: { ...state, merged: answer.merged, ...(answer.untagged ? { untagged: true as const } : {}) },
        valid: true,
        ...endOf(answer),
      },
    ];
  },

  score(state, problem) {
    if (Array.isArray(state.outline)) return assembledScore(state as AssembledState, problem);
    if (state.section !== undefined) return sectionScore(sectionOf(state, problem), problem);
    if (isGroupState(state)) return groupScore(state as GroupState, problem);
    // The clause merge's join (decision 97): a whole room's merge, scored by the review's measures.
    if (state.joined === true && typeof state.merged === 'string') return measuredMergeScore(problem.documents, state.merged);
    const { documents, merged } = asState(state);
    if (merged === undefined) return UNPARSEABLE_SCORE;
    const chosen = Array.isArray(documents) ? documents.flatMap((i) => problem.documents[i] ?? []) : [];
    return mergeScore(chosen.length ? chosen : problem.documents, merged);
  },
};
