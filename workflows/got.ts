import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  condition,
  defineQuery,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  setHandler,
  workflowInfo,
  type ActivityOptions,
  type Sinks,
} from '@temporalio/workflow';
import type { CallReport, GotActivities, LlmStep, LocalCheck, LocalChecks, PreparedRun } from '../activities';
import { analyzeGoO, callsLlm, ValidationError, type AnalyzedGoO } from '../src/goo/graph';
import type { Operation, OperationOf, Scorer } from '../src/goo/schema';
import { GrsRecorder, type GrsFact, type NewThought } from '../src/grs/recorder';
import { bestThought, finalThoughts } from '../src/grs/analysis';
import type { Grs, LlmCall, Thought } from '../src/grs/types';
import { keepBestN, keepValidOnly, select, uniqueThoughts } from '../src/operations/filters';
import type { Progress, RunRequest, RunRequestInput, RunResult } from '../src/run/request';
import { taskIdOf } from '../src/tasks/task-ref';
import { hashSeed } from '../src/util/random';
import { HumanScoring } from './human-scores';
import { markFinished, markStarted, showProgress } from './web-ui';

type LlmScorerSpec = Extract<Scorer, { kind: 'llm' }>;
type HumanScorerSpec = Extract<Scorer, { kind: 'human' }>;

/** The latest history-recorded time an operation has seen: its end once it is done. */
interface OpClock {
  at: number;
  saw(time: number): void;
}
const opClock = (start: number): OpClock => ({
  at: start,
  saw(time) {
    this.at = Math.max(this.at, time);
  },
});

/** Receives the GRS facts of a replayed run (see `src/inspect`); a no-op in ordinary workers. */
export interface GrsReplaySinks extends Sinks {
  grsReplay: { fact(fact: GrsFact): void };
}
const { grsReplay } = proxySinks<GrsReplaySinks>();

/**
 * Runs started since this patch leave checking the request to the worker (the schema library stays
 * out of the workflow, whose modules are evaluated again for every run), check new thoughts inside
 * the LLM step that produced them, finish filters in the same turn and take a free call slot without
 * waiting one: one workflow activation per dependent step instead of two (docs/decisions.md, 16).
 * Runs recorded before it replay on the old path, which stays as it was (`test/replay.test.ts`).
 */
export const FAST_STEPS_PATCH = 'fast-steps';

export const progressQuery = defineQuery<Progress>('progress');
export const grsQuery = defineQuery<Grs>('grs');

/**
 * The GoT Controller: interprets any valid GoO on one problem. Every operation starts as soon as
 * all its input operations are done, so independent branches run concurrently. LLM steps are
 * activities (retried, recorded in history); choosing among thoughts happens here, in pure code;
 * task-specific local checks (scores, validity, ground truth) run in the LLM step that made the
 * thought, or in a local activity for thoughts no LLM step made.
 */
