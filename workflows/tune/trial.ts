import { executeChild, isCancellation, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { TuneActivities } from '../../activities/tune';
import { runOutcome } from '../../src/run/outcome';
import type { RunResult } from '../../src/run/request';
import { FAILURE, WORKFLOW_TYPE } from '../../src/run/wire';
import type { TaskRef } from '../../src/tasks/task-ref';
import type { GooSource } from '../../src/tune/configure';
import type { StudyRequest } from '../../src/tune/request';
import { type SampleOutcome, type TrialResult, withinCost } from '../../src/tune/results';
import { runRequestFor } from '../../src/tune/run-request';
import type { Config } from '../../src/tune/space';
import { mean, sum, tInterval } from '../../src/tune/stats';
import { nextBatchSize, type StopDecision, stopDecision } from '../../src/tune/stopping';
import { rootCause } from '../failures';
import type { graphOfThoughts } from '../got';
import { trialProgressQuery } from './definitions';
import { describeConfig, markTuneFinished, markTuneSpent, markTuneStarted, showTrialProgress } from './web-ui';

/** What a trial is given by its study. */
export interface TrialInput {
  index: number;
  config: Config;
  baseline: boolean;
  /** The study's request, its samples apart. */
  study: Omit<StudyRequest, 'samples'>;
  samples: StudyRequest['samples'];
  scheme: string;
  higherIsBetter: boolean;
  /** What a run that ends without an answer scores (the task's unreadable-answer score, as in evaluations). */
  noAnswerScore: number;
}

const local = proxyLocalActivities<TuneActivities>({
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.validation] },
});

/**
 * One trial of a study: the configuration's GoO run on the study's samples, a batch of child
 * Controller runs at a time, until the score's interval is narrow enough, the configuration is
 * clearly over the cost limit, or every sample is done (`src/tune/stopping.ts`). A run that is done
 * is in this workflow's history: a trial resumed after a crash awaits only the runs still open,
 * whose own histories hold the LLM calls they had finished.
 */
export async function tuneTrial(input: TrialInput): Promise<TrialResult> {
  const { study, samples, index, config } = input;
  const outcomes: SampleOutcome[] = [];
  let running = 0;
  const progress = () => {
    const scores = outcomes.map((o) => o.score ?? Number.NaN);
    const known = outcomes.length > 0 && scores.every(Number.isFinite);
    return {
      index,
      config,
      samplesDone: outcomes.length,
      samplesRunning: running,
      samplesBudget: samples.length,
      ...(known ? { meanScore: mean(scores), meanCostUsd: mean(outcomes.map((o) => o.costUsd)) } : {}),
    };
  };
  setHandler(trialProgressQuery, progress);
  const show = () => {
    const p = progress();
    showTrialProgress({
      index,
      config,
      done: p.samplesDone,
      running,
      budget: samples.length,
      ...(p.meanScore !== undefined ? { meanScore: p.meanScore, meanCost: p.meanCostUsd! } : {}),
    });
  };
  markTuneStarted(typeof study.task === 'string' ? study.task : study.task.id, input.scheme);
  show();

  try {
    // A study that searches prompts gets the task with this configuration's prompt set back (decision 73);
    // studies before it have none and run the study's task, as they did.
    const { goos, bySample, task } = await local.trialGoOs({
      task: study.task,
      source: study.source as GooSource,
      size: study.size,
      params: config,
      problems: samples.map((s) => s.problem),
      ...(study.promptSearch ? { promptSearch: study.promptSearch } : {}),
    });
    let decision: StopDecision | undefined;
    let failed: SampleOutcome | undefined;
    while (!decision?.stop && !failed) {
      const size = nextBatchSize(outcomes.length, samples.length, study.stop);
      if (size === 0) break;
      const first = outcomes.length;
      running = size;
      show();
      const batch = await Promise.all(
        samples.slice(first, first + size).map((sample, j) => runSample(input, sample, first + j, goos[bySample[first + j]!]!, task)),
      );
      running = 0;
      outcomes.push(...batch);
      failed = batch.find((o) => o.status === 'failed');
      if (!failed)
        decision = stopDecision({
          scores: outcomes.map((o) => o.score!),
          costs: outcomes.map((o) => o.costUsd),
          budget: samples.length,
          rule: study.stop,
          ...(study.maxCostPerSample !== undefined ? { maxCostPerSample: study.maxCostPerSample } : {}),
        });
      const p = progress();
      markTuneSpent(sum(outcomes.map((o) => o.costUsd)), p.meanScore);
      show();
    }
    const result = trialResultOf(input, outcomes, failed ? { failed } : { reason: decision?.reason ?? 'budget' });
    markTuneFinished(result.status === 'failed' ? 'failed' : 'completed');
    return result;
  } catch (error) {
    markTuneFinished(isCancellation(error) ? 'cancelled' : 'failed');
    throw error;
  }
}

