import {
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  type Sinks,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { GotActivities, LocalChecks } from '../activities';
import type { AnalyzedGoO } from '../src/goo/graph';
import { bestThought } from '../src/grs/analysis';
import { type GrsFact, GrsRecorder } from '../src/grs/recorder';
import { PAYLOAD_LIMITS } from '../src/run/footprint';
import type { RunRequest, RunRequestInput, RunResult } from '../src/run/request';
import { PATCH } from '../src/run/wire';
import { taskIdOf } from '../src/tasks/task-ref';
import { LOCAL_STEP_OPTIONS, llmOptionsOf } from './activity-options';
import { CallSlots } from './call-slots';
import type { RunContext } from './context';
import { grsQuery, progressQuery } from './definitions';
import { runFailed } from './failures';
import { startFork } from './fork';
import { HumanScoring } from './human-scores';
import { observeFact, runEnded, runStarted, UNCHECKED_TASK } from './metrics';
import { answerReview } from './paths/answer-review';
import { beforeFastSteps } from './paths/before-fast-steps';
import { claimCheck } from './paths/claim-check';
import { fastSteps } from './paths/fast-steps';
import { forkable } from './paths/forkable';
import { partsInChildren } from './paths/parts-in-children';
import { patientCalls } from './paths/patient-calls';
import { reaskUnusable } from './paths/reask-unusable';
import { samplesTogether } from './paths/samples-together';
import { steerable } from './paths/steerable';
import { preparingGrs, preparingProgress, progressOf } from './progress';
import { resultOf } from './result';
import { AnswerReviewing } from './review';
import { RunGraph } from './run-graph';
import { type OperationFailure, Scheduler } from './scheduler';
import { RunSteering } from './steering';
import { markFinished, markStarted, showProgress } from './web-ui';

/** Receives the GRS facts of a replayed run (see `src/inspect`); a no-op in ordinary workers. */
export interface GrsReplaySinks extends Sinks {
  grsReplay: { fact(fact: GrsFact): void };
}
const { grsReplay } = proxySinks<GrsReplaySinks>();

/**
 * The GoT Controller: interprets any valid GoO on one problem. Every operation starts as soon as
 * all its input operations are done, so independent branches run concurrently. LLM steps are
 * activities (retried, recorded in history); choosing among thoughts happens here, in pure code;
 * task-specific local checks (scores, validity, ground truth) run in the LLM step that made the
 * thought, or in a local activity for thoughts no LLM step made.
 */
export async function graphOfThoughts(input: RunRequestInput): Promise<RunResult> {
  // The one place a run's generation is chosen: retiring a patch deletes its path's file.
  const path = patched(PATCH.forks)
    ? forkable
    : patched(PATCH.steering)
      ? steerable
      : patched(PATCH.patientCalls)
        ? patientCalls
        : patched(PATCH.partsInChildren)
          ? partsInChildren
          : patched(PATCH.samplesTogether)
            ? samplesTogether
            : patched(PATCH.answerReview)
              ? answerReview
              : patched(PATCH.claimCheck)
                ? claimCheck
                : patched(PATCH.reask)
                  ? reaskUnusable
                  : patched(PATCH.fastSteps)
                    ? fastSteps
                    : beforeFastSteps;
  const humans = new HumanScoring();
  const reviewing = new AnswerReviewing();
  const steering = new RunSteering(path.obeysSteering === true, path.steersGraph === true);
  const local = proxyLocalActivities<GotActivities>(LOCAL_STEP_OPTIONS);

  // Queries are answered from the start, while the worker is still checking the request.
  let run: { ctx: RunContext; scheduler: Scheduler } | undefined;
  setHandler(grsQuery, () => (run?.ctx.grs ?? preparingGrs(input)).snapshot());
  setHandler(progressQuery, () =>
    run
      ? {
          ...progressOf(run.ctx.grs, run.ctx.graph, run.scheduler.running, humans.awaiting, run.ctx.elsewhere.running),
          ...(reviewing.awaiting ? { awaitingReview: true } : {}),
          ...(steering.isPaused ? { paused: true } : {}),
        }
      : preparingProgress(input),
  );

  const { request, analyzed, prepared } = await path.prepare(input, {
    local,
    humans,
    markStarted,
    markEnded: (error) => {
      const outcome = isCancellation(error) ? 'cancelled' : 'failed';
      markFinished(outcome, 0, undefined);
      runEnded({ task: UNCHECKED_TASK, outcome, error, budgetExhausted: false });
    },
  });
  const task = taskIdOf(request.task);
  runStarted(task);
  const grs = recorderFor(request, analyzed);
  const llmOptions = llmOptionsOf(request, path);
  const graph = new RunGraph(analyzed);
  const inheritance = path.inheritsFromParent && request.fork ? await startFork({ ...request, fork: request.fork }, grs) : undefined;
  const ctx: RunContext = {
    request,
    analyzed,
    graph,
    grs,
    root: grs.addRoot(prepared.rootState),
    problem: path.problemByReference && prepared.problemRef ? { problemRef: prepared.problemRef } : { problem: request.problem },
    path,
    humans,
    llm: proxyActivities<GotActivities>(llmOptions),
    llmOptions,
    local,
    checks: path.checksOf(request.goo.operations),
    checked: new Map<string, LocalChecks>(),
    slots: new CallSlots(
      request.llm.maxConcurrentCalls,
      path.takesFreeSlotAtOnce,
      path.boundsInlineBytes ? { bytes: PAYLOAD_LIMITS.workflowTaskBytes, storedFrom: prepared.storedFrom } : undefined,
    ),
    elsewhere: { costUsd: 0, tokens: 0, calls: 0, running: new Set<string>() },
    notes: new Map<string, string>(),
    ...(path.obeysSteering ? { steering } : {}),
    ...(path.steersGraph ? { steeredInstructions: (id: string) => steering.instructionsFor(id) } : {}),
    ...(inheritance ? { inheritance } : {}),
    progressChanged: () => showProgress(grs, graph, scheduler.running, humans.awaiting),
  };
  const scheduler = new Scheduler(ctx);
  run = { ctx, scheduler };
  if (path.obeysSteering) steering.attach(ctx, scheduler);

  let failure: OperationFailure | undefined;
  try {
    failure = await scheduler.run();
    steering.finishGraph();
    if (!failure && path.reviewsAnswers && prepared.reviewsAnswers) await reviewBest(ctx, reviewing, prepared.higherIsBetter);
  } catch (error) {
    if (isCancellation(error)) {
      markFinished('cancelled', grs.spent.costUsd, undefined);
      runEnded({ task, outcome: 'cancelled', budgetExhausted: grs.budgetExhausted });
    }
    throw error;
  }
  if (failure) {
    markFinished('failed', grs.spent.costUsd, undefined);
    runEnded({ task, outcome: 'failed', error: failure.error, budgetExhausted: grs.budgetExhausted });
    throw runFailed(failure);
  }
  const result = resultOf(ctx, prepared.higherIsBetter);
  const outcome = result.status === 'noAnswer' ? 'noAnswer' : 'completed';
  markFinished(outcome, grs.spent.costUsd, result.best?.score);
  runEnded({ task, outcome, budgetExhausted: grs.budgetExhausted });
  return result;
}

/**
 * Reviews the best answer when it is valid. A review that fails (after its retries) leaves the
 * answer unreviewed rather than failing a run whose LLM calls are all paid for; cancellation ends the run.
 */
async function reviewBest(ctx: RunContext, reviewing: AnswerReviewing, higherIsBetter: boolean): Promise<void> {
  const best = bestThought(ctx.grs.final(), higherIsBetter);
  if (!best?.valid) return;
  try {
    await reviewing.run(ctx, best);
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('the answer could not be reviewed; the run finishes without its review', { error: String(error) });
  }
}

/**
 * The run's GRS. Its facts are passed out while replaying (that is how `inspect` rebuilds it from
 * history), and counted in the worker's metrics otherwise.
 */
function recorderFor(request: RunRequest, analyzed: AnalyzedGoO): GrsRecorder {
  const task = taskIdOf(request.task);
  const grs: GrsRecorder = new GrsRecorder((fact) => {
    if (workflowInfo().unsafe.isReplaying) grsReplay.fact(fact);
    else observeFact(grs, task, fact);
  });
  return grs.init(task, request.goo.operations, analyzed.sinks);
}
