import type { OperationOf } from '../../src/goo/schema';
import type { Thought } from '../../src/grs/types';
import type { OperationRun, RunContext } from '../context';
import { askLlm } from './llm';
import { known, localStep } from './local';

/** ValidateAndImprove: each input is improved until it is valid or its tries are used; outputs the last thought of each chain. */
export function validateAndImprove(ctx: RunContext, run: OperationRun<OperationOf<'validateAndImprove'>>): Promise<Thought[]> {
  return Promise.all(run.inputs.map((start, i) => improveUntilValid(ctx, run, start, i)));
}

async function improveUntilValid(
  ctx: RunContext,
  { op, clock }: OperationRun<OperationOf<'validateAndImprove'>>,
  start: Thought,
  index: number,
): Promise<Thought> {
  let current = start;
  for (let attempt = 0; ; attempt++) {
    let valid = known(ctx, [current], 'valid')?.[0];
    if (valid === undefined) {
      const checkedNow = await ctx.local.validateThoughts(localStep(ctx, [current]));
      clock.saw(checkedNow.at);
      valid = checkedNow.values[0]!;
    }
    ctx.grs.setValidity(current.id, valid, valid ? undefined : 'failed validation');
    if (valid || attempt >= op.tries) return current;
    const [improved] = await askLlm(ctx, { op, clock, key: `${index}-${attempt}`, purpose: 'improve', inputs: [current], samples: 1 });
    if (!improved) return current;
    current = improved;
  }
}
