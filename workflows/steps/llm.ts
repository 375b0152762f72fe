import type { ActivityOptions } from '@temporalio/workflow';
import type { CallReport, LlmStep, LlmStepResult, StepThought } from '../../activities';
import type { CallAsk } from '../../src/fork/inherit';
import type { Operation } from '../../src/goo/schema';
import { callIdOf, type NewThought } from '../../src/grs/recorder';
import type { LlmCall, Thought } from '../../src/grs/types';
import { hashSeed } from '../../src/util/random';
import { budgetLeft } from '../budget';
import type { OpClock, RunContext } from '../context';

/** One LLM step of an operation: which prompt, on which thoughts, how many samples, under which key. */
export interface LlmAsk {
  op: Operation & { prompt: string; params?: Record<string, unknown> };
  clock: OpClock;
  /** Names the step within its operation (the input's index, or `<input>-<try>`): thought ids and seeds derive from it. */
  key: string;
  purpose: LlmStep['purpose'];
  inputs: Thought[];
  samples: number;
}

/** Asks the LLM; returns the thoughts it made, or none when the budget is spent. */
export async function askLlm(ctx: RunContext, ask: LlmAsk): Promise<Thought[]> {
  if (!budgetLeft(ctx)) return [];
  const first = await sample(ctx, ask, ask.key, ask.samples);
  if (!ctx.path.survivesUnusableAnswers) return first.thoughts;
  return reaskUnusable(ctx, ask, first);
}

/** What one round of sampling made: its thoughts, and which of its answers were usable. */
interface Sampled {
  thoughts: Thought[];
  /** Thoughts of usable answers (every thought of the answer valid). */
  usable: Thought[];
  /** How many answers were usable. */
  usableAnswers: number;
}

/**
 * Asks again, with a new seed, for the samples whose answers were unusable, until enough are usable
 * (`llm.reaskBelowShare`; with 0, until one is), `llm.reask` re-asks are spent, or the budget is.
 * A step that re-asked outputs the thoughts of its usable answers; the unusable ones stay in the GRS.
 */
async function reaskUnusable(ctx: RunContext, ask: LlmAsk, first: Sampled): Promise<Thought[]> {
  const { reask, reaskBelowShare } = ctx.request.llm;
  const enough = Math.max(1, Math.ceil(reaskBelowShare * ask.samples));
  let usable = first.usable;
  let usableAnswers = first.usableAnswers;
  let last = first.thoughts;
  for (let r = 1; r <= reask && usableAnswers < enough && budgetLeft(ctx); r++) {
    const again = await sample(ctx, ask, `${ask.key}-r${r}`, ask.samples - usableAnswers, r);
    usable = [...usable, ...again.usable];
    usableAnswers += again.usableAnswers;
    last = again.thoughts;
  }
  if (last === first.thoughts) return first.thoughts;
  // Nothing usable after every re-ask: the last attempt's thoughts go on, so the run shows what the model said.
  return usable.length ? usable : last;
}

