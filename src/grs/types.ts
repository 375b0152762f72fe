/**
 * The Graph Reasoning State (GRS): every thought, its parents (the edges), score, validity, and
 * the LLM calls with their tokens and cost. It is plain JSON so it can travel through Temporal
 * payloads, queries and exports unchanged.
 */

/** Task-defined JSON state of a thought (e.g. `{ original, current, part }` for sorting). */
export type ThoughtState = Record<string, unknown>;

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface Thought {
  /** Deterministic: `<operation id>/<index>`, or `root/0` for the problem itself. */
  id: string;
  operationId: string;
  parents: string[];
  state: ThoughtState;
  /** False when the LLM's answer could not be parsed or failed validation. */
  valid: boolean;
  error?: string;
  score?: number;
  solved?: boolean;
  /** The LLM call that produced this thought. */
  callId?: string;
}

export interface LlmCall {
  /** `<operation id>/call-<key>`, positional like thought ids */
  id: string;
  operationId: string;
  purpose: 'generate' | 'aggregate' | 'improve' | 'score';
  inputThoughts: string[];
  outputThoughts: string[];
  model: string;
  samples: number;
  usage: Usage;
  costUsd: number;
  latencyMs: number;
  /** Worker clock (ms since epoch) when the successful attempt started and finished. */
  startedAt: number;
  finishedAt: number;
  /** Activity attempt that succeeded (1 = first try); more means faults were retried. */
  attempt: number;
}

export type OperationStatus = 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'cancelled';

export interface OperationRecord {
  id: string;
  type: string;
  status: OperationStatus;
  inputThoughts: string[];
  outputThoughts: string[];
  /**
   * When the operation became ready (its inputs' end, or the run's start) and when its last step
   * finished, from clocks recorded in history (activity results), so replay reproduces them.
   */
  startedAt?: number;
  endedAt?: number;
  note?: string;
}

export interface Totals extends Usage {
  llmCalls: number;
  costUsd: number;
}

export interface Grs {
  task: string;
  /** Operations nobody consumes: their output thoughts are the run's final thoughts. */
  finalOperations: string[];
  thoughts: Thought[];
  operations: OperationRecord[];
  calls: LlmCall[];
  totals: Totals;
  budgetExhausted: boolean;
  /** Set on a run result too large for one Temporal payload: non-final thoughts came without their states (`inspect` has them). */
  statesOmitted?: true;
}