/** One sample: a child Controller run; its failure is the sample's, not the trial's. */
async function runSample(
  input: TrialInput,
  sample: { id: string; problem: unknown },
  i: number,
  goo: TrialGoO,
  task?: TaskRef,
): Promise<SampleOutcome> {
  const workflowId = `${workflowInfo().workflowId}-s${i}`;
  const request = runRequestFor(input.study, { sample, goo, labels: { trial: input.index }, ...(task ? { task } : {}) });
  try {
    const result = await executeChild<typeof graphOfThoughts>(WORKFLOW_TYPE, {
      workflowId,
      args: [request],
      staticSummary: `trial ${input.index}, sample ${sample.id}: ${describeConfig(input.config)}`,
    });
    return sampleOutcomeOf(result, sample.id, workflowId, input.noAnswerScore);
  } catch (error) {
    if (isCancellation(error)) throw error;
    return {
      sample: sample.id,
      workflowId,
      status: 'failed',
      score: null,
      solved: null,
      costUsd: 0,
      llmCalls: 0,
      cachedCalls: 0,
      paidUsd: 0,
      promptTokens: 0,
      completionTokens: 0,
      error: rootCause(error),
    };
  }
}

type TrialGoO = Parameters<typeof runRequestFor>[1]['goo'];

/** A run's result as a sample of the trial: a run without a valid scored answer counts as an unreadable answer, as in evaluations. */
function sampleOutcomeOf(result: RunResult, sample: string, workflowId: string, noAnswerScore: number): SampleOutcome {
  const { totals, calls } = result.grs;
  const { status, score, solved } = runOutcome(result, noAnswerScore);
  return {
    sample,
    workflowId,
    status,
    score,
    solved,
    costUsd: totals.costUsd,
    llmCalls: totals.llmCalls,
    cachedCalls: calls.filter((c) => c.cached).length,
    paidUsd: sum(calls.filter((c) => !c.cached).map((c) => c.costUsd)),
    promptTokens: totals.promptTokens,
    completionTokens: totals.completionTokens,
  };
}

/** The trial's summary from its samples. */
function trialResultOf(
  input: TrialInput,
  outcomes: SampleOutcome[],
  end: { failed: SampleOutcome } | { reason: TrialResult['stoppedBecause'] },
): TrialResult {
  const confidence = input.study.stop.confidence;
  const scored = outcomes.filter((o) => o.score !== null);
  const score = tInterval(
    scored.map((o) => o.score!),
    confidence,
  );
  const cost = tInterval(
    outcomes.map((o) => o.costUsd),
    confidence,
  );
  const failed = 'failed' in end;
  return {
    index: input.index,
    config: input.config,
    baseline: input.baseline,
    workflowId: workflowInfo().workflowId,
    status: failed ? 'failed' : 'completed',
    samples: outcomes,
    // A completed trial has at least `minSamples` (>= 2) samples, so its intervals are finite (JSON keeps no Infinity).
    ...(failed ? {} : { score, cost }),
    feasible: !failed && withinCost(cost.mean, input.study.maxCostPerSample),
    stoppedBecause: failed ? 'failed' : end.reason,
    llmCalls: sum(outcomes.map((o) => o.llmCalls)),
    cachedCalls: sum(outcomes.map((o) => o.cachedCalls)),
    promptTokens: sum(outcomes.map((o) => o.promptTokens)),
    completionTokens: sum(outcomes.map((o) => o.completionTokens)),
    costUsd: sum(outcomes.map((o) => o.costUsd)),
    paidUsd: sum(outcomes.map((o) => o.paidUsd)),
    solvedShare: outcomes.length ? outcomes.filter((o) => o.solved === true).length / outcomes.length : 0,
    ...(failed ? { error: `sample ${end.failed.sample} (${end.failed.workflowId}) failed: ${end.failed.error}` } : {}),
  };
}
