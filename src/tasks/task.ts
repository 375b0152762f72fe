import type { z } from 'zod';
import type { AnswerReview, ReviewDecision, SourceInfo } from '../documents/types';
import type { GoO } from '../goo/schema';
import type { ThoughtState } from '../grs/types';
import type { PromptLayout, PromptSet } from '../prompts/parts';
import type { Config, SearchSpace } from '../tune/space';
import type { AnswerSchema } from './answer-schema';

/**
 * A use case of the paper: how to phrase its prompts, read the answers, score the thoughts and
 * which GoO each prompting scheme uses. Adding a task touches only `src/tasks/<task>/`: the
 * Controller never learns what a task is about.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What one LLM prompt is about: the named prompt of the task, its parameters and input thoughts. */
export interface PromptRequest {
  prompt: string;
  params: Record<string, unknown>;
  /** One thought for generate/improve/score, all input thoughts for aggregate. */
  thoughts: ThoughtState[];
  /** The run's problem (already validated), so thoughts need not carry large inputs such as the documents to merge. */
  problem?: unknown;
  /** The run's prompt set (a built-in task's prompts reworded, src/prompts): tasks with `promptLayouts` apply it. */
  prompts?: PromptSet;
}

export interface ParsedThought {
  state: ThoughtState;
  valid: boolean;
  error?: string;
  /** Set by the engine on an invalid thought: the start of the answer it was read from. */
  said?: string;
  /** Set by the engine: what a reasoning model thought before the answer this thought was read from. */
  reasoning?: string;
  /**
   * Where in the answer's text the structure this thought was read from closed (just past its `]`,
   * `}` or closing tag); absent when it has no closing mark (numbers after a label, an untagged
   * document). The engine keeps an answer cut at max tokens only when this is set and the cut left no
   * structure open (decision 66); it is not recorded.
   */
  end?: number;
}

export interface SchemeOptions<P = unknown> {
  /** Problem size where the scheme's shape depends on it (e.g. 32/64/128 elements). */
  size: number;
  /** The problem itself, for schemes whose shape follows its content (e.g. one branch per sentence). */
  problem?: P;
  /**
   * The model's context window in tokens (prompt and answer together), for schemes that must keep
   * every prompt inside it. Absent: the scheme assumes its prompts fit, and keeps the shape it always had.
   */
  contextTokens?: number;
  /** Values for the scheme's tunable parameters (`Task.tunables`); those left out take the paper's value. */
  params?: Config;
}

/** An LLM judge: asks the model to rate a thought, `samples` times, and combines the ratings into a score. */
export interface LlmScorer<P> {
  buildPrompt(state: ThoughtState, problem: P): ChatMessage[];
  /** The ratings in one answer (e.g. redundancy and retention), or undefined when the answer has none. */
  parseRatings(text: string): number[] | undefined;
  /**
   * Combines the parsed samples into one score; called with at least one sample. `rated` is the
   * thought rated and the problem, for a scorer that measures part of the score itself.
   */
  combine(samples: number[][], rated: { state: ThoughtState; problem: P }): number;
  /** The score when no sample could be parsed. */
  unparseableScore: number;
  /** The JSON Schema of one answer's ratings, asked of endpoints with structured output (decision 65); `parseRatings` reads it too. */
  ratingsSchema?: AnswerSchema;
}

/**
 * One part a split makes for a forEach (see `Task.splits`): a new thought (its parents are all the
 * forEach's input thoughts), a group of input thoughts (by index) the body runs on, or input
 * thoughts passed straight to the forEach's output without running the body.
 */
export type Part = { state: ThoughtState } | { thoughts: number[] } | { keep: number[] };

/**
 * A named split: cuts a forEach's input thoughts into parts. Pure and deterministic; it runs in a
 * local activity, so its parts are recorded in history and a replay grows the same graph.
 */
export type Split<P> = (inputs: ThoughtState[], problem: P, params: Record<string, unknown>) => Part[];

export interface Sample<P> {
  id: string;
  problem: P;
}

