import { findDisagreements } from './disagreements';
import { traceProvenance } from './provenance';
import { findRepeats } from './repeats';
import { measureRetention } from './retention';
import type { AnswerReview, SourceInfo } from './types';

/**
 * The review of a merged result against its sources: where each clause came from, what of each
 * source it keeps, and where the sources disagree. Computed from the texts alone, never taken on the model's word. Pure.
 */

/** Reviews a merge: provenance per clause (traced once, and reused to place the merge's terms in the sources' groups) and the disagreements. */
export function reviewMerge(problem: { documents: readonly string[]; sources?: readonly SourceInfo[] }, merged: string): AnswerReview {
  const traced = traceProvenance(merged, problem.documents, problem.sources);
  const disagreements = findDisagreements(problem.documents, merged, problem.sources, { provenance: traced.clauses });
  // Both cut the merge with splitClausesOnce: the i-th repeat belongs to the i-th clause.
  const repeats = findRepeats(merged);
  const clauses = traced.clauses.map((c, i) => (repeats[i] === undefined ? c : { ...c, repeats: repeats[i] }));
  const repeated = repeats.filter((r) => r !== undefined).length;
  return {
    clauses,
    counts: { ...traced.counts, repeated },
    disagreements,
    retention: measureRetention(merged, problem.documents, disagreements),
  };
}
