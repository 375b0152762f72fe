import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import type { LlmFault } from './errors';
import { describeRefusals, type Refusals } from './refusals';

export { describeRefusals, noRefusals, type Refusals } from './refusals';

/**
 * How one request of a call is retried inside the call (decision 90): a busy provider refuses
 * requests as a matter of course (429, 5xx, a dropped connection), and a call of k samples sent as
 * k requests would otherwise fail whole whenever any one of them is refused. A refused request
 * waits (the provider's Retry-After, else a jittered exponential backoff) and is sent again on its
 * own; the call gives up only when a request has been refused for `giveUpAfterMs` straight.
 */
export interface Patience {
  /** A request refused or failed this long without a break ends the call, saying what was refused. */
  giveUpAfterMs: number;
}

/** The first wait after a fault that names none, doubled per fault up to `MAX_BACKOFF_MS`. */
export const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 30_000;

/** Thrown when a request has been refused for the whole of `giveUpAfterMs`: not worth another attempt of the call. */
export class ProviderGaveUpError extends Error {
  override readonly name = 'ProviderGaveUpError';
  constructor(
    readonly refusals: Refusals,
    readonly lastFault: string,
    readonly giveUpAfterMs: number,
  ) {
    super(
      `a request was refused or failed for ${+(giveUpAfterMs / 1000).toFixed(1)} s without a break (llm.giveUpSeconds); ` +
        `this call was refused ${refusals.requests} times (${describeRefusals(refusals)}); the last: ${lastFault}`,
    );
  }
}

/** How a refused request is treated: classified, counted, waited for and sent again. */
export interface RetryHooks {
  classify(error: unknown): LlmFault;
  /** Told of every refusal before the wait (the limiter pauses every call on a 429). */
  refused?(fault: Extract<LlmFault, { retryable: true }>, waitMs: number): void;
  /** Runs before each new send (the limiter's room for one more request). */
  beforeRetry?(): Promise<void>;
  signal?: AbortSignal;
  /** For tests: the clock and the draw that jitters the backoff. */
  now?: () => number;
  random?: () => number;
}

/** The status of an HTTP refusal, or the fault's kind: how a refusal is counted. */
function labelOf(error: unknown, fault: LlmFault): string {
  return error instanceof OpenAI.APIError && error.status !== undefined ? String(error.status) : fault.kind;
}

/** Equal jitter: half the doubled wait for sure, the other half drawn, so requests refused together do not return together. */
export function backoffMs(failures: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failures - 1));
  return full / 2 + random() * (full / 2);
}

/**
 * Sends with `send` until it answers. A fault that will not go away (a rejected key, a malformed
 * request) and a cancellation end it at once; any other is counted in `tally`, waited for and sent
 * again, until the request has failed for `patience.giveUpAfterMs` without a break.
 */
export async function patiently<T>(send: () => Promise<T>, patience: Patience, tally: Refusals, hooks: RetryHooks): Promise<T> {
  const now = hooks.now ?? Date.now;
  let failingSince: number | undefined;
  for (let failures = 1; ; failures++) {
    try {
      return await send();
    } catch (error) {
      if (hooks.signal?.aborted) throw error;
      const fault = hooks.classify(error);
      if (!fault.retryable) throw error;
      failingSince ??= now();
      tally.requests += 1;
      const label = labelOf(error, fault);
      tally.byKind[label] = (tally.byKind[label] ?? 0) + 1;
      const left = failingSince + patience.giveUpAfterMs - now();
      if (left <= 0) throw new ProviderGaveUpError(tally, fault.message, patience.giveUpAfterMs);
      // The provider's own word on when to come back wins over the backoff; never past the give-up point (+1 s, to try once there).
      const waitMs = Math.min(fault.retryAfterMs ?? backoffMs(failures, hooks.random), left + 1_000);
      hooks.refused?.(fault, waitMs);
      await sleep(waitMs, undefined, hooks.signal ? { signal: hooks.signal } : {});
      tally.waitedMs += waitMs;
      await hooks.beforeRetry?.();
    }
  }
}