export async function graphOfThoughts(input: RunRequestInput): Promise<RunResult> {
  const fast = patched(FAST_STEPS_PATCH);
  const humans = new HumanScoring();
  const local = proxyLocalActivities<GotActivities>({
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['ValidationError'] },
  });
  /** Checks the request against its task and makes the root thought, before any LLM money is spent. */
  async function prepare(checked: unknown): Promise<PreparedRun> {
    try {
      return await local.prepareRun(checked);
    } catch (error) {
      markFinished(isCancellation(error) ? 'cancelled' : 'failed', 0, undefined);
      throw fast ? asRunFailure(error) : error;
    }
  }

  // Queries are answered from the start, while the worker is still checking the request.
  let ready: { grs: GrsRecorder; analyzed: AnalyzedGoO } | undefined;
  const running = new Set<string>();
  setHandler(grsQuery, () => (ready?.grs ?? preparingGrs(input)).snapshot());
  setHandler(progressQuery, () => (ready ? progressOf(ready.grs, ready.analyzed, running, humans.awaiting) : preparingProgress(input)));

  let prepared: PreparedRun | undefined;
  let request: RunRequest;
  let analyzed: AnalyzedGoO;
  if (fast) {
    prepared = await prepare(input);
    request = { ...prepared.request!, problem: input.problem } as RunRequest;
    analyzed = analyzeGoO(request.goo);
  } else ({ request, analyzed } = await parseRequestHere(input, humans));
  // Facts are passed out only while replaying: that is how `inspect` rebuilds the GRS from history.
  const grs = new GrsRecorder((fact) => {
    if (workflowInfo().unsafe.isReplaying) grsReplay.fact(fact);
  }).init(taskIdOf(request.task), request.goo.operations, analyzed.sinks);
  ready = { grs, analyzed };
  const progressChanged = () => showProgress(grs, analyzed.order.length, running, humans.awaiting);
  markStarted(request);

  const llmOptions: ActivityOptions = {
    // A cancelled run ends at once; each running LLM call learns of the cancel at its next heartbeat and aborts its request.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    // Durations in milliseconds: the SDK parses duration strings again for every activity it schedules.
    startToCloseTimeout: request.llm.timeoutSeconds * 1000,
    // A worker that dies mid-call is noticed within this, not after the whole call timeout.
    heartbeatTimeout: request.llm.heartbeatSeconds * 1000,
    retry: {
      initialInterval: 1_000,
      backoffCoefficient: 2,
      maximumInterval: 60_000,
      maximumAttempts: request.llm.maxAttempts,
      nonRetryableErrorTypes: ['LlmRequestRejected', 'ValidationError', 'PromptError'],
    },
  };
  const llm = proxyActivities<GotActivities>(llmOptions);
  // The Web UI lists each LLM call by this line: which operation, what for, from which thoughts.
  const summarised = (summary: string): ActivityOptions => ({ ...llmOptions, summary: summary.length > 200 ? `${summary.slice(0, 199)}…` : summary });

  prepared ??= await prepare(request);
  const { rootState, higherIsBetter } = prepared;
  const root = grs.addRoot(rootState);
  const localStep = (thoughts: Thought[]) => ({ task: request.task, problem: request.problem, states: thoughts.map((t) => t.state) });
  const checks = fast ? localChecksOf(request.goo.operations) : [];
  /** Local checks of the thoughts LLM steps produced, by thought id (see FAST_STEPS_PATCH). */
  const checked = new Map<string, LocalChecks>();
  /** Every input's value of one check when the steps that made them computed it; else undefined (a local activity computes them). */
  function known<K extends keyof LocalChecks>(inputs: Thought[], key: K): NonNullable<LocalChecks[K]>[] | undefined {
    if (!fast) return undefined;
    const values = inputs.map((t) => checked.get(t.id)?.[key]);
    return values.every((v) => v !== undefined) ? (values as NonNullable<LocalChecks[K]>[]) : undefined;
  }

  const budgetLeft = (): boolean => {
    const { costUsd, promptTokens, completionTokens } = grs.spent;
    const b = request.budget;
    const left = !b || ((b.maxCostUsd === undefined || costUsd < b.maxCostUsd) && (b.maxTokens === undefined || promptTokens + completionTokens < b.maxTokens));
    if (!left) grs.markBudgetExhausted();
    return left;
  };

  let callsInFlight = 0;
  /** Holds an LLM call until fewer than `maxConcurrentCalls` are in flight, so a huge fan-out queues instead of failing. */
  async function withCallSlot<T>(call: () => Promise<T>): Promise<T> {
    const free = () => callsInFlight < request.llm.maxConcurrentCalls && ++callsInFlight > 0;
    // The predicate takes the slot itself: waiting conditions are all checked before any awaiting code resumes.
    if (!(fast && free())) await condition(free);
    try {
      return await call();
    } finally {
      callsInFlight--;
    }
  }

  /** One LLM step; returns the created thoughts, or none when the budget is spent. */
  async function askLlm(op: Operation & { prompt: string; params?: Record<string, unknown> }, clock: OpClock, key: string, purpose: LlmStep['purpose'], inputs: Thought[], samples: number): Promise<Thought[]> {
    if (!budgetLeft()) return [];
    const from = inputs.map((t) => t.id).join(', ');
    const parents = inputs.map((t) => t.id);
    const step = (n: number, seed: number): LlmStep => ({
      task: request.task,
      purpose,
      prompt: op.prompt,
      params: op.params ?? {},
      thoughts: inputs.map((t) => t.state),
      problem: request.problem,
      samples: n,
      llm: request.llm,
      seed,
      ...(checks.length ? { checks } : {}),
    });
    // Batched: one call asks for all k samples (n = k, the prompt paid once). Per sample: k calls of one
    // sample each, run in parallel (for endpoints without `n`, or to spread one fan-out over workers).
    const perSample = request.llm.fanOut === 'perSample' && samples > 1;
    const calls = perSample
      ? Array.from({ length: samples }, (_, j) => ({ key: `${key}-s${j}`, step: step(1, hashSeed(request.seed, op.id, key, j)), summary: `${op.id}: ${purpose} sample ${j + 1}/${samples} from ${from}` }))
      : [{ key, step: step(samples, hashSeed(request.seed, op.id, key)), summary: `${op.id}: ${purpose} ×${samples} from ${from}` }];
    const results = await Promise.all(calls.map((c) => withCallSlot(() => llm.callLlm.executeWithOptions(summarised(c.summary), [c.step]))));
    // Thoughts are named after their position among all samples, however many calls produced them.
    const created: NewThought[] = [];
    const createdChecks: (LocalChecks | undefined)[] = [];
    const recorded = results.map((result, i) => {
      const call = recordCall(op, clock, calls[i]!.key, purpose, parents, calls[i]!.step.samples, result);
      const mine = result.answers.flat().map((a) => ({ ...a, parents, callId: call.id }));
      created.push(...mine);
      createdChecks.push(...(result.checks?.flat() ?? mine.map(() => undefined)));
      return { call, count: mine.length };
    });
    const thoughts = grs.addThoughts(op.id, key, created);
    thoughts.forEach((t, i) => createdChecks[i] && checked.set(t.id, createdChecks[i]));
    let next = 0;
    for (const { call, count } of recorded) {
      grs.linkCallOutputs(call.id, thoughts.slice(next, next + count).map((t) => t.id));
      next += count;
    }
    return thoughts;
  }

  /** Records one LLM call in the GRS (tokens, cost, timings, retries) and advances the operation's clock. */
  function recordCall(op: Operation, clock: OpClock, key: string, purpose: LlmCall['purpose'], inputThoughts: string[], samples: number, report: CallReport): LlmCall {
    clock.saw(report.finishedAt);
    return grs.recordCall(key, {
      operationId: op.id,
      purpose,
      inputThoughts,
      outputThoughts: [],
      model: report.model,
      samples,
      usage: report.usage,
      costUsd: report.costUsd,
      latencyMs: report.latencyMs,
      startedAt: report.startedAt,
      finishedAt: report.finishedAt,
      attempt: report.attempt,
      ...(report.cached ? { cached: true } : {}),
      ...(report.faults?.length ? { faults: report.faults } : {}),
    });
  }

  /** Scores one thought by asking the LLM (the task's judge), unless the budget is spent. */
  async function judge(op: Operation, clock: OpClock, scorer: LlmScorerSpec, key: string, thought: Thought): Promise<void> {
    if (!budgetLeft()) return;
    const result = await withCallSlot(() => llm.scoreWithLlm.executeWithOptions(summarised(`${op.id}: judge ${thought.id} ×${scorer.samples}`), [{
      task: request.task,
      scorer: scorer.prompt,
      problem: request.problem,
      state: thought.state,
      samples: scorer.samples,
      llm: request.llm,
      seed: hashSeed(request.seed, op.id, key),
    }]));
    recordCall(op, clock, key, 'score', [thought.id], scorer.samples, result);
    grs.setScore(thought.id, result.score);
  }

  /** Waits for a person's scores; on timeout falls back to the task's local score or leaves the thoughts unscored. */
  async function scoreByHuman(op: Operation, clock: OpClock, scorer: HumanScorerSpec, inputs: Thought[]): Promise<Thought[]> {
    progressChanged();
    const scores = await humans.await(op.id, inputs, scorer.timeoutSeconds);
    if (scores) {
      for (const t of inputs) grs.setScore(t.id, scores.scores[t.id]!);
      notes.set(op.id, `scored by ${scores.by ?? 'a person'}`);
    } else if (scorer.fallback === 'local') {
      let values = known(inputs, 'score');
      if (!values) {
        const scored = await local.scoreThoughts(localStep(inputs));
        clock.saw(scored.at);
        values = scored.values;
      }
      inputs.forEach((t, i) => grs.setScore(t.id, values[i]!));
      notes.set(op.id, `no human scores within ${scorer.timeoutSeconds}s: scored locally`);
    } else notes.set(op.id, `no human scores within ${scorer.timeoutSeconds}s: left unscored`);
    return inputs;
  }

  async function validateAndImprove(op: OperationOf<'validateAndImprove'>, clock: OpClock, inputs: Thought[]): Promise<Thought[]> {
    return Promise.all(
      inputs.map(async (start, i) => {
        let current = start;
        for (let attempt = 0; ; attempt++) {
          let valid = known([current], 'valid')?.[0];
          if (valid === undefined) {
            const checkedNow = await local.validateThoughts(localStep([current]));
            clock.saw(checkedNow.at);
            valid = checkedNow.values[0]!;
          }
          grs.setValidity(current.id, valid!, valid ? undefined : 'failed validation');
          if (valid || attempt >= op.tries) return current;
          const [improved] = await askLlm(op, clock, `${i}-${attempt}`, 'improve', [current], 1);
          if (!improved) return current;
          current = improved;
        }
      }),
    );
  }

  /** The operation's output thoughts when it needs no activity; undefined when it does. */
  function executeNow(op: Operation, inputs: Thought[]): Thought[] | undefined {
    switch (op.type) {
      case 'score': {
        const scores = op.scorer.kind === 'local' ? known(inputs, 'score') : undefined;
        scores?.forEach((score, i) => grs.setScore(inputs[i]!.id, score));
        return scores && inputs;
      }
      case 'groundTruth': {
        const solved = known(inputs, 'solved');
        solved?.forEach((ok, i) => grs.setSolved(inputs[i]!.id, ok));
        return solved && inputs;
      }
      default:
        return filter(op, inputs);
    }
  }

  async function execute(op: Operation, clock: OpClock, inputs: Thought[]): Promise<Thought[]> {
    switch (op.type) {
      case 'generate':
        return (await Promise.all(inputs.map((t, i) => askLlm(op, clock, String(i), 'generate', [t], op.k)))).flat();
      case 'improve':
        return (await Promise.all(inputs.map((t, i) => askLlm(op, clock, String(i), 'improve', [t], 1)))).flat();
      case 'aggregate':
        return inputs.length ? askLlm(op, clock, '0', 'aggregate', inputs, op.k) : [];
      case 'validateAndImprove':
        return validateAndImprove(op, clock, inputs);
      case 'score': {
        if (!inputs.length) return [];
        const scorer = op.scorer;
        if (scorer.kind === 'human') return scoreByHuman(op, clock, scorer, inputs);
        if (scorer.kind === 'llm') {
          // Judging an answer that could not be read would pay for nothing: it stays unscored and ranks last.
          await Promise.all(inputs.map((t, i) => (t.valid ? judge(op, clock, scorer, String(i), t) : undefined)));
          return inputs;
        }
        // Scores the LLM steps already made were taken by executeNow: these thoughts need a local activity.
        const { values: scores, at } = await local.scoreThoughts(localStep(inputs));
        clock.saw(at);
        inputs.forEach((t, i) => grs.setScore(t.id, scores[i]!));
        return inputs;
      }
      case 'groundTruth': {
        if (!inputs.length) return [];
        const { values: solved, at } = await local.checkGroundTruth(localStep(inputs));
        clock.saw(at);
        inputs.forEach((t, i) => grs.setSolved(t.id, solved[i]!));
        return inputs;
      }
      default:
        return filter(op, inputs)!;
    }
  }

  const outputs = new Map<string, string[]>();
  const endedAt = new Map<string, number>();
  const notes = new Map<string, string>();
  const runStart = workflowInfo().runStartTime.getTime();
  let failure: { operation: string; error: unknown } | undefined;

  function inputsOf(op: Operation): Thought[] {
    if (op.inputs.length === 0) return [root];
    return uniqueThoughts(op.inputs.flatMap((id) => outputs.get(id)!.map((t) => grs.thought(t))));
  }

  function launch(id: string): void {
    const op = analyzed.byId.get(id)!;
    const inputs = inputsOf(op);
    running.add(id);
    // Times come from history (the run's start, activity results), never from Date.now(): the workflow
    // clock after a local activity differs by a millisecond between a run and its replay.
    const clock = opClock(Math.max(runStart, ...op.inputs.map((i) => endedAt.get(i)!)));
    grs.startOperation(id, inputs.map((t) => t.id), clock.at);
    const settle = (out: Thought[]) => {
      running.delete(id);
      const ids = out.map((t) => t.id);
      outputs.set(id, ids);
      endedAt.set(id, clock.at);
      // An LLM operation that had inputs yet produced nothing was starved by the budget.
      const starved = callsLlm(op) && inputs.length > 0 && out.length === 0 && grs.budgetExhausted;
      grs.finishOperation(id, ids, clock.at, starved ? 'skipped' : 'done', starved ? 'budget exhausted' : notes.get(id));
      for (const next of analyzed.successors.get(id)!) {
        if (!running.has(next) && !outputs.has(next) && analyzed.byId.get(next)!.inputs.every((i) => outputs.has(i))) launch(next);
      }
      // After the successors started, so the details name what runs now.
      progressChanged();
    };
    const fail = (error: unknown) => {
      running.delete(id);
      if (isCancellation(error)) {
        grs.finishOperation(id, [], clock.at, 'cancelled', 'the run was cancelled');
        progressChanged();
        return;
      }
      grs.finishOperation(id, [], clock.at, 'failed', rootCause(error));
      failure ??= { operation: id, error };
      progressChanged();
    };
    // With FAST_STEPS_PATCH, a step that needs no activity (a filter, or checks its inputs' LLM steps
    // made) finishes at once: no promise, so successors start in the same turn.
    let now: Thought[] | undefined;
    try {
      now = fast ? executeNow(op, inputs) : undefined;
    } catch (error) {
      fail(error);
      return;
    }
    if (now) settle(now);
    else execute(op, clock, inputs).then(settle, fail);
  }

  for (const id of analyzed.order) if (analyzed.byId.get(id)!.inputs.length === 0) launch(id);
  progressChanged();
  try {
    await condition(() => failure !== undefined || outputs.size === analyzed.order.length);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // The cancelled operations settle at once (TRY_CANCEL): wait for them so the partial GRS records how each ended.
    await CancellationScope.nonCancellable(() => condition(() => running.size === 0));
    markFinished('cancelled', grs.spent.costUsd, undefined);
    throw error;
  }
  if (failure !== undefined) {
    markFinished('failed', grs.spent.costUsd, undefined);
    throw ApplicationFailure.nonRetryable(`run failed in operation ${failure.operation}: ${rootCause(failure.error)}`, 'RunFailed');
  }

  const graph = grs.final();
  const best = bestThought(graph, higherIsBetter);
  markFinished('completed', grs.spent.costUsd, best?.score);
  return fitPayloadLimit({ task: taskIdOf(request.task), labels: request.labels, final: finalThoughts(graph), ...(best ? { best } : {}), grs: graph });
}