/** One round of sampling: `samples` answers to the step's prompt, as one call (n = k) or k calls. */
async function sample(ctx: RunContext, ask: LlmAsk, key: string, samples: number, reask?: number): Promise<Sampled> {
  const { request, grs } = ctx;
  const { op, purpose, inputs } = ask;
  const parents = inputs.map((t) => t.id);
  const from = parents.join(', ');
  const again = reask ? ` (re-ask ${reask})` : '';
  // A fork's instructions, then a person's given while it ran: the last read last, just before the answer.
  const instructions = [ctx.inheritance?.instructionsFor(op.id), ctx.steeredInstructions?.(op.id)].filter(Boolean).join('\n') || undefined;
  const step = (n: number, seed: number): LlmStep => ({
    task: request.task,
    purpose,
    prompt: op.prompt,
    params: op.params ?? {},
    thoughts: inputs.map((t) => t.state),
    ...ctx.problem,
    samples: n,
    llm: request.llm,
    seed,
    ...(ctx.checks.length ? { checks: ctx.checks } : {}),
    ...(instructions ? { instructions } : {}),
  });
  // Batched: one call asks for all k samples (n = k, the prompt paid once). Per sample: k requests of
  // one sample each, sent together by one call (since `samples-together`); before it, k calls.
  const perSample = request.llm.fanOut === 'perSample' && samples > 1 && !ctx.path.samplesInOneCall;
  const calls = perSample
    ? Array.from({ length: samples }, (_, j) => ({
        key: `${key}-s${j}`,
        step: step(1, hashSeed(request.seed, op.id, key, j)),
        summary: `${op.id}: ${purpose} sample ${j + 1}/${samples} from ${from}${again}`,
      }))
    : [{ key, step: step(samples, hashSeed(request.seed, op.id, key)), summary: `${op.id}: ${purpose} ×${samples} from ${from}${again}` }];
  const results = await Promise.all(
    calls.map(
      (c) =>
        inheritedCall(ctx, {
          callId: callIdOf(op.id, c.key),
          operationId: op.id,
          purpose,
          samples: c.step.samples,
          inputs: c.step.thoughts,
        }) ?? ctx.slots.run(() => ctx.llm.callLlm.executeWithOptions(callOptions(ctx, c.summary, c.step.samples), [c.step]), c.step),
    ),
  );

  // Thoughts are named after their position among all samples, however many calls produced them.
  const created: NewThought[] = [];
  const made: StepThought[] = [];
  const answers: number[] = [];
  const recorded = results.map((result, i) => {
    const call = recordCall(ctx, ask.clock, {
      op,
      key: calls[i]!.key,
      purpose,
      inputThoughts: parents,
      samples: calls[i]!.step.samples,
      report: result,
      ...(reask ? { reask } : {}),
    });
    const mine = thoughtsOf(result);
    made.push(...mine);
    created.push(...mine.map(({ checks: _checks, ...t }) => ({ ...t, parents, callId: call.id })));
    for (const answer of answersOf(result)) answers.push(answer.length);
    return { call, count: mine.length };
  });
  const thoughts = grs.addThoughts(op.id, key, created);
  thoughts.forEach((t, i) => {
    const checks = made[i]!.checks;
    if (checks) ctx.checked.set(t.id, checks);
  });
  let next = 0;
  for (const { call, count } of recorded) {
    grs.linkCallOutputs(
      call.id,
      thoughts.slice(next, next + count).map((t) => t.id),
    );
    next += count;
  }
  // An answer is usable when every thought it made is valid (a split cut short is not).
  const usable: Thought[] = [];
  let usableAnswers = 0;
  let at = 0;
  for (const size of answers) {
    const own = thoughts.slice(at, at + size);
    at += size;
    if (own.length && own.every((t) => t.valid)) {
      usable.push(...own);
      usableAnswers++;
    }
  }
  return { thoughts, usable, usableAnswers };
}

/** A fork's call its parent made on the same inputs (decision 102): the parent's thoughts, as the activity would have reported them, without a call. */
function inheritedCall(ctx: RunContext, ask: CallAsk): LlmStepResult | undefined {
  // A step a person gave instructions for while the run ran is asked, never taken from a parent.
  const same = ctx.steeredInstructions?.(ask.operationId) ? undefined : ctx.inheritance?.answer(ask);
  if (!same) return undefined;
  const thoughts = same.thoughts.map(({ state, valid, error, said, reasoning, score, solved }): StepThought => {
    const checks = {
      ...(ctx.checks.includes('score') && score !== undefined ? { score } : {}),
      ...(ctx.checks.includes('validate') ? { valid } : {}),
      ...(ctx.checks.includes('groundTruth') && solved !== undefined ? { solved } : {}),
    };
    return {
      state,
      valid,
      ...(error !== undefined ? { error } : {}),
      ...(said !== undefined ? { said } : {}),
      ...(reasoning !== undefined ? { reasoning } : {}),
      ...(Object.keys(checks).length ? { checks } : {}),
    };
  });
  return { answers: answersOfSamples(thoughts, ask.samples), ...inheritedReport(same.call.model) };
}

