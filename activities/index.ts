import { isDeepStrictEqual } from 'node:util';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { readSentFiles } from '../src/documents/sent-files';
import { withInstructions } from '../src/fork/prompt';
import { tooManyParts } from '../src/goo/grow';
import type { GoO, Operation } from '../src/goo/schema';
import { ValidationError } from '../src/goo/validate';
import type { LlmCall, ThoughtState } from '../src/grs/types';
import { cacheKey, type ResponseCache } from '../src/llm/cache';
import { type CallProgress, progressFrom } from '../src/llm/call-progress';
import type { LlmClient } from '../src/llm/client';
import { costOf } from '../src/llm/cost';
import { classifyLlmError, type LlmFault } from '../src/llm/errors';
import { ProviderGaveUpError } from '../src/llm/patience';
import { checkAddedOperations, checkRun } from '../src/run/check';
import { DEFAULT_GIVE_UP_SECONDS, FAILURE } from '../src/run/wire';
import type { PayloadStore } from '../src/store/payload-store';
import type { AnswerSchema } from '../src/tasks/answer-schema';
import { type TaskRef, taskIdOf } from '../src/tasks/declarative/schema';
import { resolveTask } from '../src/tasks/registry';
import type { AnyTask, ChatMessage, PromptRequest } from '../src/tasks/task';
import type {
  LlmStep,
  LlmStepResult,
  LocalCheck,
  LocalChecks,
  LocalResult,
  LocalStep,
  PreparedRun,
  ProblemField,
  ReviewStep,
  ReviewStepResult,
  ScoreStep,
  ScoreStepResult,
  StepThought,
} from './llm-step';
import { CallObservation } from './observe';
import { MAX_KEPT_CHARS, parseAnswer } from './read-answer';
import { recallParent } from './recall';
import { readParts, type SplitResult, type SplitStep } from './split-step';

export type * from './llm-step';
export type * from './recall';
export type * from './split-step';

export interface ActivityDeps {
  llm: LlmClient;
  /** Where runs that ask for it (`llm.cache`) find and keep responses. */
  cache?: ResponseCache;
  /** How often a running LLM call reports liveness, so a dead worker is noticed quickly. */
  heartbeatIntervalMs?: number;
  /** Where large problems are kept (`GOT_STORE`): steps then carry a reference instead of the documents. */
  store?: PayloadStore;
}

/**
 * The activities: all I/O and all task knowledge live here, so the Controller workflow stays a
 * task-agnostic interpreter of the GoO. Built as closures over their dependencies (the LLM client),
 * which the worker wires once.
 */
