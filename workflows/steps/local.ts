import type { LocalChecks } from '../../activities';
import type { Operation, OperationOf } from '../../src/goo/schema';
import type { Thought } from '../../src/grs/types';
import { keepBestN, keepValidOnly, select } from '../../src/operations/filters';
import type { OperationRun, RunContext } from '../context';

/**
 * The operation's output thoughts when it needs no activity: a filter, or a local check the LLM
 * steps that made its inputs already computed. Undefined when it needs one.
 */
export function finishNow(ctx: RunContext, op: Operation, inputs: Thought[]): Thought[] | undefined {
  switch (op.type) {
    case 'score': {
      const scores = op.scorer.kind === 'local' ? known(ctx, inputs, 'score') : undefined;
      for (const [i, score] of scores?.entries() ?? []) ctx.grs.setScore(inputs[i]!.id, score);
      return scores && inputs;
    }
    case 'groundTruth': {
      const solved = known(ctx, inputs, 'solved');
      for (const [i, ok] of solved?.entries() ?? []) ctx.grs.setSolved(inputs[i]!.id, ok);
      return solved && inputs;
    }
    default:
      return filter(op, inputs, ctx.path.survivesUnusableAnswers);
  }
}

/** A local Score of thoughts no LLM step has scored (the root), in a local activity. */
export async function scoreLocally(ctx: RunContext, { clock, inputs }: OperationRun): Promise<Thought[]> {
  const { values, at } = await ctx.local.scoreThoughts(localStep(ctx, inputs));
  clock.saw(at);
  for (const [i, t] of inputs.entries()) ctx.grs.setScore(t.id, values[i]!);
  return inputs;
}

/** GroundTruth of thoughts no LLM step has checked (the root), in a local activity. */
export async function checkGroundTruth(ctx: RunContext, { clock, inputs }: OperationRun<OperationOf<'groundTruth'>>): Promise<Thought[]> {
  if (!inputs.length) return [];
  const { values, at } = await ctx.local.checkGroundTruth(localStep(ctx, inputs));
  clock.saw(at);
  for (const [i, t] of inputs.entries()) ctx.grs.setSolved(t.id, values[i]!);
  return inputs;
}

/** Every input's value of one check when the steps that made them computed it; else undefined (a local activity computes them). */
export function known<K extends keyof LocalChecks>(ctx: RunContext, inputs: Thought[], key: K): NonNullable<LocalChecks[K]>[] | undefined {
  const values = inputs.map((t) => ctx.checked.get(t.id)?.[key]);
  return values.every((v) => v !== undefined) ? (values as NonNullable<LocalChecks[K]>[]) : undefined;
}

/** The input of a local step: the task, its problem and the thoughts' states. */
export function localStep({ request, problem }: RunContext, thoughts: Thought[]) {
  return { task: request.task, ...problem, states: thoughts.map((t) => t.state) };
}

/**
 * What a filter keeps (pure, in the workflow); undefined for any other operation. `validFirst`: a
 * KeepBestN ranks valid thoughts before invalid ones (runs whose path survives unusable answers).
 */
export function filter(op: Operation, inputs: Thought[], validFirst: boolean): Thought[] | undefined {
  switch (op.type) {
    case 'keepBestN':
      return keepBestN(inputs, op.n, op.higherIsBetter, validFirst);
    case 'keepValidOnly':
      return keepValidOnly(inputs);
    case 'selector':
      return select(inputs, op.where);
    default:
      return undefined;
  }
}
