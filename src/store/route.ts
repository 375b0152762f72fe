import type { PayloadRoute } from '../run/check';

/**
 * The store's settings read from the environment without loading Temporal's SDK: the CLI checks a
 * request against them before it starts anything.
 */

/** Where large payloads are kept: a folder (the default), `s3://bucket/prefix`, or `off` (everything inline). */
export const STORE_ENV = 'GOT_STORE';
/** Payloads at least this many bytes (encoded) are stored and referenced instead of sent inline. */
export const STORE_THRESHOLD_ENV = 'GOT_STORE_THRESHOLD_BYTES';

/**
 * 2 KiB: a step's prompt inputs, a draft, a batch of answers are larger and go to the store, so a
 * data room merged in thousands of calls keeps a history of a few megabytes (measured: 30 contracts
 * of 40,000 characters, 1,135 calls, 6.6 MB of history at 32 KiB, 1.3 MB at 2 KiB); scores,
 * progress and short sorting steps stay inline, readable in the Web UI without the codec server
 * (docs/decisions.md 32).
 */
export const DEFAULT_STORE_THRESHOLD_BYTES = 2 * 1024;

/** The threshold `GOT_STORE_THRESHOLD_BYTES` sets, or the default. */
export function storeThresholdFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[STORE_THRESHOLD_ENV]?.trim();
  if (!raw) return DEFAULT_STORE_THRESHOLD_BYTES;
  const bytes = Number(raw);
  if (!Number.isInteger(bytes) || bytes < 0)
    throw new Error(`${STORE_THRESHOLD_ENV}=${raw}: expected a whole number of bytes (0 stores every payload)`);
  return bytes;
}

/** How payloads travel for this process: the store's threshold, or none when `GOT_STORE=off`. */
export function payloadRouteFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadRoute {
  return env[STORE_ENV]?.trim() === 'off' ? {} : { storeThreshold: storeThresholdFromEnv(env) };
}
