import { setTimeout as sleep } from 'node:timers/promises';
import { isLimited, type RateLimits, TokenBuckets } from '../limits/buckets';

export type { RateLimits } from '../limits/buckets';

/**
 * What keeps calls inside a provider's quota: a call reserves one request and its estimated tokens
 * before it is sent, settles the difference once the real usage is known, and reports a refusal (429)
 * so that no call follows before the provider's Retry-After.
 */
export interface CallLimiter {
  readonly limited: boolean;
  /** Waits until `requests` requests (default 1) and `estimatedTokens` fit. */
  acquire(estimatedTokens: number, signal?: AbortSignal, requests?: number): Promise<void>;
  settle(estimatedTokens: number, actualTokens: number): void;
  refused(retryAfterMs: number): void;
}

/**
 * One worker's limiter: calls wait for room instead of storming the endpoint and collecting 429s.
 * With several workers on one account, each would allow the whole quota; the shared limiter
 * (`src/limits/shared-limiter.ts`) holds it across all of them.
 */
export class RateLimiter implements CallLimiter {
  private readonly buckets: TokenBuckets;

  constructor(readonly limits: RateLimits) {
    this.buckets = new TokenBuckets(limits, Date.now());
  }

  get limited(): boolean {
    return isLimited(this.limits);
  }

  /** Waits until the requests and `estimatedTokens` fit (a call larger than the whole bucket waits for a full one). */
  async acquire(estimatedTokens: number, signal?: AbortSignal, requests = 1): Promise<void> {
    while (!this.buckets.tryTake(estimatedTokens, Date.now(), requests)) {
      await sleep(Math.max(10, this.buckets.waitMs(estimatedTokens, Date.now(), requests)), undefined, signal ? { signal } : {});
    }
  }

  /** Corrects a reservation once the real token usage is known. */
  settle(estimatedTokens: number, actualTokens: number): void {
    this.buckets.settle(estimatedTokens, actualTokens);
  }

  /** The provider refused a call: nothing more is sent before its Retry-After. */
  refused(retryAfterMs: number): void {
    this.buckets.pauseUntil(Date.now() + retryAfterMs, Date.now());
  }
}