export interface Task<P = unknown> {
  id: string;
  title: string;
  /** The problem a run solves; validated before any LLM call. */
  problem: z.ZodType<P>;
  /** How the score reads: error counts are lower-is-better, quality scores higher-is-better. */
  higherIsBetter: boolean;
  /** The score of an answer that could not be read; also what a run that ends with no scored thought counts as in evaluations. */
  noAnswerScore: number;
  /** Sizes the paper evaluates; schemes accept these. */
  sizes: readonly number[];
  /** The named prompts this task can build (checked against the GoO before a run). */
  prompts: readonly string[];
  schemes: Record<string, (o: SchemeOptions<P>) => GoO>;
  /**
   * Each scheme's tunable parameters for a problem size (ranges, and the paper's values as
   * defaults): what `got tune` searches, and what `SchemeOptions.params` may set. Built-in tasks
   * declare one for every scheme (an empty space where nothing is tunable).
   */
  tunables?: Record<string, (size: number) => SearchSpace>;
  /** The problem's size, used to pick a scheme shape (e.g. the list length). */
  sizeOf(problem: P): number;
  /** What `sizeOf` counts, in words (e.g. "numbers in the list"): how the contract's task catalogue explains a scheme's default size. */
  sizeMeans?: string;
  rootState(problem: P): ThoughtState;
  /** A thought's answer as a person reads it (the sorted list, the merged document...). */
  answerText(state: ThoughtState): string;
  buildPrompt(req: PromptRequest): ChatMessage[];
  /**
   * The prompts whose instruction, format, approach and examples a prompt set may reword (src/prompts),
   * by name; `buildPrompt` applies `PromptRequest.prompts` to them. Absent: the task's prompts are fixed.
   */
  promptLayouts?: Record<string, PromptLayout<PromptRequest>>;
  /**
   * Turns one sampled answer into thoughts; one answer may yield several (a split) or an invalid
   * one. Also called with '' for an empty or refused answer, so the invalid thought keeps the
   * task's context.
   */
  parseResponse(req: PromptRequest, text: string): ParsedThought[];
  /**
   * The JSON Schema of the answer a prompt expects (strict-mode compatible: see `answer-schema.ts`),
   * sent to endpoints with structured output (`llm.structuredOutput`, decision 65); undefined for a
   * prompt answered as free text only. `parseResponse` reads an answer in this shape as well as the
   * free text the prompt asks for.
   */
  answerSchema?(req: PromptRequest): AnswerSchema | undefined;
  /** Checks an operation's task-specific `params` before a run; returns problems, naming the param. */
  checkParams?(prompt: string, params: Record<string, unknown>, problem: P): string[];
  /** Local score of a thought (no LLM); lower or higher is better per `higherIsBetter`. */
  score?(state: ThoughtState, problem: P): number;
  /** Splits by name, for forEach operations with `parts: { split }`. */
  splits?: Record<string, Split<P>>;
  /** LLM judges by name, for Score operations with an `llm` scorer. */
  llmScorers?: Record<string, LlmScorer<P>>;
  /** Local validity check used by ValidateAndImprove. */
  validate?(state: ThoughtState, problem: P): boolean;
  /** The reference dataset file for a size, e.g. `sorting_064.csv` (looked up in a dataset folder; `got eval --dataset-dir` reads it). */
  datasetFile?(size: number): string;
  /** Upper end of the score axis in figures: errors beyond it are clamped (the paper clamps at the list length). */
  plotMax?(size: number): number;
  /** Reads the reference dataset format (CSV text); errors name the row and column. */
  parseDataset(csv: string): Sample<P>[];
  /**
   * The problem made of a user's own files (e.g. the documents to merge); validated like any problem.
   * `source` says what a file was (its name, format and pages) when it was read as a document (src/documents).
   */
  problemFromFiles?(files: { path: string; text: string; source?: SourceInfo }[]): P;
  /** The engine's own review of an answer, computed from the problem, never taken on the model's word (document merges). */
  reviewer?: AnswerReviewer<P>;
  /** A reproducible problem of the given size, for demos and benchmarks without a dataset. */
  generateProblem(size: number, seed: number): P;
  /** Whether a thought solves the problem exactly. */
  groundTruth?(state: ThoughtState, problem: P): boolean;
}

/**
 * Reviews a task's answer: for a document merge, where each clause came from and where the sources
 * disagree; and applies a person's decisions on those disagreements. Pure and deterministic.
 */
export interface AnswerReviewer<P> {
  /** The review of an answer's text (`answerText`), and the sources' display names. */
  review(answer: string, problem: P): { review: AnswerReview; documents: string[] };
  /** Problems with a person's decisions (unknown ids, documents out of range); empty when they can be applied. */
  checkDecisions(review: AnswerReview, decisions: ReviewDecision[]): string[];
  /** The answer's text with the decisions applied. */
  apply(answer: string, problem: P, review: AnswerReview, decisions: ReviewDecision[]): string;
}

/** Erases the problem type for the registry; each task validates its own problem. */
// biome-ignore lint/suspicious/noExplicitAny: P is a parameter type (schemes), so Task<{ list: number[] }> is no Task<unknown>.
export type AnyTask = Task<any>;
