import type { ActivityInterfaceFor, ActivityOptions, LocalActivityInterfaceFor } from '@temporalio/workflow';
import type { GotActivities, LocalCheck, LocalChecks, ProblemField } from '../activities';
import type { Inheritance } from '../src/fork/inherit';
import type { AnalyzedGoO } from '../src/goo/graph';
import type { Operation } from '../src/goo/schema';
import type { GrsRecorder } from '../src/grs/recorder';
import type { Thought } from '../src/grs/types';
import type { RunRequest } from '../src/run/request';
import type { CallSlots } from './call-slots';
import type { HumanScoring } from './human-scores';
import type { RunPath } from './paths/run-path';
import type { RunGraph } from './run-graph';
import type { RunSteering } from './steering';

/**
 * What every step of one run shares: the checked request, its analysed GoO, the GRS being built
 * and the means to call activities. Built once per run by the workflow entry (`got.ts`); steps
 * take it as their first argument instead of a row of positional ones.
 */
export interface RunContext {
  readonly request: RunRequest;
  readonly analyzed: AnalyzedGoO;
  /** The graph being run: the GoO's operations and those its forEach operations grew so far. */
  readonly graph: RunGraph;
  readonly grs: GrsRecorder;
  /** The problem's root thought: the input of every operation without input operations. */
  readonly root: Thought;
  /** How steps receive the run's problem: inline, or a reference into the payload store. */
  readonly problem: ProblemField;
  /** Which generation of the Controller's behaviour this run takes (see `paths/`). */
  readonly path: RunPath;
  readonly humans: HumanScoring;
  /** LLM steps: activities with the run's timeouts and retry policy. */
  readonly llm: ActivityInterfaceFor<GotActivities>;
  /** The LLM activities' options, which each call extends with its Web UI summary. */
  readonly llmOptions: ActivityOptions;
  /** Local steps for thoughts no LLM step has checked (the root). */
  readonly local: LocalActivityInterfaceFor<GotActivities>;
  /** The task's local checks the LLM steps compute on each new thought. */
  readonly checks: LocalCheck[];
  /** Those checks' results, by thought id. */
  readonly checked: Map<string, LocalChecks>;
  readonly slots: CallSlots;
  /**
   * The run's child workflows (decision 71): the budget shares those running hold, which the run
   * counts as used until they report what they spent, and the calls those done made (not in this history).
   */
  readonly elsewhere: { costUsd: number; tokens: number; calls: number; running: Set<string> };
  /** A note per operation for the GRS when it finishes (e.g. who scored it). */
  readonly notes: Map<string, string>;
  /** A person's steering of the run (decision 100); absent where the run's generation does not obey it (a child's parts). */
  readonly steering?: RunSteering;
  /** Instructions a person gave while the run ran (the `instruct` steer, decision 103), for an operation's steps. */
  readonly steeredInstructions?: (operationId: string) => string | undefined;
  /** A fork's parent (decision 102): which calls it already made, and a reviewer's instructions. */
  readonly inheritance?: Inheritance;
  /** Refreshes the run's progress line in the Web UI. */
  progressChanged(): void;
}

/** The latest history-recorded time an operation has seen: its end once it is done. */
export interface OpClock {
  at: number;
  saw(time: number): void;
}

export const opClock = (start: number): OpClock => ({
  at: start,
  saw(time) {
    this.at = Math.max(this.at, time);
  },
});

/** One operation being executed: what it is, its clock, and its input thoughts. */
export interface OperationRun<O extends Operation = Operation> {
  readonly op: O;
  readonly clock: OpClock;
  readonly inputs: Thought[];
}
