import type { Config, SearchSpace } from './space';
import type { Interval } from './stats';
import type { StopReason } from './stopping';

/**
 * What a study's trials return and how they are compared: feasibility under the cost limit, the
 * best feasible trial, and the Pareto front of score against cost. Pure (the study workflow uses it).
 */

/** One sample of a trial: one Controller run of the configuration on one problem. */
export interface SampleOutcome {
  sample: string;
  workflowId: string;
  status: 'completed' | 'noAnswer' | 'failed';
  /** The best final thought's score; the task's no-answer score for a run without one; null when the run failed. */
  score: number | null;
  solved: boolean | null;
  costUsd: number;
  llmCalls: number;
  /** Of those calls, how many the response cache replayed. */
  cachedCalls: number;
  /** What the run really paid: the cost of its calls the cache did not replay. */
  paidUsd: number;
  promptTokens: number;
  completionTokens: number;
  error?: string;
}

/** One trial: a configuration evaluated on as many samples as the stopping rule asked for. */
export interface TrialResult {
  index: number;
  config: Config;
  /** The baseline: every parameter at the paper's value. */
  baseline: boolean;
  workflowId: string;
  status: 'completed' | 'failed';
  samples: SampleOutcome[];
  /** The mean score with its confidence interval (over the samples evaluated); absent when the trial failed. */
  score?: Interval;
  /** The mean cost per sample (recorded costs, cached calls included) with its interval; absent when the trial failed. */
  cost?: Interval;
  /** Mean cost per sample within the study's limit (a failed trial is never feasible). */
  feasible: boolean;
  stoppedBecause: StopReason | 'failed';
  llmCalls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** What the trial's runs would have cost without the cache, and what they really cost (calls not replayed). */
  costUsd: number;
  paidUsd: number;
  solvedShare: number;
  error?: string;
}

/** The study's answer. */
export interface StudyResult {
  task: string;
  /** The tuned scheme's name, or `goo` for a GoO file. */
  scheme: string;
  size: number;
  space: SearchSpace;
  higherIsBetter: boolean;
  maxCostPerSample?: number;
  trials: TrialResult[];
  /** Index of the best feasible trial (by mean score, then lower cost, then earlier). */
  best?: number;
  /** Indices of the completed trials no other completed trial beats on both mean score and mean cost, cheapest first. */
  pareto: number[];
  /** Recorded cost of all trials, and what the study really paid (replayed calls excluded). */
  costUsd: number;
  paidUsd: number;
}

/** The `studyProgress` query's answer. */
export interface StudyProgress {
  trialsPlanned: number;
  trialsDone: number;
  /** The trial under way: its index and configuration. */
  running?: { index: number; config: Config };
  feasible: number;
  best?: { index: number; config: Config; meanScore: number; meanCostUsd: number };
  costUsd: number;
  paidUsd: number;
  /** The trials done so far, in brief (the CLI prints each as it finishes). */
  done: TrialBrief[];
}

/** A finished trial in a line. */
export interface TrialBrief {
  index: number;
  config: Config;
  status: TrialResult['status'];
  samples: number;
  meanScore?: number;
  halfWidth?: number;
  meanCostUsd?: number;
  feasible: boolean;
}

/** A trial in brief. */
export function briefOf(t: TrialResult): TrialBrief {
  return {
    index: t.index,
    config: t.config,
    status: t.status,
    samples: t.samples.length,
    ...(t.score ? { meanScore: t.score.mean, halfWidth: t.score.halfWidth } : {}),
    ...(t.cost ? { meanCostUsd: t.cost.mean } : {}),
    feasible: t.feasible,
  };
}

/** The `trialProgress` query's answer: samples done and the interval so far. */
export interface TrialProgress {
  index: number;
  config: Config;
  samplesDone: number;
  samplesRunning: number;
  samplesBudget: number;
  meanScore?: number;
  meanCostUsd?: number;
}

/** Whether a mean cost per sample keeps within the limit (no limit: always). */
export function withinCost(meanCostUsd: number, maxCostPerSample: number | undefined): boolean {
  return maxCostPerSample === undefined || meanCostUsd <= maxCostPerSample;
}

/** A completed trial: its score and cost are known. */
export type CompletedTrial = TrialResult & { score: Interval; cost: Interval };

/** Whether the trial completed (its runs all ended), so its score and cost are known. */
export const isCompleted = (t: TrialResult): t is CompletedTrial => t.status === 'completed' && !!t.score && !!t.cost;

/** Is `a` better than `b` on mean score (ties broken by lower cost, then the earlier trial)? */
function better(a: CompletedTrial, b: CompletedTrial, higherIsBetter: boolean): boolean {
  if (a.score.mean !== b.score.mean) return higherIsBetter ? a.score.mean > b.score.mean : a.score.mean < b.score.mean;
  if (a.cost.mean !== b.cost.mean) return a.cost.mean < b.cost.mean;
  return a.index < b.index;
}

/** The best feasible trial's index, if any trial is feasible. */
export function bestTrial(trials: readonly TrialResult[], higherIsBetter: boolean): number | undefined {
  let best: CompletedTrial | undefined;
  for (const t of trials) if (t.feasible && isCompleted(t) && (!best || better(t, best, higherIsBetter))) best = t;
  return best?.index;
}

/** The completed trials on the Pareto front of (mean score, mean cost), cheapest first. */
export function paretoFront(trials: readonly TrialResult[], higherIsBetter: boolean): number[] {
  const done = trials.filter(isCompleted);
  const atLeastAsGood = (a: CompletedTrial, b: CompletedTrial) =>
    higherIsBetter ? a.score.mean >= b.score.mean : a.score.mean <= b.score.mean;
  const dominates = (a: CompletedTrial, b: CompletedTrial) =>
    atLeastAsGood(a, b) && a.cost.mean <= b.cost.mean && (a.score.mean !== b.score.mean || a.cost.mean !== b.cost.mean);
  const front = done.filter((t) => !done.some((o) => o !== t && dominates(o, t)));
  // Equal points: keep the earliest trial only.
  const unique = front.filter((t) => !front.some((o) => o.index < t.index && o.score.mean === t.score.mean && o.cost.mean === t.cost.mean));
  return unique.sort((a, b) => a.cost.mean - b.cost.mean || a.index - b.index).map((t) => t.index);
}
