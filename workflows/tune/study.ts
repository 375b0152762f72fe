import { executeChild, isCancellation, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { CheckedStudy, TuneActivities } from '../../activities/tune';
import { FAILURE, TRIAL_WORKFLOW_TYPE } from '../../src/run/wire';
import type { StudyRequest, StudyRequestInput } from '../../src/tune/request';
import {
  bestTrial,
  briefOf,
  isCompleted,
  paretoFront,
  type StudyProgress,
  type StudyResult,
  type TrialResult,
} from '../../src/tune/results';
import { defaultSamplerOptions, suggest, type TrialOutcome } from '../../src/tune/sampler';
import { type Config, defaultsOf } from '../../src/tune/space';
import { sum } from '../../src/tune/stats';
import { asRunFailure, rootCause } from '../failures';
import { studyProgressQuery } from './definitions';
import type { TrialInput, tuneTrial } from './trial';
import { describeConfig, markTuneFinished, markTuneSpent, markTuneStarted, showStudyProgress } from './web-ui';

const local = proxyLocalActivities<TuneActivities>({
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.validation] },
});

/**
 * A study (`got tune`): proposes a configuration, evaluates it as a child `tuneTrial` workflow,
 * learns from the result, and repeats for `trials` trials; returns every trial, the best feasible
 * one and the Pareto front of score against cost. Trials run one after the other (each proposal
 * learns from all before it); a trial's samples run in parallel. Everything the study decided is
 * in its history and the sampler is pure and seeded, so a study resumed after a crash replays to
 * where it was and goes on with the trial under way, which resumes the same way.
 */
export async function tuneStudy(input: StudyRequestInput): Promise<StudyResult> {
  const trials: TrialResult[] = [];
  let running: StudyProgress['running'];
  let checked: CheckedStudy | undefined;
  const progress = (): StudyProgress => progressOf(checked, trials, running, (input as { trials?: number }).trials ?? 0);
  setHandler(studyProgressQuery, progress);

  try {
    checked = await local.prepareStudy(input);
    const study = checked;
    const { request, space } = study;
    // The worker checked the samples too; they stay in this workflow's input rather than in its history again.
    const samples = (input as StudyRequest).samples;
    markTuneStarted(study.task, study.scheme);
    const sampler = defaultSamplerOptions({ seed: request.seed, higherIsBetter: study.higherIsBetter, trials: request.trials });
    for (let index = 0; index < request.trials; index++) {
      const baseline = index === 0 && request.baseline;
      const config = baseline ? defaultsOf(space) : suggest(space, trials.map(outcomeOf(request)), index, sampler);
      running = { index, config };
      showStudyProgress(progress(), trials);
      trials.push(await runTrial({ index, config, baseline, study: request, samples, ...pick(study) }));
      running = undefined;
      const p = progress();
      markTuneSpent(p.costUsd, p.best?.meanScore);
      showStudyProgress(p, trials);
    }
    markTuneFinished('completed');
    const best = bestTrial(trials, study.higherIsBetter);
    return {
      task: study.task,
      scheme: study.scheme,
      size: request.size,
      space,
      higherIsBetter: study.higherIsBetter,
      ...(request.maxCostPerSample !== undefined ? { maxCostPerSample: request.maxCostPerSample } : {}),
      trials,
      ...(best !== undefined ? { best } : {}),
      pareto: paretoFront(trials, study.higherIsBetter),
      costUsd: sum(trials.map((t) => t.costUsd)),
      paidUsd: sum(trials.map((t) => t.paidUsd)),
    };
  } catch (error) {
    markTuneFinished(isCancellation(error) ? 'cancelled' : 'failed');
    throw asRunFailure(error); // a study the worker refused fails as a ValidationError naming the fields
  }
}

/** A trial as a child workflow; a trial that fails (its GoO could not be built) is a failed, infeasible trial. */
async function runTrial(input: TrialInput): Promise<TrialResult> {
  const workflowId = `${workflowInfo().workflowId}-t${input.index}`;
  try {
    return await executeChild<typeof tuneTrial>(TRIAL_WORKFLOW_TYPE, {
      workflowId,
      args: [input],
      staticSummary: `trial ${input.index}${input.baseline ? ' (baseline)' : ''}: ${describeConfig(input.config)}`,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return {
      index: input.index,
      config: input.config,
      baseline: input.baseline,
      workflowId,
      status: 'failed',
      samples: [],
      feasible: false,
      stoppedBecause: 'failed',
      llmCalls: 0,
      cachedCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
      paidUsd: 0,
      solvedShare: 0,
      error: rootCause(error),
    };
  }
}

function pick(study: CheckedStudy): Pick<TrialInput, 'scheme' | 'higherIsBetter' | 'noAnswerScore'> {
  return { scheme: study.scheme, higherIsBetter: study.higherIsBetter, noAnswerScore: study.noAnswerScore };
}

/** What the sampler learns from a trial. */
const outcomeOf =
  (request: CheckedStudy['request']) =>
  (t: TrialResult): TrialOutcome => ({
    config: t.config,
    ...(isCompleted(t) ? { score: t.score.mean } : {}),
    feasible: t.feasible,
    costExcess: isCompleted(t) && request.maxCostPerSample !== undefined ? Math.max(0, t.cost.mean - request.maxCostPerSample) : 0,
  });

function progressOf(
  study: CheckedStudy | undefined,
  trials: TrialResult[],
  running: StudyProgress['running'],
  planned: number,
): StudyProgress {
  const best = study ? bestTrial(trials, study.higherIsBetter) : undefined;
  const b = best !== undefined ? trials[best] : undefined;
  return {
    trialsPlanned: study?.request.trials ?? planned,
    trialsDone: trials.length,
    ...(running ? { running } : {}),
    feasible: trials.filter((t) => t.feasible).length,
    ...(b && isCompleted(b)
      ? { best: { index: b.index, config: b.config as Config, meanScore: b.score.mean, meanCostUsd: b.cost.mean } }
      : {}),
    costUsd: sum(trials.map((t) => t.costUsd)),
    paidUsd: sum(trials.map((t) => t.paidUsd)),
    done: trials.map(briefOf),
  };
}
