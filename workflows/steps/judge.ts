import type { OperationOf, Scorer } from '../../src/goo/schema';
import { callIdOf } from '../../src/grs/recorder';
import type { Thought } from '../../src/grs/types';
import { hashSeed } from '../../src/util/random';
import { budgetLeft } from '../budget';
import type { OperationRun, RunContext } from '../context';
import { inheritedReport, recordCall, summarised } from './llm';

type LlmScorer = Extract<Scorer, { kind: 'llm' }>;

/**
 * A Score operation with an LLM judge: each valid input thought is judged (k samples) in parallel.
 * Judging an answer that could not be read would pay for nothing: it stays unscored and ranks last.
 */
export async function judgeAll(ctx: RunContext, run: OperationRun<OperationOf<'score'>>, scorer: LlmScorer): Promise<Thought[]> {
  await Promise.all(run.inputs.map((t, i) => (t.valid ? judge(ctx, run, scorer, String(i), t) : undefined)));
  return run.inputs;
}

/** Scores one thought by asking the LLM (the task's judge), unless the budget is spent. */
async function judge(ctx: RunContext, { op, clock }: OperationRun, scorer: LlmScorer, key: string, thought: Thought): Promise<void> {
  if (!budgetLeft(ctx)) return;
  const { request } = ctx;
  const step = {
    task: request.task,
    scorer: scorer.prompt,
    ...ctx.problem,
    state: thought.state,
    samples: scorer.samples,
    llm: request.llm,
    seed: hashSeed(request.seed, op.id, key),
  };
  const same = ctx.inheritance?.judged({
    callId: callIdOf(op.id, key),
    operationId: op.id,
    purpose: 'score',
    samples: scorer.samples,
    inputs: [thought.state],
  });
  if (same) {
    // The parent's judge gave this thought, as it is, its score: a fork takes it without a call (decision 102).
    recordCall(ctx, clock, {
      op,
      key,
      purpose: 'score',
      inputThoughts: [thought.id],
      samples: scorer.samples,
      report: inheritedReport(same.call.model),
    });
    ctx.grs.setScore(thought.id, same.score);
    return;
  }
  const result = await ctx.slots.run(
    () => ctx.llm.scoreWithLlm.executeWithOptions(summarised(ctx.llmOptions, `${op.id}: judge ${thought.id} ×${scorer.samples}`), [step]),
    step,
  );
  recordCall(ctx, clock, { op, key, purpose: 'score', inputThoughts: [thought.id], samples: scorer.samples, report: result });
  ctx.grs.setScore(thought.id, result.score);
}
