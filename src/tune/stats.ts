/**
 * The few statistics a study needs: means, sample standard deviations and Student-t confidence
 * intervals. Pure (no I/O, no clock, no randomness): the trial workflow decides with them.
 */

/** The sum of the values (0 for none). */
export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** The arithmetic mean (NaN for no values). */
export function mean(values: readonly number[]): number {
  return values.length ? sum(values) / values.length : Number.NaN;
}

/** The sample standard deviation (n − 1 in the denominator); 0 for fewer than two values. */
export function sampleStd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((a, v) => a + (v - m) ** 2, 0) / (values.length - 1));
}

/** A mean with its two-sided confidence interval. */
export interface Interval {
  mean: number;
  /** Half the interval's width; Infinity with fewer than two values (nothing is known of the spread). */
  halfWidth: number;
  low: number;
  high: number;
}

/** The Student-t confidence interval of the mean at `confidence` (e.g. 0.95). */
export function tInterval(values: readonly number[], confidence: number): Interval {
  const m = mean(values);
  const n = values.length;
  const halfWidth = n < 2 ? Number.POSITIVE_INFINITY : tQuantile((1 + confidence) / 2, n - 1) * (sampleStd(values) / Math.sqrt(n));
  return { mean: m, halfWidth, low: m - halfWidth, high: m + halfWidth };
}

/** The p-quantile of Student's t distribution with `df` degrees of freedom (p in (0, 1)). */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) throw new RangeError(`tQuantile needs 0 < p < 1 and df > 0, got p = ${p}, df = ${df}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  // Bisection on the CDF: 200 halvings of [0, 1e6] are far below double precision.
  let lo = 0;
  let hi = 1e6;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function tCdf(t: number, df: number): number {
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz). */
function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // The fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) otherwise.
  if (x > (a + 1) / (a + b + 2)) return 1 - regularizedBeta(1 - x, b, a);
  const front = Math.exp(a * Math.log(x) + b * Math.log(1 - x) - logBeta(a, b)) / a;
  const tiny = 1e-300;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 400; i++) {
    const m = Math.floor(i / 2);
    let numerator: number;
    if (i === 0) numerator = 1;
    else if (i % 2 === 0) numerator = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else numerator = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + numerator * d;
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    c = 1 + numerator / c;
    if (Math.abs(c) < tiny) c = tiny;
    const cd = c * d;
    f *= cd;
    if (Math.abs(1 - cd) < 1e-15) break;
  }
  return front * (f - 1);
}

function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients: about 15 significant digits). */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const g = 7;
  const coefficients = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406, 12.507343278686905,
    -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let sum = coefficients[0]!;
  for (let i = 1; i < coefficients.length; i++) sum += coefficients[i]! / (z + i);
  const t = z + g + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Splits of the pooled values an exact test enumerates before it falls back to Welch's t (10 + 10 values: 184,756). */
export const EXACT_SPLITS_LIMIT = 2_000_000;

/**
 * The one-sided p-value of "a's mean is below b's": the share of all ways to deal the pooled values
 * into groups of a's and b's sizes whose first group's mean is at most a's (an exact permutation
 * test: no assumption of normality, which a few runs' errors, with the odd run hundreds off, do not
 * meet). Past EXACT_SPLITS_LIMIT splits it is Welch's t-test, which many values make fair. 1 when
 * either group is empty.
 */
export function pBelow(a: readonly number[], b: readonly number[]): number {
  if (!a.length || !b.length) return 1;
  const pooled = [...a, ...b];
  const k = a.length;
  if (binomial(pooled.length, k) > EXACT_SPLITS_LIMIT) return welchPBelow(a, b);
  // With the pooled total fixed, a group's mean difference rises with its sum: count the groups of
  // k values whose sum is at most a's (a relative tolerance keeps float ties ties).
  const observed = sum(a);
  const bound = observed + 1e-9 * Math.max(1, Math.abs(observed));
  let atMost = 0;
  let all = 0;
  const deal = (from: number, left: number, total: number): void => {
    if (left === 0) {
      all++;
      if (total <= bound) atMost++;
      return;
    }
    for (let i = from; i <= pooled.length - left; i++) deal(i + 1, left - 1, total + pooled[i]!);
  };
  deal(0, k, 0);
  return atMost / all;
}

/** Welch's one-sided t-test of "a's mean is below b's" (unequal variances, Welch–Satterthwaite df). */
function welchPBelow(a: readonly number[], b: readonly number[]): number {
  const va = sampleStd(a) ** 2 / a.length;
  const vb = sampleStd(b) ** 2 / b.length;
  const diff = mean(a) - mean(b);
  if (va + vb === 0) return diff < 0 ? 0 : 1;
  const df = (va + vb) ** 2 / (va ** 2 / Math.max(1, a.length - 1) + vb ** 2 / Math.max(1, b.length - 1));
  return tCdf(diff / Math.sqrt(va + vb), df);
}

/** n choose k, as a float (exact while below 2^53). */
function binomial(n: number, k: number): number {
  const m = Math.min(k, n - k);
  let c = 1;
  for (let i = 1; i <= m; i++) c = (c * (n - m + i)) / i;
  return c;
}
