import type { LocalCheck, LocalChecks, ProblemField } from '../../activities';
import type { InheritanceData } from '../../src/fork/inherit';
import type { Operation } from '../../src/goo/schema';
import type { GrsFact } from '../../src/grs/recorder';
import type { Thought } from '../../src/grs/types';
import type { RunRequest } from '../../src/run/request';
import type { PartStart } from '../run-graph';

/** What a child workflow running a batch of a forEach's parts is given (decision 71). */
export interface PartsInput {
  /** The run's request: its settings, the GoO for reference, the budget share this child may spend; its problem travels in `problem`. */
  request: RunRequest;
  /** How the steps receive the run's problem: a reference into the payload store, or the problem. */
  problem: ProblemField;
  /** The forEach whose parts these are, and the run it belongs to (for the Web UI). */
  forEach: string;
  /** The parts' operations, grown in the run (ids `F[i].<body id>`), in part order. */
  operations: Operation[];
  /** Where each operation without input operations starts: its part's thoughts, when its forEach grew. */
  starts: [string, PartStart][];
  /** The thoughts the parts start from, made in the run. */
  thoughts: Thought[];
  /** The task's local checks the LLM steps compute, and those already computed for `thoughts`. */
  checks: LocalCheck[];
  checked: [string, LocalChecks][];
  /** LLM calls this child may have in flight at once: its share of the run's `maxConcurrentCalls`. */
  slots: number;
  /** Inputs of at least this many bytes are kept in the payload store (CallSlots' inline budget). */
  storedFrom?: number;
  /** Instructions a person gave the run while it ran, for these parts' steps (decision 103). */
  instructions?: { operation: string; text: string }[];
  /** The run is a fork: what its parent made in these parts, to take without a call (decision 102). */
  inherits?: InheritanceData;
}

/** What a child workflow hands back: every GRS fact its parts made, in order, and the checks of the thoughts they made. */
export interface PartsResult {
  facts: GrsFact[];
  checked: [string, LocalChecks][];
  /** Where it failed, when an operation failed (its facts say how far it got). */
  failure?: { operation: string; message: string };
}