/**
 * The parent's thoughts of a call grouped into its answers, which the GRS does not record: one answer
 * of all of them for one sample (a split's parts), equal shares for k samples, else one each.
 */
function answersOfSamples(thoughts: StepThought[], samples: number): StepThought[][] {
  if (samples === 1) return [thoughts];
  const size = thoughts.length % samples === 0 ? thoughts.length / samples : 1;
  return Array.from({ length: Math.ceil(thoughts.length / size) }, (_, i) => thoughts.slice(i * size, (i + 1) * size));
}

/** What an inherited call reports: nothing paid, no time taken, at the workflow's clock. */
export function inheritedReport(model: string): CallReport {
  const now = Date.now();
  return {
    usage: { promptTokens: 0, completionTokens: 0 },
    costUsd: 0,
    model,
    latencyMs: 0,
    startedAt: now,
    finishedAt: now,
    attempt: 1,
    inherited: true,
  };
}

/** One recorded LLM call: what it was for, and what the activity reported. */
export interface CallRecord {
  op: Operation;
  key: string;
  purpose: LlmCall['purpose'];
  inputThoughts: string[];
  samples: number;
  report: CallReport;
  /** Which re-ask of its step this call is, if it is one. */
  reask?: number;
}

/** Records one LLM call in the GRS (tokens, cost, timings, retries) and advances the operation's clock. */
export function recordCall(
  { grs }: RunContext,
  clock: OpClock,
  { op, key, purpose, inputThoughts, samples, report, reask }: CallRecord,
): LlmCall {
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
    ...(report.inherited ? { inherited: true } : {}),
    ...(report.faults?.length ? { faults: report.faults } : {}),
    ...(report.refused ? { refused: report.refused } : {}),
    ...(report.resumed ? { resumed: report.resumed } : {}),
    ...(reask ? { reask } : {}),
  });
}

/**
 * One call's activity options: its Web UI summary, and where the run's path says so a timeout long
 * enough for every token it may generate at `llm.minTokensPerSecond`.
 */
function callOptions(ctx: RunContext, summary: string, samples: number): ActivityOptions {
  const options = summarised(ctx.llmOptions, summary);
  const { maxTokens, minTokensPerSecond, timeoutSeconds } = ctx.request.llm;
  if (!ctx.path.sizesTimeoutsByTokens || ctx.path.callsEndedByProgress || !maxTokens || !minTokensPerSecond) return options;
  const generating = Math.ceil((samples * maxTokens) / minTokensPerSecond);
  return generating > timeoutSeconds ? { ...options, startToCloseTimeout: generating * 1000 } : options;
}

/** The Web UI lists each LLM call by its summary: which operation, what for, from which thoughts. */
export function summarised(options: ActivityOptions, summary: string): ActivityOptions {
  return { ...options, summary: summary.length > 200 ? `${summary.slice(0, 199)}…` : summary };
}

/**
 * A step's thoughts with their checks. Results recorded before thoughts carried their own checks
 * gave them as a parallel `checks[][]`; histories of such runs still replay through here.
 */
function thoughtsOf(result: LlmStepResult): StepThought[] {
  return answersOf(result).flat();
}

/** The thoughts of each answer, with their checks (read from the parallel array in older results). */
function answersOf(result: LlmStepResult): StepThought[][] {
  const legacy = result.checks;
  if (!legacy) return result.answers;
  return result.answers.map((answer, i) => answer.map((t, j) => (legacy[i]?.[j] ? { ...t, checks: legacy[i]![j]! } : t)));
}