export function createActivities({ llm, cache, heartbeatIntervalMs = 5_000, store }: ActivityDeps) {
  /** The step's problem: inline, or read from the payload store (once per worker, then from memory). */
  async function problemOf(step: ProblemField): Promise<unknown> {
    if (!step.problemRef) return step.problem;
    if (!store)
      throw new Error(
        `the run keeps its problem in the payload store (blob ${step.problemRef.key}), and this worker has none (GOT_STORE=off): give it the deployment's store`,
      );
    return store.getValue(step.problemRef);
  }

  /**
   * Calls the model with heartbeats and cancellation, turning faults into classified Temporal
   * failures; each attempt is counted in the worker's metrics and traced as a span (`observe.ts`).
   */
  async function complete(
    step: { task: TaskRef; samples: number; llm: LlmStep['llm']; seed: number },
    purpose: LlmCall['purpose'],
    messages: ChatMessage[],
    responseFormat?: AnswerSchema,
  ) {
    const ctx = Context.current();
    const started = Date.now();
    // Beat well within the run's heartbeat timeout (it may be shorter than the default interval); the SDK throttles the rest.
    const every = Math.min(heartbeatIntervalMs, Math.max(100, (ctx.info.heartbeatTimeoutMs ?? Infinity) / 3));
    // Earlier attempts' faults travel in the heartbeat details, which Temporal hands to the next attempt.
    const earlier = faultsBefore(ctx.info.heartbeatDetails, ctx.info.attempt);
    const observed = new CallObservation(
      ctx.metricMeter,
      { task: taskIdOf(step.task), model: step.llm.model, purpose },
      { attempt: ctx.info.attempt, samples: step.samples },
    );
    observed.lostBefore(lostJustBefore(ctx.info.heartbeatDetails, ctx.info.attempt));
    // What an earlier attempt received is kept: this one asks only for the samples still missing (decision 90).
    const progress = progressFrom((ctx.info.heartbeatDetails as Partial<AttemptDetails> | undefined)?.progress);
    const details: AttemptDetails = { attempt: ctx.info.attempt, faults: earlier, ...(progress ? { progress } : {}) };
    // No beat at the start: most calls end before the first interval, and each beat costs a server write.
    // An attempt lost before its first beat is still accounted for (see `faultsBefore`).
    const heartbeat = setInterval(() => ctx.heartbeat({ ...details }), every);
    const request = {
      model: step.llm.model,
      messages,
      samples: step.samples,
      temperature: step.llm.temperature,
      ...(step.llm.maxTokens ? { maxTokens: step.llm.maxTokens } : {}),
      seed: step.seed,
      // Only asked for by `llm.structuredOutput: auto`, so a text request keeps the cache key it always had.
      ...(responseFormat ? { responseFormat } : {}),
      // Fan-out perSample: the step's samples go as that many requests, sent together (decision 69).
      ...(step.llm.fanOut === 'perSample' && step.samples > 1 ? { oneSamplePerRequest: true } : {}),
    };
    const key =
      step.llm.cache && cache ? cacheKey({ endpoint: llm.endpoint.cacheNamespace ?? llm.endpoint.baseURL, ...request }) : undefined;
    try {
      const hit = key ? await cache!.get(key) : undefined;
      if (hit) {
        observed.cached();
        // `recorded`: the answer is replayed, its cost reported as if paid again (the usage stored with it, at this run's prices).
        const usage = step.llm.cacheCosts === 'recorded' ? hit.usage : { promptTokens: 0, completionTokens: 0 };
        return {
          completion: { ...hit, usage },
          usage,
          costUsd: step.llm.cacheCosts === 'recorded' ? costOf(usage, step.llm.pricing) : 0,
          model: hit.model,
          latencyMs: Date.now() - started,
          startedAt: started,
          finishedAt: Date.now(),
          attempt: ctx.info.attempt,
          cached: true,
        };
      }
      // A streaming endpoint reports tokens as they come: each beat says the answer is still growing.
      let lastBeat = 0;
      const onTokens = (received: number) => {
        details.received = received;
        if (Date.now() - lastBeat < 1000) return;
        lastBeat = Date.now();
        ctx.heartbeat({ ...details });
      };
      const completion = await llm.complete({
        ...request,
        signal: ctx.cancellationSignal,
        onTokens,
        patience: { giveUpAfterMs: (step.llm.giveUpSeconds ?? DEFAULT_GIVE_UP_SECONDS) * 1000 },
        requestTimeoutMs: requestTimeoutMs(step),
        ...(progress ? { progress } : {}),
        onRefused: (kind) => observed.refused(kind),
        // Each answered request is beaten at once: a worker lost now loses none of it.
        onProgress: (now) => {
          details.progress = now;
          ctx.heartbeat({ ...details });
        },
        // Steps recorded before the setting existed leave it to the client's default.
        ...(step.llm.stallSeconds !== undefined ? { stallMs: step.llm.stallSeconds * 1000 } : {}),
      });
      const { refusals, resumed, ...answer } = completion;
      const costUsd = costOf(completion.usage, step.llm.pricing);
      const latencyMs = Date.now() - started;
      observed.answered({ usage: completion.usage, costUsd, latencyMs, answeredBy: completion.model });
      if (key) await cache!.put(key, answer);
      return {
        completion: answer,
        usage: completion.usage,
        costUsd,
        model: completion.model,
        latencyMs,
        startedAt: started,
        finishedAt: Date.now(),
        attempt: ctx.info.attempt,
        ...(earlier.length ? { faults: earlier } : {}),
        ...(refusals ? { refused: refusals } : {}),
        ...(resumed ? { resumed } : {}),
      };
    } catch (error) {
      if (ctx.cancellationSignal.aborted) {
        observed.stopped(ctx.cancellationDetails?.cancelRequested ?? true);
        throw new CancelledFailure('LLM call cancelled');
      }
      const { failure, fault } = toFailure(error, llm.endpoint.baseURL, llm.endpoint.apiKey);
      observed.failed(fault);
      // The last details before failing reach the next attempt (the SDK sends them with the failure).
      ctx.heartbeat({
        attempt: ctx.info.attempt,
        faults: [...earlier, `attempt ${ctx.info.attempt}: ${clip(failure.message)}`],
        failed: true,
        ...(details.progress ? { progress: details.progress } : {}),
      } satisfies AttemptDetails);
      throw failure;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** A local step's task, problem and thoughts. */
  async function localOf(step: LocalStep) {
    return { t: taskOf(step.task), problem: await problemOf(step), states: step.states };
  }

  return {
    /** A fork's parent: its calls and thoughts, from its history (decision 102). */
    recallParent,

    /** Checks a run request against its task and returns the problem's root thought. */
    async prepareRun(input: unknown): Promise<PreparedRun> {
      try {
        // A problem sent as files (by a client that cannot read PDF or DOCX) is read here, then checked like any other.
        const read = await readSentFiles(input as { task?: unknown; problem?: unknown }, taskIfKnown(input));
        const { task, problem, request } = checkRun(read, { storeThreshold: store?.threshold });
        const { problem: sent, ...checked } = request;
        // Files read here are a problem the workflow has not seen, like one the task normalised.
        const reparsed = read !== input || !isDeepStrictEqual(problem, sent);
        // A large problem is stored once; the workflow hands its steps the reference (if its path takes it).
        const problemRef = await store?.holdIfLarge(problem);
        return {
          rootState: task.rootState(problem),
          higherIsBetter: task.higherIsBetter,
          request: checked,
          ...(reparsed && !problemRef ? { problem } : {}),
          ...(problemRef ? { problemRef } : {}),
          ...(store ? { storedFrom: store.threshold } : {}),
          ...(task.reviewer ? { reviewsAnswers: true as const } : {}),
        };
      } catch (e) {
        if (e instanceof ValidationError) throw ApplicationFailure.nonRetryable(e.message, FAILURE.validation, e.issues);
        throw e;
      }
    },

    /** Operations a person adds to a running graph (decision 104), checked as a GoO is; refused with the fields at fault. */
    async checkAddedOperations(step: { task: TaskRef; goo: GoO; operations: unknown[] }): Promise<Operation[]> {
      try {
        return checkAddedOperations(step.task, step.goo, step.operations);
      } catch (e) {
        if (e instanceof ValidationError) throw ApplicationFailure.nonRetryable(e.message, FAILURE.validation, e.issues);
        throw e;
      }
    },

    /** The engine's review of the best answer (pure, from the problem); with decisions, of the answer they make. */
    async reviewAnswer(step: ReviewStep): Promise<ReviewStepResult> {
      const task = taskOf(step.task);
      const reviewer = task.reviewer;
      if (!reviewer) throw ApplicationFailure.nonRetryable(`task "${taskIdOf(step.task)}" does not review its answers`, FAILURE.validation);
      const problem = await problemOf(step);
      const answer = task.answerText(step.thought.state);
      if (!step.decisions) return reviewer.review(answer, problem);
      const earlier = step.review ?? reviewer.review(answer, problem).review;
      const problems = reviewer.checkDecisions(earlier, step.decisions);
      if (problems.length) throw ApplicationFailure.nonRetryable(`decisions refused: ${problems.join('; ')}`, FAILURE.validation);
      const decidedText = reviewer.apply(answer, problem, earlier, step.decisions);
      return { ...reviewer.review(decidedText, problem), decidedText };
    },

    async callLlm(step: LlmStep): Promise<LlmStepResult> {
      const task = taskOf(step.task);
      const problem = await problemOf(step);
      const request: PromptRequest = { prompt: step.prompt, params: step.params, thoughts: step.thoughts, problem };
      const schema = step.llm.structuredOutput === 'auto' ? answerSchemaOf(task, request) : undefined;
      const messages = withInstructions(buildPrompt(task, request), step.instructions);
      const { completion, ...meta } = await complete(step, step.purpose, messages, schema);
      const asked = step.checks?.length ? step.checks : undefined;
      const answers = completion.texts.map((text, i) => {
        // Cached completions from before reasoning was kept have none.
        const reasoning = completion.reasoning?.[i]?.slice(0, MAX_KEPT_CHARS);
        return parseAnswer(task, request, text, completion.finishReasons[i]!).map(
          (t): StepThought => ({
            ...t,
            ...(reasoning ? { reasoning } : {}),
            ...(asked ? { checks: localChecks(task, asked, t.state, problem) } : {}),
          }),
        );
      });
      return { answers, ...meta };
    },

    async scoreWithLlm(step: ScoreStep): Promise<ScoreStepResult> {
      const scorer = taskOf(step.task).llmScorers?.[step.scorer];
      if (!scorer)
        throw ApplicationFailure.nonRetryable(`task "${taskIdOf(step.task)}" has no LLM scorer "${step.scorer}"`, FAILURE.validation);
      const schema = step.llm.structuredOutput === 'auto' ? scorer.ratingsSchema : undefined;
      const problem = await problemOf(step);
      const { completion, ...meta } = await complete(step, 'score', scorer.buildPrompt(step.state, problem), schema);
      const ratings = completion.texts.map((text) => {
        try {
          return scorer.parseRatings(text);
        } catch {
          return undefined;
        }
      });
      const parsed = ratings.filter((r): r is number[] => r !== undefined);
      return { score: parsed.length ? scorer.combine(parsed, { state: step.state, problem }) : scorer.unparseableScore, ratings, ...meta };
    },

    /** Local steps for thoughts no LLM step has checked (the root; runs recorded before checks moved into LLM steps). */
    async scoreThoughts(step: LocalStep): Promise<LocalResult<number>> {
      const { t, problem, states } = await localOf(step);
      return { values: states.map((s) => t.score!(s, problem)), at: Date.now() };
    },

    async validateThoughts(step: LocalStep): Promise<LocalResult<boolean>> {
      const { t, problem, states } = await localOf(step);
      return { values: states.map((s) => t.validate!(s, problem)), at: Date.now() };
    },

    async checkGroundTruth(step: LocalStep): Promise<LocalResult<boolean>> {
      const { t, problem, states } = await localOf(step);
      return { values: states.map((s) => t.groundTruth!(s, problem)), at: Date.now() };
    },

    /** A forEach's parts from the task's named split; recorded in history, so a replay grows the same graph. */
    async splitThoughts(step: SplitStep): Promise<SplitResult> {
      const task = taskOf(step.task);
      const named = `split "${step.split}" of task "${task.id}" (forEach "${step.operation}")`;
      const split = task.splits && Object.hasOwn(task.splits, step.split) ? task.splits[step.split] : undefined;
      // A split is pure: what it refuses or gets wrong now, it would on a retry too.
      const refuse = (why: string) => ApplicationFailure.nonRetryable(`${named} ${why}`, FAILURE.validation);
      if (!split) throw refuse(`does not exist; the task's splits: ${Object.keys(task.splits ?? {}).join(', ') || '(none)'}`);
      const problem = await problemOf(step);
      let made: unknown;
      try {
        made = split(step.states, problem, step.params);
      } catch (e) {
        throw refuse(`failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      const read = readParts(made, step.states.length);
      if ('error' in read) throw refuse(read.error);
      const tooMany = tooManyParts({ id: step.operation, maxParts: step.maxParts, parts: { split: step.split } }, read.parts.length);
      if (tooMany) throw ApplicationFailure.nonRetryable(tooMany, FAILURE.validation);
      const asked = step.checks?.length ? step.checks : undefined;
      const parts = read.parts.map((p) => ('state' in p && asked ? { ...p, checks: localChecks(task, asked, p.state, problem) } : p));
      return { parts, at: Date.now() };
    },
  };
}

export type GotActivities = ReturnType<typeof createActivities>;

/** The step's task, built-in or declared; a task that cannot be resolved will not resolve on a retry either. */
/** The request's task when it names one that exists; the request's check reports any other. */
function taskIfKnown(input: unknown): AnyTask | undefined {
  try {
    return resolveTask((input as { task: TaskRef }).task);
  } catch {
    return undefined;
  }
}

function taskOf(ref: TaskRef): AnyTask {
  try {
    return resolveTask(ref);
  } catch (e) {
    throw ApplicationFailure.nonRetryable(e instanceof Error ? e.message : String(e), FAILURE.validation);
  }
}

/** The asked-for local checks of one new thought; a check the task lacks is left out (its step then fails as before). */
function localChecks(task: AnyTask, asked: LocalCheck[], state: ThoughtState, problem: unknown): LocalChecks {
  const checks: LocalChecks = {};
  if (asked.includes('score') && task.score) checks.score = task.score(state, problem);
  if (asked.includes('validate') && task.validate) checks.valid = task.validate(state, problem);
  if (asked.includes('groundTruth') && task.groundTruth) checks.solved = task.groundTruth(state, problem);
  return checks;
}

/** A prompt that cannot be built will not build on a retry either: fail the step at once, naming why. */
function buildPrompt(task: AnyTask, request: PromptRequest): ChatMessage[] {
  try {
    return task.buildPrompt(request);
  } catch (e) {
    throw ApplicationFailure.nonRetryable(
      `cannot build the "${request.prompt}" prompt of task "${task.id}": ${e instanceof Error ? e.message : String(e)}`,
      FAILURE.prompt,
    );
  }
}

/** The JSON Schema the prompt's answer should follow, if the task has one; a task that cannot say asks for text. */
function answerSchemaOf(task: AnyTask, request: PromptRequest): AnswerSchema | undefined {
  try {
    return task.answerSchema?.(request);
  } catch {
    return undefined;
  }
}

/** What an LLM call's heartbeats carry: the faults of the attempts so far. */
interface AttemptDetails {
  attempt: number;
  faults: string[];
  /** Tokens of this attempt's answer received so far (streaming endpoints). */
  received?: number;
  /** Set by an attempt that failed with a fault; an attempt that left no such mark ended without answering. */
  failed?: true;
  /** The requests answered so far, kept for the next attempt (decision 90). */
  progress?: CallProgress;
}

/**
 * How long one request may take: the call's timeout, grown with the tokens the request may
 * generate at `llm.minTokensPerSecond` (a request asks for all the call's samples at most).
 */
function requestTimeoutMs({ samples, llm }: Pick<LlmStep, 'samples' | 'llm'>): number {
  const generating = llm.maxTokens && llm.minTokensPerSecond ? (samples * llm.maxTokens) / llm.minTokensPerSecond : 0;
  return Math.ceil(Math.max(llm.timeoutSeconds, generating) * 1000);
}

/**
 * The faults of the attempts before `attempt`, from the last heartbeat details Temporal kept: an
 * attempt that reported no fault timed out (or its worker was lost) before it could.
 */
function faultsBefore(details: unknown, attempt: number): string[] {
  const d = (details ?? {}) as Partial<AttemptDetails>;
  const faults = Array.isArray(d.faults) ? d.faults.filter((f): f is string => typeof f === 'string') : [];
  const reported = typeof d.attempt === 'number' ? d.attempt : 0;
  for (let a = d.failed ? reported + 1 : Math.max(reported, 1); a < attempt; a++)
    faults.push(`attempt ${a}: no answer before the call timed out (or its worker was lost)`);
  return faults;
}

const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

/**
 * Whether the attempt just before `attempt` ended without reporting a fault (it timed out, or its
 * worker was lost): each such attempt is counted once, by the attempt after it.
 */
function lostJustBefore(details: unknown, attempt: number): number {
  const d = (details ?? {}) as Partial<AttemptDetails>;
  return attempt > 1 && !(d.failed && d.attempt === attempt - 1) ? 1 : 0;
}

/** The failure a fault becomes, with the fault as classified. */
function toFailure(error: unknown, baseURL: string, apiKey: string): { failure: ApplicationFailure; fault: LlmFault } {
  // The endpoint refused a request for the whole of llm.giveUpSeconds: another attempt would only wait as long again.
  if (error instanceof ProviderGaveUpError) {
    const message = redact(`gave up on ${baseURL}: ${error.message}`, apiKey);
    return {
      failure: ApplicationFailure.create({ message, type: FAILURE.llmUnavailable, nonRetryable: true, details: [error.refusals] }),
      fault: { retryable: true, kind: 'unexpected', message },
    };
  }
  const classified = classifyLlmError(error, baseURL);
  // Some endpoints echo the key they rejected; the message goes into history and logs, the key must not.
  const fault = { ...classified, message: redact(classified.message, apiKey) };
  if (!fault.retryable)
    return { fault, failure: ApplicationFailure.create({ message: fault.message, type: FAILURE.llmRequestRejected, nonRetryable: true }) };
  const failure = ApplicationFailure.create({
    message: fault.message,
    type: fault.kind === 'rate-limited' ? FAILURE.llmRateLimited : FAILURE.llmUnavailable,
    nonRetryable: false,
    // Honour the provider's Retry-After instead of the fixed backoff.
    ...(fault.retryAfterMs !== undefined ? { nextRetryDelay: fault.retryAfterMs } : {}),
  });
  return { failure, fault };
}

function redact(message: string, secret: string): string {
  return secret.length >= 8 ? message.split(secret).join('[redacted]') : message;
}
