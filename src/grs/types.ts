import { z } from 'zod';
import { ReviewRecord } from '../documents/types';
import { ForkRecord } from '../fork/types';
import { SteerEvent } from '../steering/types';

/**
 * The Graph Reasoning State (GRS): every thought, its parents (the edges), score, validity, and
 * the LLM calls with their tokens and cost. Plain JSON, so it travels through Temporal payloads,
 * queries and exports unchanged; the schemas here are also the published contract (schema/).
 */

/** Task-defined JSON state of a thought (e.g. `{ unsorted, list, part }` for sorting). */
export const ThoughtState = z.record(z.string(), z.unknown());
export type ThoughtState = z.infer<typeof ThoughtState>;

export const Usage = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  /** The endpoint reported no usage: the tokens were counted here with a tokenizer (so budgets still hold). */
  estimated: z.boolean().optional(),
  /** Prompt tokens the endpoint took from its prompt cache (`usage.prompt_tokens_details.cached_tokens`), counted in `promptTokens` too. */
  cachedPromptTokens: z.number().int().min(0).optional(),
});
export type Usage = z.infer<typeof Usage>;

export const Thought = z.object({
  /** Deterministic: `<operation id>/<key>.<i>`, or `root/0` for the problem itself. */
  id: z.string().describe('positional id: <operation id>/<key>.<i>, or root/0 for the problem'),
  operationId: z.string(),
  parents: z.array(z.string()).describe('ids of the thoughts this one was made from (the GRS edges)'),
  state: ThoughtState,
  /** False when the LLM's answer could not be parsed or failed validation. */
  valid: z.boolean(),
  error: z.string().optional(),
  /** For a thought made invalid by its answer: the start of what the model said (2,000 characters at most). */
  said: z.string().optional(),
  /** What a reasoning model thought before it answered (`<think>` blocks or a reasoning field), 2,000 characters at most. */
  reasoning: z.string().optional(),
  score: z.number().optional(),
  solved: z.boolean().optional(),
  /** The LLM call that produced this thought. */
  callId: z.string().optional(),
});
export type Thought = z.infer<typeof Thought>;

export const LlmCall = z.object({
  /** `<operation id>/call-<key>`, positional like thought ids */
  id: z.string(),
  operationId: z.string(),
  purpose: z.enum(['generate', 'aggregate', 'improve', 'score']),
  inputThoughts: z.array(z.string()),
  outputThoughts: z.array(z.string()),
  model: z.string(),
  samples: z.number().int().min(1),
  usage: Usage,
  costUsd: z.number().min(0),
  latencyMs: z.number().min(0),
  /** Worker clock (ms since epoch) when the successful attempt started and finished. */
  startedAt: z.number(),
  finishedAt: z.number(),
  /** Activity attempt that succeeded (1 = first try); more means faults were retried. */
  attempt: z.number().int().min(1),
  /** Served from the response cache: no tokens were paid (usage and cost are 0). */
  cached: z.boolean().optional(),
  /** Set on a call that asked again because the step's earlier answers were unusable: which re-ask (1, 2, ...). */
  reask: z.number().int().min(1).optional(),
  /** Why each earlier attempt failed, oldest first ("attempt 1: rate limited by ... (429): ..."); absent when the first attempt succeeded. */
  faults: z.array(z.string()).optional(),
  /**
   * Requests of the successful attempt that the endpoint refused (or that failed) and that were sent
   * again within the call: how many, per status or kind, and the time spent waiting (decision 90).
   */
  refused: z
    .object({ requests: z.number().int().min(0), byKind: z.record(z.string(), z.number().int().min(0)), waitedMs: z.number().min(0) })
    .optional(),
  /** Samples received by an earlier attempt and kept, not asked for (or paid for) again. */
  resumed: z.number().int().min(1).optional(),
  /**
   * A fork's call its parent had made on the same inputs (decision 102): its thoughts are the parent's,
   * taken without a call (usage and cost 0; not counted in `totals.llmCalls`).
   */
  inherited: z.literal(true).optional(),
});
export type LlmCall = z.infer<typeof LlmCall>;

export const OperationStatus = z.enum(['pending', 'running', 'done', 'skipped', 'failed', 'cancelled']);
export type OperationStatus = z.infer<typeof OperationStatus>;

export const GrownPart = z.object({
  /** The thoughts the part's body started from (a thought the split made, or input thoughts), or the input thoughts it kept. */
  thoughts: z.array(z.string()),
  /** The part was kept as it is: its thoughts went to the forEach's output and the body did not run for it. */
  kept: z.literal(true).optional(),
});
export type GrownPart = z.infer<typeof GrownPart>;

export const OperationRecord = z.object({
  id: z.string(),
  type: z.string(),
  status: OperationStatus,
  inputThoughts: z.array(z.string()),
  outputThoughts: z.array(z.string()),
  /**
   * When the operation became ready (its inputs' end, or the run's start) and when its last step
   * finished, from clocks recorded in history (activity results), so replay reproduces them.
   */
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  note: z.string().optional(),
  /** A forEach that has grown: each part's thoughts (what its body started from, or what it kept) in part order. */
  parts: z.array(GrownPart).optional(),
  /** Set on an operation a forEach grew at run time: the forEach (its id, `F` or `F[0].G`), and which of its parts. */
  grownBy: z.string().optional(),
  part: z.number().int().min(0).optional(),
  /** A grown operation's input operations (grown ids); empty when it starts from its part's thoughts. */
  inputs: z.array(z.string()).optional(),
});
export type OperationRecord = z.infer<typeof OperationRecord>;

export const Totals = Usage.extend({
  llmCalls: z.number().int().min(0),
  costUsd: z.number().min(0),
  /** A fork's calls taken from its parent without a call (decision 102); absent when none. */
  inheritedCalls: z.number().int().min(0).optional(),
});
export type Totals = z.infer<typeof Totals>;

export const Grs = z.object({
  task: z.string(),
  /** Operations nobody consumes: their output thoughts are the run's final thoughts. */
  finalOperations: z.array(z.string()),
  thoughts: z.array(Thought),
  operations: z.array(OperationRecord),
  calls: z.array(LlmCall),
  totals: Totals,
  budgetExhausted: z.boolean(),
  /** Set on a run result too large for one Temporal payload: non-final thoughts came without their states (`inspect` has them). */
  statesOmitted: z.literal(true).optional(),
  /** The engine's review of the best answer (document merges): each clause's sources, disagreements, a person's decisions. */
  review: ReviewRecord.optional(),
  /** What people asked of the run while it ran (the `steer` update, decision 100), in the order it took effect. */
  steering: z.array(SteerEvent).optional(),
  /** The run is a fork (decision 102): its parent, where it forked and with which instructions. */
  fork: ForkRecord.optional(),
});
export type Grs = z.infer<typeof Grs>;