/** Temporal refuses payloads over 2 MB; stay well below with room for the encoding's overhead. */
const MAX_RESULT_CHARS = 1_500_000;

/**
 * A result too large for one payload keeps the whole graph (ids, edges, scores, calls) and the
 * final thoughts in full, but drops the other thoughts' states: `inspect` rebuilds them from history.
 */
export function fitPayloadLimit(result: RunResult): RunResult {
  if (JSON.stringify(result).length <= MAX_RESULT_CHARS) return result;
  const keep = new Set([...result.final.map((t) => t.id), ...(result.best ? [result.best.id] : [])]);
  const thoughts = result.grs.thoughts.map((t) => (keep.has(t.id) ? t : { ...t, state: {} }));
  return { ...result, grs: { ...result.grs, thoughts, statesOmitted: true } };
}

/**
 * How runs recorded before FAST_STEPS_PATCH read their request: parsed here, with the schema
 * library loaded for them only (webpack keeps an eager import in the bundle, evaluated on first use).
 */
async function parseRequestHere(input: RunRequestInput, humans: HumanScoring): Promise<{ request: RunRequest; analyzed: AnalyzedGoO }> {
  const [{ RunRequest, HumanScores }, { parseOrThrow, validateGoO }] = await Promise.all([
    import(/* webpackMode: "eager" */ '../src/run/request'),
    import(/* webpackMode: "eager" */ '../src/goo/validate'),
  ]);
  humans.useSchema(HumanScores);
  try {
    const request = parseOrThrow(RunRequest, input, 'run request');
    return { request, analyzed: validateGoO(request.goo) };
  } catch (e) {
    // A thrown plain Error would retry the workflow task forever; a bad request must fail the run at once.
    if (e instanceof ValidationError) throw ApplicationFailure.nonRetryable(e.message, 'ValidationError', e.issues);
    throw e;
  }
}

