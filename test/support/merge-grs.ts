import { type Grs, Grs as GrsSchema, type Thought } from '../../src/grs/types';
import { MERGED_NDA, NDA_SOURCES, ndaReview } from './review';

/**
 * A small document-merge GRS built by hand (three merges, an aggregation, a keep-best), with scores
 * as an LLM judge's averages come out (7.333333333333333), and, when asked, the engine's review of
 * the best answer: for pages that show a GRS, without running a workflow.
 */
export function mergeGrs(o: { review?: boolean } = {}): Grs {
  const thought = (id: string, operationId: string, parents: string[], state: Record<string, unknown>, score?: number): Thought => ({
    id,
    operationId,
    parents,
    state,
    valid: true,
    ...(score !== undefined ? { score } : {}),
  });
  const variant = (n: number) => MERGED_NDA.replace('three years', `${n + 2} years`);
  const thoughts = [
    thought('root/0', 'root', [], { documents: ['nda 1', 'nda 2', 'nda 3'] }),
    thought('merge/0.0', 'merge', ['root/0'], { merged: variant(0) }, 6.666666666666667),
    thought('merge/0.1', 'merge', ['root/0'], { merged: variant(1) }, 7.333333333333333),
    thought('merge/0.2', 'merge', ['root/0'], { merged: variant(2) }, 0.1 + 0.2),
    thought('aggregate/0.0', 'aggregate', ['merge/0.0', 'merge/0.1'], { merged: MERGED_NDA }, 8.833333333333334),
    thought('keep/0.0', 'keep', ['aggregate/0.0'], { merged: MERGED_NDA }, 8.833333333333334),
  ];
  const op = (id: string, type: string, inputs: string[], outputs: string[], startedAt: number) => ({
    id,
    type,
    status: 'done' as const,
    inputThoughts: inputs,
    outputThoughts: outputs,
    startedAt,
    endedAt: startedAt + 1200,
  });
  return GrsSchema.parse({
    task: 'doc-merge',
    finalOperations: ['keep'],
    thoughts,
    operations: [
      op('merge', 'generate', ['root/0'], ['merge/0.0', 'merge/0.1', 'merge/0.2'], 1_000),
      op('aggregate', 'aggregate', ['merge/0.0', 'merge/0.1'], ['aggregate/0.0'], 2_200),
      op('keep', 'keepBestN', ['aggregate/0.0'], ['keep/0.0'], 3_400),
    ],
    calls: [],
    totals: { llmCalls: 4, promptTokens: 9000, completionTokens: 1800, costUsd: 0.0123 },
    budgetExhausted: false,
    ...(o.review ? { review: { ...ndaReview(), thought: 'keep/0.0', documents: NDA_SOURCES } } : {}),
  });
}
