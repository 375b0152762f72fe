import { z } from 'zod';
import type { ReviewDecision } from '../documents/types';
import type { GoO } from '../goo/schema';
import type { Thought } from '../grs/types';

/**
 * A fork (issue 41, decision 102): a new run made from a recorded one. Every LLM call the fork would
 * make that its parent already made, on the same inputs, comes from the parent's recorded thoughts
 * without a call; what the fork changed (its GoO, parameters, model, a reviewer's instructions, the
 * point it forks at) is called afresh. Pure: the schemas are the contract, the types cross into the
 * workflow sandbox.
 */

/** A reviewer's words for one operation's steps (a merge's clause group: `merge[3]`), added to their prompts. */
export const ForkInstruction = z.strictObject({
  /**
   * An operation id of the run's graph. A forEach part (`merge[3]`) names every operation grown in it
   * (`merge[3].generate`, ...); a GoO operation names itself and, if it is a forEach, all its parts.
   */
  operation: z.string().trim().min(1).max(200),
  text: z.string().trim().min(1).max(4000),
});
export type ForkInstruction = z.infer<typeof ForkInstruction>;

export const ForkSpec = z
  .strictObject({
    /** The run forked from: its workflow id (and run id, else its latest run). */
    parent: z.string().trim().min(1).max(1000),
    parentRunId: z.string().trim().min(1).max(200).optional(),
    /**
     * Where the fork starts anew: an operation id (its calls and those of every operation after it are
     * made afresh, by the fork's model), or a thought id (`<operation>/<key>.<i>`: that operation is
     * inherited and only that thought goes on from it). Absent: only what changed is called.
     */
    at: z.string().trim().min(1).max(300).optional(),
    instructions: z.array(ForkInstruction).max(1000).optional(),
    /** The parent's decisions on its disagreements apply again where the fork's merge has the same disagreement (default true). */
    carryDecisions: z.boolean().optional(),
    /** Who asked and why, as a steer names them. */
    by: z.string().trim().min(1).max(200).optional(),
    reason: z.string().trim().min(1).max(2000).optional(),
  })
  .describe('a run made from a recorded one: what it shares with the parent comes from the parent without a call');
export type ForkSpec = z.infer<typeof ForkSpec>;

/** What the GRS of a fork says of its parentage (its calls taken from the parent say `inherited`). */
export const ForkRecord = z.object({
  parent: z.object({ workflowId: z.string(), runId: z.string() }),
  at: z.string().optional(),
  instructions: z.array(ForkInstruction).optional(),
  /** The parent's decisions applied again to the fork's disagreements (their ids in the fork). */
  carriedDecisions: z.array(z.string()).optional(),
  by: z.string().optional(),
  reason: z.string().optional(),
});
export type ForkRecord = z.infer<typeof ForkRecord>;

/** One LLM call of the parent, as a fork matches against it. */
export interface RecalledCall {
  /** `<operation id>/call-<key>`. */
  id: string;
  operationId: string;
  purpose: 'generate' | 'aggregate' | 'improve' | 'score';
  model: string;
  samples: number;
  inputThoughts: string[];
  outputThoughts: string[];
  /** The reviewer's instructions its prompt carried, if the parent was itself a fork. */
  instructions?: string;
}

/**
 * What a fork needs of its parent, recalled once from the parent's history by an activity (so the
 * fork's history holds it and replays without the parent): the request that shapes an answer, its
 * calls and the thoughts they read and made, and the decisions a person made on its merge.
 */
export interface Recalled {
  parent: { workflowId: string; runId: string };
  seed: number;
  goo: GoO;
  /** The parent's settings that shape an answer (`shapingOf`). */
  llm: AnswerShaping;
  calls: RecalledCall[];
  /** The calls' input and output thoughts (and the scores judge calls gave their inputs). */
  thoughts: Thought[];
  decisions?: { decisions: ReviewDecision[]; disagreements: { id: string; kind: string; topic: string }[] };
}

/** The settings of a call that change its answer; the rest (timeouts, concurrency, retries) do not. */
export interface AnswerShaping {
  model: string;
  temperature: number;
  maxTokens?: number;
  structuredOutput?: string;
}

export const shapingOf = (llm: AnswerShaping): AnswerShaping => ({
  model: llm.model,
  temperature: llm.temperature,
  ...(llm.maxTokens !== undefined ? { maxTokens: llm.maxTokens } : {}),
  ...(llm.structuredOutput !== undefined ? { structuredOutput: llm.structuredOutput } : {}),
});
