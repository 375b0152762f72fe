import { ApplicationFailure } from '@temporalio/workflow';
import { type ForEachOperation, tooManyParts } from '../../src/goo/grow';
import type { Thought } from '../../src/grs/types';
import { FAILURE } from '../../src/run/wire';
import type { OperationRun, RunContext } from '../context';
import { localStep } from './local';

/** One part of a forEach: the thoughts its body starts from, or the thoughts it passes on as they are (`kept`). */
export interface RunPart {
  thoughts: Thought[];
  kept: boolean;
}

/** `parts: "each"`: every input thought is one part. Needs no activity, so the body starts in the same turn. */
export function eachPart({ op, inputs }: OperationRun<ForEachOperation>): RunPart[] {
  refuseTooMany(op, inputs.length);
  return inputs.map((t) => ({ thoughts: [t], kept: false }));
}

/**
 * `parts: { split }`: the task's split in a local activity, whose result history keeps, so a replay
 * (and `inspect`) grows the same graph. A part that makes a new thought adds it to the GRS as
 * `<forEach>/<part>.0`, its parents all the forEach's input thoughts, checked as an LLM step's are.
 */
export async function splitParts(ctx: RunContext, { op, clock, inputs }: OperationRun<ForEachOperation>): Promise<RunPart[]> {
  const { split, params } = op.parts as Exclude<ForEachOperation['parts'], 'each'>;
  const { parts, at } = await ctx.local.splitThoughts({
    ...localStep(ctx, inputs),
    operation: op.id,
    split,
    params: params ?? {},
    maxParts: op.maxParts,
    ...(ctx.checks.length ? { checks: ctx.checks } : {}),
  });
  clock.saw(at);
  refuseTooMany(op, parts.length);
  const parents = inputs.map((t) => t.id);
  return parts.map((part, i) => {
    if ('state' in part) {
      const [made] = ctx.grs.addThoughts(op.id, i, [{ state: part.state, parents, valid: true }]);
      if (part.checks) ctx.checked.set(made!.id, part.checks);
      return { thoughts: [made!], kept: false };
    }
    if ('keep' in part) return { thoughts: part.keep.map((j) => inputs[j]!), kept: true };
    return { thoughts: part.thoughts.map((j) => inputs[j]!), kept: false };
  });
}

/** More parts than `maxParts` fail the operation: a bad input, never retried. */
function refuseTooMany(op: ForEachOperation, count: number): void {
  const tooMany = tooManyParts(op, count);
  if (tooMany) throw ApplicationFailure.nonRetryable(tooMany, FAILURE.validation);
}
