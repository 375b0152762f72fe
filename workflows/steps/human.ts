import type { OperationOf, Scorer } from '../../src/goo/schema';
import type { Thought } from '../../src/grs/types';
import type { OperationRun, RunContext } from '../context';
import { known, localStep } from './local';

type HumanScorer = Extract<Scorer, { kind: 'human' }>;

/** Waits for a person's scores; on timeout falls back to the task's local score or leaves the thoughts unscored. */
export async function scoreByHuman(
  ctx: RunContext,
  { op, clock, inputs }: OperationRun<OperationOf<'score'>>,
  scorer: HumanScorer,
): Promise<Thought[]> {
  const { grs, notes } = ctx;
  ctx.progressChanged();
  const scores = await ctx.humans.await(op.id, inputs, scorer.timeoutSeconds);
  if (scores) {
    for (const t of inputs) grs.setScore(t.id, scores.scores[t.id]!);
    notes.set(op.id, `scored by ${scores.by ?? 'a person'}`);
  } else if (scorer.fallback === 'local') {
    let values = known(ctx, inputs, 'score');
    if (!values) {
      const scored = await ctx.local.scoreThoughts(localStep(ctx, inputs));
      clock.saw(scored.at);
      values = scored.values;
    }
    for (const [i, t] of inputs.entries()) grs.setScore(t.id, values[i]!);
    notes.set(op.id, `no human scores within ${scorer.timeoutSeconds}s: scored locally`);
  } else notes.set(op.id, `no human scores within ${scorer.timeoutSeconds}s: left unscored`);
  return inputs;
}