/** A request the worker refused fails the run as a ValidationError naming the fields, like one refused here. */
function asRunFailure(error: unknown): unknown {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === 'ValidationError') return ApplicationFailure.nonRetryable(cause.message, 'ValidationError', ...((cause.details as unknown[]) ?? []));
  return error;
}

/** The task's local checks a GoO uses, so its LLM steps compute them on each new thought. */
function localChecksOf(operations: readonly Operation[]): LocalCheck[] {
  const used = new Set<LocalCheck>();
  for (const op of operations) {
    if (op.type === 'score' && (op.scorer.kind === 'local' || (op.scorer.kind === 'human' && op.scorer.fallback === 'local'))) used.add('score');
    if (op.type === 'groundTruth') used.add('groundTruth');
    if (op.type === 'validateAndImprove') used.add('validate');
  }
  return [...used];
}

/** The progress of a run whose request is still being checked: nothing done yet. */
function preparingProgress(input: RunRequestInput): Progress {
  const operations = (input as { goo?: { operations?: unknown } } | null)?.goo?.operations;
  return {
    operationsDone: 0,
    operationsTotal: Array.isArray(operations) ? operations.length : 0,
    running: [],
    awaitingHumanScores: [],
    llmCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    budgetExhausted: false,
  };
}

/** The GRS of a run whose request is still being checked: no thoughts yet. */
function preparingGrs(input: RunRequestInput): GrsRecorder {
  const task = (input as { task?: unknown } | null)?.task;
  // Not checked yet: only a task reference of the right shape is named.
  const named = typeof task === 'string' || typeof (task as { id?: unknown } | null)?.id === 'string';
  return new GrsRecorder().init(named ? taskIdOf(task as string | { id: string }) : 'unknown', [], []);
}

/** What a filter keeps (pure, in the workflow); undefined for any other operation. */
function filter(op: Operation, inputs: Thought[]): Thought[] | undefined {
  switch (op.type) {
    case 'keepBestN':
      return keepBestN(inputs, op.n, op.higherIsBetter);
    case 'keepValidOnly':
      return keepValidOnly(inputs);
    case 'selector':
      return select(inputs, op.where);
    default:
      return undefined;
  }
}

function progressOf(grs: GrsRecorder, analyzed: AnalyzedGoO, running: Set<string>, awaitingHumanScores: string[]): Progress {
  const spent = grs.spent;
  return {
    operationsDone: grs.finishedOperations,
    operationsTotal: analyzed.order.length,
    running: [...running],
    awaitingHumanScores,
    llmCalls: spent.llmCalls,
    promptTokens: spent.promptTokens,
    completionTokens: spent.completionTokens,
    costUsd: spent.costUsd,
    budgetExhausted: grs.budgetExhausted,
  };
}

/** The innermost message of a failure chain ("Activity task failed" wraps what actually went wrong). */
function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
