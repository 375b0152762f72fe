import { type Interval, tInterval } from './stats';

/**
 * When a trial has seen enough samples. A trial evaluates its configuration on the study's samples
 * in batches and stops as soon as one of these holds (checked after each batch, from `minSamples` on):
 *
 * - **narrow**: the score's `confidence` Student-t interval has a half-width of at most
 *   `max(absHalfWidth, relHalfWidth × |mean score|)`;
 * - **infeasible**: the study has a cost limit and even the lower end of the mean cost's interval
 *   lies above it, so more samples would only confirm that the configuration costs too much;
 * - **budget**: every sample of the study has been evaluated.
 *
 * Pure: the trial workflow calls it on the scores its child runs returned.
 */

/** The stopping rule's settings. */
export interface StopRule {
  /** Samples a trial evaluates before any rule may stop it (at least 2: one value has no spread). */
  minSamples: number;
  /** Samples started together after the first `minSamples`. */
  batch: number;
  /** The two-sided confidence of the intervals, e.g. 0.95. */
  confidence: number;
  /** Narrow enough: half-width at most this fraction of the mean's magnitude... */
  relHalfWidth: number;
  /** ...or at most this many score units (for means near 0, where a fraction of the mean means nothing). */
  absHalfWidth: number;
}

/**
 * The defaults: a 95% t-interval narrower than ±10% of the mean, after at least 5 samples, 5 at a
 * time. Five, not fewer: identical scores (a scheme that solves every sample so far) give an
 * interval of zero width, and three zeros say too little about how often a configuration errs.
 */
export const DEFAULT_STOP_RULE: StopRule = { minSamples: 5, batch: 5, confidence: 0.95, relHalfWidth: 0.1, absHalfWidth: 0 };

/** Why a trial stopped evaluating samples. */
export type StopReason = 'narrow' | 'infeasible' | 'budget';

/** What the rule says after a batch: stop (and why) or go on. */
export interface StopDecision {
  stop: boolean;
  reason?: StopReason;
  score: Interval;
  cost: Interval;
}

/** Applies the rule to the scores and costs per sample seen so far, out of `budget` samples. */
export function stopDecision(o: {
  scores: readonly number[];
  costs: readonly number[];
  budget: number;
  rule: StopRule;
  maxCostPerSample?: number;
}): StopDecision {
  const score = tInterval(o.scores, o.rule.confidence);
  const cost = tInterval(o.costs, o.rule.confidence);
  const decided = (reason: StopReason): StopDecision => ({ stop: true, reason, score, cost });
  const n = o.scores.length;
  if (n >= o.rule.minSamples) {
    if (o.maxCostPerSample !== undefined && cost.low > o.maxCostPerSample) return decided('infeasible');
    if (score.halfWidth <= Math.max(o.rule.absHalfWidth, o.rule.relHalfWidth * Math.abs(score.mean))) return decided('narrow');
  }
  if (n >= o.budget) return decided('budget');
  return { stop: false, score, cost };
}

/** How many samples the next batch starts: the first `minSamples`, then `batch` at a time, never past the budget. */
export function nextBatchSize(done: number, budget: number, rule: StopRule): number {
  return Math.max(0, Math.min(done === 0 ? rule.minSamples : rule.batch, budget - done));
}
