import type { AnswerReview, ReviewDecision } from '../src/documents/types';
import type { ThoughtState, Usage } from '../src/grs/types';
import type { Refusals } from '../src/llm/patience';
import type { LlmSettings, RunRequest } from '../src/run/request';
import type { StoredRef } from '../src/store/payload-store';
import type { TaskRef } from '../src/tasks/declarative/schema';
import type { ParsedThought } from '../src/tasks/task';

/**
 * Where a step finds the run's problem: inline, or (runs since the `claim-check` patch, problems
 * above the store's threshold) as a reference into the payload store, so the documents of a merge
 * are not copied into every step's input (docs/decisions.md 32).
 */
export interface ProblemField {
  problem?: unknown;
  problemRef?: StoredRef;
}

/** One LLM step of an operation: a prompt built from input thoughts, sampled `samples` times. */
export interface LlmStep extends ProblemField {
  /** A built-in task's id or a task declaration (small; it travels with every step). */
  task: TaskRef;
  purpose: 'generate' | 'aggregate' | 'improve';
  prompt: string;
  params: Record<string, unknown>;
  thoughts: ThoughtState[];
  samples: number;
  llm: LlmSettings;
  seed: number;
  /**
   * The task's local checks the run's GoO uses: computed on each new thought right where it is
   * parsed, so a local Score, GroundTruth or validation step needs no step of its own.
   */
  checks?: LocalCheck[];
  /** A reviewer's instructions for this step (a fork's, decision 102), added to its prompt. */
  instructions?: string;
}

export type LocalCheck = 'score' | 'validate' | 'groundTruth';

/** A thought's local checks, computed by the step that produced it (only those the step was asked for). */
export interface LocalChecks {
  score?: number;
  valid?: boolean;
  solved?: boolean;
}

/** What every LLM call reports besides its answers: the GRS records it per call. */
export interface CallReport {
  usage: Usage;
  costUsd: number;
  model: string;
  latencyMs: number;
  /** Worker clock (ms since epoch) around the successful call: recorded in history, so replay-stable. */
  startedAt: number;
  finishedAt: number;
  /** Served from the response cache (usage and cost 0, or as recorded with `llm.cacheCosts: 'recorded'`). */
  cached?: boolean;
  /** Not a call: a fork's step its parent made on the same inputs, answered with the parent's thoughts (decision 102). */
  inherited?: boolean;
  /** The activity attempt that produced this result (1 unless faults were retried). */
  attempt: number;
  /** Why each earlier attempt failed, oldest first; absent when the first attempt succeeded. */
  faults?: string[];
  /** Requests of this attempt refused and sent again within the call, and the wait that cost (decision 90). */
  refused?: Refusals;
  /** Samples an earlier attempt had received, kept rather than asked for again. */
  resumed?: number;
}

/** A thought an LLM step made, with the local checks it was asked for (`LlmStep.checks`). */
export interface StepThought extends ParsedThought {
  checks?: LocalChecks;
}

export interface LlmStepResult extends CallReport {
  /** Parsed thoughts per sample, in sample order, each with its own checks. */
  answers: StepThought[][];
  /**
   * How results recorded before thoughts carried their own checks gave them: per answer, matched
   * by index. Read when replaying such histories (`workflows/steps/llm.ts`); never written now.
   */
  checks?: LocalChecks[][];
}

export interface LocalStep extends ProblemField {
  task: TaskRef;
  states: ThoughtState[];
}

/** One LLM judgement of one thought, sampled `samples` times. */
export interface ScoreStep extends ProblemField {
  task: TaskRef;
  scorer: string;
  state: ThoughtState;
  samples: number;
  llm: LlmSettings;
  seed: number;
}

export interface ScoreStepResult extends CallReport {
  score: number;
  /** Parsed ratings per sample; undefined where a sample could not be read. */
  ratings: (number[] | undefined)[];
}

/** A local step's per-thought answers and when it finished (worker clock, recorded in history). */
export interface LocalResult<T> {
  values: T[];
  at: number;
}

/** A checked run: its root thought and, for runs that leave the checking to the worker, the request as checked. */
export interface PreparedRun {
  rootState: Record<string, unknown>;
  higherIsBetter: boolean;
  /** Defaults filled in; without the problem, which the workflow has already and which may be large (documents). */
  request?: Omit<RunRequest, 'problem'>;
  /**
   * The problem as the task parsed it, only where that differs from the one sent (a task whose
   * problem schema fills in defaults or normalises), so a large problem is not recorded twice.
   */
  problem?: unknown;
  /** The problem kept in the payload store (a large one, when the worker has a store): steps carry this instead of it. */
  problemRef?: StoredRef;
  /** Step inputs of at least this many bytes go to the worker's payload store (absent: it has none). */
  storedFrom?: number;
  /** The task reviews its answers (`Task.reviewer`: document merges); absent for runs recorded before it could. */
  reviewsAnswers?: true;
}

/** The engine's review of an answer, and with `decisions`, of the answer with a person's decisions applied. */
export interface ReviewStep extends ProblemField {
  task: TaskRef;
  /** The reviewed thought: its id and state. */
  thought: { id: string; state: Record<string, unknown> };
  /** A person's decisions on the disagreements of `review`, to apply to the answer. */
  decisions?: ReviewDecision[];
  /** The review the decisions answer (from the first review step). */
  review?: AnswerReview;
}

/** What a review step found. */
export interface ReviewStepResult {
  review: AnswerReview;
  documents: string[];
  /** With decisions: the answer's text with them applied (what `review` reviewed). */
  decidedText?: string;
}
