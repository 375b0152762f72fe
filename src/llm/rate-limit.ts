import { setTimeout as sleep } from 'node:timers/promises';

export interface RateLimits {
  /** Requests per minute this worker may send (a provider quota), or undefined for no limit. */
  requestsPerMinute?: number;
  /** Tokens (prompt + completion) per minute, or undefined for no limit. */
  tokensPerMinute?: number;
  /** How much may be sent at once after a quiet spell, in seconds' worth of the rates (default 60: a minute's quota). */
  burstSeconds?: number;
}

/**
 * Keeps a worker inside a provider's quota: calls wait for room instead of storming the endpoint
 * and collecting 429s. Two token buckets (requests, tokens) refill continuously; a call reserves its
 * estimated tokens up front and settles the difference when the real usage is known.
 */
export class RateLimiter {
  private requests: number;
  private tokens: number;
  private last = Date.now();

  private readonly burst: number;

  constructor(readonly limits: RateLimits) {
    this.burst = (limits.burstSeconds ?? 60) / 60;
    this.requests = this.capacity(limits.requestsPerMinute);
    this.tokens = this.capacity(limits.tokensPerMinute);
  }

  private capacity(perMinute: number | undefined): number {
    return perMinute === undefined ? Infinity : Math.max(1, perMinute * this.burst);
  }

  get limited(): boolean {
    return this.limits.requestsPerMinute !== undefined || this.limits.tokensPerMinute !== undefined;
  }

  private refill(): void {
    const now = Date.now();
    const minutes = (now - this.last) / 60_000;
    this.last = now;
    if (this.limits.requestsPerMinute)
      this.requests = Math.min(this.capacity(this.limits.requestsPerMinute), this.requests + minutes * this.limits.requestsPerMinute);
    if (this.limits.tokensPerMinute)
      this.tokens = Math.min(this.capacity(this.limits.tokensPerMinute), this.tokens + minutes * this.limits.tokensPerMinute);
  }

  /** Waits until one request and `estimatedTokens` fit (a call larger than the whole bucket waits for a full one). */
  async acquire(estimatedTokens: number, signal?: AbortSignal): Promise<void> {
    const tokens = Math.min(estimatedTokens, this.capacity(this.limits.tokensPerMinute));
    for (;;) {
      this.refill();
      if (this.requests >= 1 && this.tokens >= tokens) {
        this.requests -= 1;
        this.tokens -= tokens;
        return;
      }
      const needRequests = this.requests >= 1 ? 0 : ((1 - this.requests) / this.limits.requestsPerMinute!) * 60_000;
      const needTokens = this.tokens >= tokens ? 0 : ((tokens - this.tokens) / this.limits.tokensPerMinute!) * 60_000;
      await sleep(Math.max(10, Math.ceil(Math.max(needRequests, needTokens))), undefined, signal ? { signal } : {});
    }
  }

  /** Corrects a reservation once the real token usage is known. */
  settle(estimatedTokens: number, actualTokens: number): void {
    if (this.limits.tokensPerMinute) this.tokens -= actualTokens - Math.min(estimatedTokens, this.capacity(this.limits.tokensPerMinute));
  }
}
