import type { LocalActivityInterfaceFor } from '@temporalio/workflow';
import type { GotActivities, LocalCheck, PreparedRun } from '../../activities';
import type { AnalyzedGoO } from '../../src/goo/graph';
import type { Operation } from '../../src/goo/schema';
import type { RunRequest, RunRequestInput } from '../../src/run/request';
import type { HumanScoring } from '../human-scores';

/** A run whose request was checked: the request with its defaults, its analysed GoO, its root. */
export interface PreparedRequest {
  request: RunRequest;
  analyzed: AnalyzedGoO;
  prepared: PreparedRun;
}

/** What preparing a run needs from the workflow entry. */
export interface PrepareEnv {
  local: LocalActivityInterfaceFor<GotActivities>;
  humans: HumanScoring;
  /** Records the run as started in the Web UI; a path calls it exactly where its generation did. */
  markStarted(request: RunRequest): void;
  /** Records the run as failed or cancelled in the Web UI when preparing it failed. */
  markEnded(error: unknown): void;
}

/**
 * One generation of the Controller's behaviour. Runs keep the generation they started with (a
 * `patched()` marker in their history), so a worker upgrade never changes a run in flight. The
 * workflow entry picks one in one place; retiring a generation deletes its file.
 */
export interface RunPath {
  /** Checks the request before any LLM money is spent and makes the root thought; marks the run started. */
  prepare(input: RunRequestInput, env: PrepareEnv): Promise<PreparedRequest>;
  /** The task's local checks the LLM steps compute on each thought they make. */
  checksOf(operations: readonly Operation[]): LocalCheck[];
  /** Filters and checks whose values are known finish in the turn that launches them. */
  readonly finishesInTurn: boolean;
  /** An LLM call takes a free call slot at once instead of waiting a turn. */
  readonly takesFreeSlotAtOnce: boolean;
  /**
   * An LLM step whose answers are unusable asks again (`llm.reask`), KeepBestN ranks valid thoughts
   * first, and a run with no valid final thought ends as `noAnswer`.
   */
  readonly survivesUnusableAnswers: boolean;
  /** An LLM call's timeout grows with the tokens it may generate (`llm.minTokensPerSecond`). */
  readonly sizesTimeoutsByTokens: boolean;
  /** Steps carry a reference to a problem the worker kept in the payload store instead of the problem. */
  readonly problemByReference: boolean;
  /** The calls in flight carry at most a workflow task's worth of inline input (`CallSlots`). */
  readonly boundsInlineBytes: boolean;
  /** The best answer of a task that reviews its answers is reviewed once the graph is done (`AnswerReviewing`). */
  readonly reviewsAnswers?: boolean;
  /** Fan-out perSample makes one call per step whose k samples go as k requests together, not k calls. */
  readonly samplesInOneCall?: boolean;
  /** A forEach whose parts may make more than `children.maxCalls` LLM calls runs them in child workflows (decision 71). */
  readonly runsPartsInChildren?: boolean;
  /**
   * An LLM call's attempt is ended by its requests (each one's timeout or stall, `llm.giveUpSeconds`
   * of refusals) and by its heartbeats, not by a start-to-close timeout of the call (decision 90).
   */
  readonly callsEndedByProgress?: boolean;
  /** A person may pause and resume the run's LLM calls and change its budget while it runs (the `steer` update, decision 100). */
  readonly obeysSteering?: boolean;
  /** A run may be a fork of a recorded run: the parent's calls on the same inputs are taken without a call (`request.fork`, decision 102). */
  readonly inheritsFromParent?: boolean;
  /** A person may prune operations and thoughts and give instructions for steps while the run runs (the `steer` update, decision 103). */
  readonly steersGraph?: boolean;
}
