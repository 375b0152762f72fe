import type { Usage } from '../grs/types';

/**
 * What a call has received so far, request by request: kept in the activity's heartbeat details,
 * so an attempt that follows a lost or failed one asks only for the samples still missing and
 * nothing answered is paid for twice (decision 90).
 */
export interface CallProgress {
  /** The requests answered, each under the seed it was sent with. */
  answered: AnsweredRequest[];
  /** The requests being asked now (seeds, and samples each): a later attempt asks those not answered with the same seeds. */
  round?: { seeds: number[]; n: number };
}

export interface AnsweredRequest {
  seed: number;
  model: string;
  choices: { text: string; reasoning?: string; finish: string }[];
  /** As the endpoint reported it; absent when it reported none (then `unreported` holds what to count). */
  usage?: { promptTokens: number; completionTokens: number; cachedPromptTokens?: number };
  /** The texts whose tokens are counted here when the endpoint reported no usage. */
  unreported?: string[];
}

export const samplesIn = (progress: CallProgress): number => progress.answered.reduce((sum, a) => sum + a.choices.length, 0);

/** A round of requests for the `missing` samples: seeds follow those already answered, as the same requests one after another would use. */
export function nextRound(progress: CallProgress, seed: number, missing: number, oneEach: boolean): NonNullable<CallProgress['round']> {
  const first = seed + progress.answered.length;
  const count = oneEach ? missing : 1;
  return { seeds: Array.from({ length: count }, (_, i) => first + i), n: oneEach ? 1 : missing };
}

/** The seeds of the current round still to ask. */
export const unanswered = (progress: CallProgress): number[] =>
  (progress.round?.seeds ?? []).filter((s) => !progress.answered.some((a) => a.seed === s));

/**
 * The samples in the order their seeds give (a round's seeds all come after the rounds before it),
 * at most `samples` of them, with the usage reported and the texts still to count.
 */
export function gathered(progress: CallProgress, samples: number, model: string) {
  const out = {
    texts: [] as string[],
    reasoning: [] as (string | undefined)[],
    finishReasons: [] as string[],
    usage: { promptTokens: 0, completionTokens: 0 } as Usage,
    model,
    requests: 0,
    unreported: [] as string[],
    unreportedRequests: 0,
  };
  for (const a of [...progress.answered].sort((x, y) => x.seed - y.seed)) {
    out.requests += 1;
    out.model = a.model || out.model;
    for (const c of a.choices.slice(0, samples - out.texts.length)) {
      out.texts.push(c.text);
      out.reasoning.push(c.reasoning);
      out.finishReasons.push(c.finish);
    }
    if (a.usage) {
      out.usage.promptTokens += a.usage.promptTokens;
      out.usage.completionTokens += a.usage.completionTokens;
      if (a.usage.cachedPromptTokens) out.usage.cachedPromptTokens = (out.usage.cachedPromptTokens ?? 0) + a.usage.cachedPromptTokens;
    } else {
      out.unreportedRequests += 1;
      out.unreported.push(...(a.unreported ?? []));
    }
  }
  return out;
}

/** Progress as a heartbeat carried it: anything not of its shape is ignored (an attempt then starts afresh). */
export function progressFrom(value: unknown): CallProgress | undefined {
  const p = value as Partial<CallProgress> | undefined;
  if (!p || !Array.isArray(p.answered)) return undefined;
  const ok = p.answered.every(
    (a) => a && typeof a.seed === 'number' && Array.isArray(a.choices) && a.choices.every((c) => typeof c?.text === 'string'),
  );
  return ok ? (p as CallProgress) : undefined;
}
