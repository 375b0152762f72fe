/**
 * An account's per-minute quota as the simulator enforces it: the same token buckets the engine's
 * limiters use (`../limits/buckets`), and a refusal shaped like OpenAI's 429, so benchmarks and tests
 * see what a client that outruns its quota sees from a real provider.
 */
import { isLimited, type RateLimits, type TokenBuckets } from '../limits/buckets';
import { SIMULATED_MODEL } from '../run/wire';

/** Limits checked to be positive numbers; undefined when none is set (nothing to enforce). */
export function checkedLimits(limits: RateLimits | undefined): RateLimits | undefined {
  if (!limits) return undefined;
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new RangeError(`limits.${name} must be a positive number, got ${value}`);
    }
  }
  return isLimited(limits) ? limits : undefined;
}

/** What the server answers a request the quota cannot take now. */
export interface QuotaRefusal {
  /** Which bucket is short, as OpenAI names it in `error.type`. */
  type: 'requests' | 'tokens';
  message: string;
  headers: Record<string, string>;
}

// OpenAI's wording: "Please try again in 1.2s." (or "in 340ms").
const humanMs = (ms: number) => (ms < 1000 ? `${ms}ms` : `${Number((ms / 1000).toFixed(3))}s`);

/** The refusal of one request of `requested` tokens that does not fit the buckets `now`. */
export function quotaRefusal(buckets: TokenBuckets, requested: number, now: number): QuotaRefusal {
  const waitMs = Math.max(1, buckets.waitMs(requested, now));
  const levels = buckets.levels(now);
  const { requestsPerMinute: rpm, tokensPerMinute: tpm } = buckets.limits;
  const headers: Record<string, string> = {
    'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
    'retry-after-ms': String(waitMs),
  };
  const remaining = (level: number) => Math.max(0, Math.floor(level));
  if (rpm !== undefined) {
    headers['x-ratelimit-limit-requests'] = String(rpm);
    headers['x-ratelimit-remaining-requests'] = String(remaining(levels.requests));
  }
  if (tpm !== undefined) {
    headers['x-ratelimit-limit-tokens'] = String(tpm);
    headers['x-ratelimit-remaining-tokens'] = String(remaining(levels.tokens));
  }
  // The request does not fit, so when the requests bucket has room it is the tokens that are short.
  const type = tpm === undefined || (rpm !== undefined && levels.requests < 1) ? 'requests' : 'tokens';
  const [limit, level, asked, unit] =
    type === 'requests' ? [rpm!, levels.requests, 1, 'requests per min (RPM)'] : [tpm!, levels.tokens, requested, 'tokens per min (TPM)'];
  const message =
    `Rate limit reached for ${SIMULATED_MODEL} on ${unit}: Limit ${limit}, Used ${Math.max(0, limit - remaining(level))}, ` +
    `Requested ${asked}. Please try again in ${humanMs(waitMs)}.`;
  return { type, message, headers };
}
