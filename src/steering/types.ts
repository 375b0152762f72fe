import { z } from 'zod';
import { Operation } from '../goo/schema';
import { MAX_ADDED_OPERATIONS } from './limits';

/**
 * Steering a running run (issue 41, decisions 100 and 103): a person pauses and resumes its LLM calls,
 * changes its budget, prunes an operation or a thought, or gives an operation instructions while it
 * runs, through the `steer` update. Each request is checked before it
 * is accepted (`steeringRefusal`), recorded in the GRS with who asked and when, and replayed from
 * history like every other fact. Pure: usable in the workflow sandbox.
 */

const who = {
  /** Who asked, as the client names them (a user name, "web review"); shown in the GRS and the pages. */
  by: z.string().trim().min(1).max(200).optional(),
  /** Why, in the person's words. */
  reason: z.string().trim().min(1).max(2000).optional(),
};

/** A run's budget as a steer sets it: either limit, or both; the other stays as it was. */
export const SteerBudget = z
  .strictObject({
    maxCostUsd: z.number().positive().max(1_000_000).optional(),
    maxTokens: z.number().int().positive().max(1e12).optional(),
  })
  .refine((b) => b.maxCostUsd !== undefined || b.maxTokens !== undefined, { message: 'give maxCostUsd, maxTokens or both' })
  // The same rule in the published JSON schema, which has no refinements.
  .meta({ minProperties: 1 });
export type SteerBudget = z.infer<typeof SteerBudget>;

/** An operation of the run's graph: a GoO operation or one a forEach grew (`merge[3].generate`). */
const operationId = z.string().trim().min(1).max(300);

export const SteerRequest = z.discriminatedUnion('action', [
  /** No new LLM call starts until a `resume`; calls in flight finish and are recorded. */
  z.strictObject({ action: z.literal('pause'), ...who }),
  z.strictObject({ action: z.literal('resume'), ...who }),
  /** The run's budget from now on (decision 5's rules: it stops new calls; calls in flight finish). */
  z.strictObject({ action: z.literal('budget'), budget: SteerBudget, ...who }),
  /**
   * An operation that has not started does not run (it ends `skipped`, with no thoughts), or a thought
   * is read by no operation that starts from now on (decision 103).
   */
  z
    .strictObject({
      action: z.literal('prune'),
      operation: operationId.optional(),
      thought: z.string().trim().min(1).max(400).optional(),
      ...who,
    })
    .refine((p) => (p.operation === undefined) !== (p.thought === undefined), { message: 'give operation or thought, one of them' })
    .meta({ oneOf: [{ required: ['operation'] }, { required: ['thought'] }] }),
  /** A reviewer's words added to the prompts of an operation's steps that start from now on (a part's or a forEach's included). */
  z.strictObject({ action: z.literal('instruct'), operation: operationId, text: z.string().trim().min(1).max(4000), ...who }),
  /**
   * Operations added to the running graph (one more improve round): new ids, reading any operation of
   * the graph or each other; the graph's final operations become those nothing reads (decision 104).
   */
  z.strictObject({ action: z.literal('add'), operations: z.array(Operation).min(1).max(MAX_ADDED_OPERATIONS), ...who }),
]);
export type SteerRequest = z.infer<typeof SteerRequest>;

/** A steer the run accepted, as the GRS records it: the request and the workflow time it took effect. */
export const SteerEvent = z.intersection(SteerRequest, z.object({ at: z.number().int().min(0) }));
export type SteerEvent = z.infer<typeof SteerEvent>;

/** What the `steer` update returns: the run's state once the steer took effect. */
export interface SteerOutcome {
  paused: boolean;
  budget?: { maxCostUsd?: number; maxTokens?: number };
}
