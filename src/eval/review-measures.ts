import { retentionTotals } from '../documents/retention';
import type { AnswerReview } from '../documents/types';
import type { EvalRow } from './results';

export type ReviewMeasures = Pick<EvalRow, 'kept' | 'setAside' | 'repeated' | 'unsupported' | 'undecided'>;

/**
 * What the engine's review says of a run's best merge, as an evaluation row records it: the share of
 * the sources' clauses it keeps, its clauses that say an earlier one again, its share of clauses no
 * source supports, and the disagreements it leaves undecided (states no value, or more than one).
 * Also used to measure recorded runs anew (scripts/eval-qwen-remeasure.ts).
 */
export function reviewMeasuresOf(review: AnswerReview): ReviewMeasures {
  const { clauses, kept, setAside } = retentionTotals(review.retention ?? []);
  const share = (n: number, of: number) => Math.round((1000 * n) / of) / 1000;
  const measuredSetAside = review.retention?.some((r) => r.setAside !== undefined);
  return {
    ...(clauses ? { kept: share(kept, clauses) } : {}),
    ...(clauses && measuredSetAside ? { setAside: share(setAside, clauses) } : {}),
    ...(review.counts.repeated !== undefined ? { repeated: review.counts.repeated } : {}),
    ...(review.counts.clauses ? { unsupported: share(review.counts.unsupported, review.counts.clauses) } : {}),
    undecided: review.disagreements.filter((d) => new Set(d.kept.map((k) => k.normalized)).size !== 1).length,
  };
}
