/**
 * A provider's requests-per-minute and tokens-per-minute limits as two token buckets that refill
 * continuously. Pure arithmetic on a clock passed in, so one definition serves a worker's own
 * limiter (wall clock), the shared limiter workflow (workflow time) and the simulator's enforcement.
 */

export interface RateLimits {
  /** Requests per minute (a provider quota), or undefined for no limit. */
  requestsPerMinute?: number;
  /** Tokens (prompt + completion) per minute, or undefined for no limit. */
  tokensPerMinute?: number;
  /** How much may be sent at once after a quiet spell, in seconds' worth of the rates (default 60: a minute's quota). */
  burstSeconds?: number;
}

/** A minute's quota may go at once, as providers allow. */
export const DEFAULT_BURST_SECONDS = 60;

/** The levels of both buckets at one moment: what a limiter hands on when it continues elsewhere. */
export interface BucketLevels {
  requests: number;
  tokens: number;
  at: number;
}

export interface TokenBucketsOptions {
  /**
   * Seconds' worth of the rates the levels stay short of the capacity (at most half the burst). A
   * limiter whose calls reach the provider some time after it lets them go needs it: a provider whose
   * bucket is full loses the refill of that time, which the limiter would otherwise count. A call is
   * still charged as the provider charges it (up to the whole capacity), so a large call waits for it.
   */
  leadSeconds?: number;
}

export const isLimited = (limits: RateLimits): boolean => limits.requestsPerMinute !== undefined || limits.tokensPerMinute !== undefined;

export class TokenBuckets {
  private requests: number;
  private tokens: number;
  private last: number;
  private readonly burstMinutes: number;

  /** The levels never refill above the capacity less this lead's worth of the rates (see `TokenBucketsOptions`). */
  private readonly leadMinutes: number;

  constructor(
    readonly limits: RateLimits,
    now: number,
    levels?: BucketLevels,
    options: TokenBucketsOptions = {},
  ) {
    this.burstMinutes = (limits.burstSeconds ?? DEFAULT_BURST_SECONDS) / 60;
    this.leadMinutes = Math.min(this.burstMinutes / 2, (options.leadSeconds ?? 0) / 60);
    this.requests = Math.min(levels?.requests ?? Infinity, this.ceiling(limits.requestsPerMinute));
    this.tokens = Math.min(levels?.tokens ?? Infinity, this.ceiling(limits.tokensPerMinute));
    this.last = levels?.at ?? now;
    this.refill(now);
  }

  private capacity(perMinute: number | undefined): number {
    return perMinute === undefined ? Infinity : Math.max(1, perMinute * this.burstMinutes);
  }

  /** How high a level refills: the capacity, less the lead. */
  private ceiling(perMinute: number | undefined): number {
    return perMinute === undefined ? Infinity : Math.max(1, perMinute * (this.burstMinutes - this.leadMinutes));
  }

  /** A call's tokens as the bucket counts them: one larger than the whole bucket waits for a full one. */
  private fitted(tokens: number): number {
    return Math.min(tokens, this.capacity(this.limits.tokensPerMinute));
  }

  private refill(now: number): void {
    const minutes = Math.max(0, now - this.last) / 60_000;
    this.last = Math.max(this.last, now);
    const { requestsPerMinute: rpm, tokensPerMinute: tpm } = this.limits;
    if (rpm) this.requests = Math.min(this.ceiling(rpm), this.requests + minutes * rpm);
    if (tpm) this.tokens = Math.min(this.ceiling(tpm), this.tokens + minutes * tpm);
  }

  /** Milliseconds until `requests` requests and `tokens` fit (0: they fit now). */
  waitMs(tokens: number, now: number, requests = 1): number {
    this.refill(now);
    // What must be there before taking: never more than a level refills to (the charge may leave a debt).
    const want = Math.min(this.fitted(tokens), this.ceiling(this.limits.tokensPerMinute));
    const { requestsPerMinute: rpm, tokensPerMinute: tpm } = this.limits;
    const wantRequests = Math.min(requests, this.ceiling(rpm));
    const forRequests = this.requests >= wantRequests || !rpm ? 0 : ((wantRequests - this.requests) / rpm) * 60_000;
    const forTokens = this.tokens >= want || !tpm ? 0 : ((want - this.tokens) / tpm) * 60_000;
    return Math.ceil(Math.max(forRequests, forTokens));
  }

  /** Takes `requests` requests and `tokens` if they fit now; false (and nothing taken) otherwise. */
  tryTake(tokens: number, now: number, requests = 1): boolean {
    if (this.waitMs(tokens, now, requests) > 0) return false;
    this.requests -= Math.min(requests, this.capacity(this.limits.requestsPerMinute));
    this.tokens -= this.fitted(tokens);
    return true;
  }

  /** Corrects a reservation of `reserved` tokens once `used` is known (a refund when fewer were used). */
  settle(reserved: number, used: number): void {
    if (this.limits.tokensPerMinute) this.tokens -= used - this.fitted(reserved);
  }

  /** Empties both buckets until `until`: the provider refused a call and asked for a pause. */
  pauseUntil(until: number, now: number): void {
    this.refill(now);
    if (until <= this.last) return;
    const ahead = (until - this.last) / 60_000;
    const { requestsPerMinute: rpm, tokensPerMinute: tpm } = this.limits;
    // Levels below zero by the pause's worth of refill: nothing fits before `until`.
    if (rpm) this.requests = Math.min(this.requests, -ahead * rpm);
    if (tpm) this.tokens = Math.min(this.tokens, -ahead * tpm);
  }

  /** The levels now (never Infinity for an unlimited bucket's sake: JSON cannot carry it). */
  levels(now: number): BucketLevels {
    this.refill(now);
    const finite = (n: number) => (Number.isFinite(n) ? n : 0);
    return { requests: finite(this.requests), tokens: finite(this.tokens), at: this.last };
  }
}
