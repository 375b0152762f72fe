/** Score of an unparseable answer, as in the paper's runs. */
export const UNPARSEABLE_SCORE = 1000;

export interface IntersectionErrors {
  /** Distinct numbers in the answer that are not in the true intersection. */
  wronglyIncluded: number;
  /** Numbers of the true intersection absent from the answer. */
  missing: number;
  /** Extra copies: every occurrence of a number beyond its first. */
  duplicates: number;
}

/** The true intersection, in the order of `b`. */
export function intersect(a: readonly number[], b: readonly number[]): number[] {
  const inA = new Set(a);
  return [...new Set(b)].filter((x) => inA.has(x));
}

export function intersectionErrors(truth: readonly number[], answer: readonly number[]): IntersectionErrors {
  const want = new Set(truth);
  const got = new Set(answer);
  return {
    wronglyIncluded: [...got].filter((x) => !want.has(x)).length,
    missing: [...want].filter((x) => !got.has(x)).length,
    duplicates: answer.length - got.size,
  };
}

/**
 * The paper's error scope for set intersection: wrongly included + missing + duplicated numbers.
 * 0 means the exact intersection; lower is better. Equal to the multiset difference the reference
 * counts (a wrong number written twice costs two).
 */
export function errorScope(truth: readonly number[], answer: readonly number[]): number {
  const e = intersectionErrors(truth, answer);
  return e.wronglyIncluded + e.missing + e.duplicates;
}
