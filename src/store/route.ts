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
 * 32 KiB: far below Temporal's per-payload (2 MB) and per-message (4 MB) limits, so a history of
 * hundreds of steps stays a few megabytes, while prompts, scores and sorting lists stay inline and
 * readable in the Web UI without the codec server (docs/decisions.md 32).
 */
export const DEFAULT_STORE_THRESHOLD_BYTES = 32 * 1024;

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
