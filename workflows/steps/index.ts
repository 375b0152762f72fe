import type { Thought } from '../../src/grs/types';
import type { OperationRun, RunContext } from '../context';
import { scoreByHuman } from './human';
import { judgeAll } from './judge';
import { askLlm } from './llm';
import { checkGroundTruth, filter, scoreLocally } from './local';
import { validateAndImprove } from './validate';

/**
 * Executes one operation on its input thoughts and returns its output thoughts: the paper's
 * operations, each in the module named for it. LLM steps run as activities, in parallel per input.
 */
export async function execute(ctx: RunContext, run: OperationRun): Promise<Thought[]> {
  const { op, clock, inputs } = run;
  switch (op.type) {
    case 'generate':
      return (
        await Promise.all(inputs.map((t, i) => askLlm(ctx, { op, clock, key: String(i), purpose: 'generate', inputs: [t], samples: op.k })))
      ).flat();
    case 'improve':
      return (
        await Promise.all(inputs.map((t, i) => askLlm(ctx, { op, clock, key: String(i), purpose: 'improve', inputs: [t], samples: 1 })))
      ).flat();
    case 'aggregate':
      return inputs.length ? askLlm(ctx, { op, clock, key: '0', purpose: 'aggregate', inputs, samples: op.k }) : [];
    case 'validateAndImprove':
      return validateAndImprove(ctx, { op, clock, inputs });
    case 'score': {
      if (!inputs.length) return [];
      const scorer = op.scorer;
      if (scorer.kind === 'human') return scoreByHuman(ctx, { op, clock, inputs }, scorer);
      if (scorer.kind === 'llm') return judgeAll(ctx, { op, clock, inputs }, scorer);
      // Scores the LLM steps already made were taken by `finishNow`: these thoughts need a local activity.
      return scoreLocally(ctx, run);
    }
    case 'groundTruth':
      return checkGroundTruth(ctx, { op, clock, inputs });
    case 'forEach':
      throw new Error(`forEach "${op.id}" grows the graph: the scheduler runs it, not a step`);
    default:
      return filter(op, inputs, ctx.path.survivesUnusableAnswers)!;
  }
}
