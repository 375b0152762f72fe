import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BucketLevels, RateLimits } from '../../src/limits/buckets';
import { PROVIDER_LIMIT } from '../../src/run/wire';

/** A call waiting for its turn: its own id, its estimated tokens (the prompt and what its samples may produce) and requests (default 1). */
export interface CallBooking {
  id: string;
  tokens: number;
  requests?: number;
}

/** Where a provider limit starts, or continues from after continue-as-new. */
export interface ProviderLimitInput {
  /** The endpoint's base URL (never its key): what the Web UI and `limitState` name. */
  endpoint: string;
  limits: RateLimits;
  /** The buckets as the previous run left them. */
  levels?: BucketLevels;
  /** Calls granted by the earlier runs of this limit. */
  grantedBefore?: number;
  /** Calls waiting when the previous run ended, in their order: they keep their places. */
  waiting?: CallBooking[];
}

/** A call's booked and used tokens, once known: the difference is given back (or charged). */
export type Settled = [booked: number, used: number];

/**
 * A worker's waiting calls, asked for together (the ones still waiting from its last ask and any new
 * ones), and the usage of its calls that ended since it last asked.
 */
export interface AcquireRequest {
  calls: CallBooking[];
  settled?: Settled[];
}

/**
 * Answered once at least one of the calls may go: `granted` are the ids that may be sent now; the
 * others keep their places and are asked for again. `again`: this run of the limit is ending; ask
 * again for the rest (the next run has their places).
 */
export interface AcquireResult {
  granted: string[];
  again?: true;
}

export interface ProviderLimitState {
  endpoint: string;
  limits: RateLimits;
  levels: BucketLevels;
  /** Calls waiting for their turn, and calls granted so far across the limit's runs. */
  waiting: number;
  granted: number;
  /** Refusals (429) workers reported, and when the last pause they asked for ends. */
  refusals: number;
  pausedUntil?: number;
}

export const acquireUpdate = defineUpdate<AcquireResult, [AcquireRequest]>(PROVIDER_LIMIT.acquire);
export const settleSignal = defineSignal<[{ settled: Settled[] }]>(PROVIDER_LIMIT.settle);
export const withdrawSignal = defineSignal<[{ ids: string[] }]>(PROVIDER_LIMIT.withdraw);
export const refusedSignal = defineSignal<[{ retryAfterMs: number }]>(PROVIDER_LIMIT.refused);
export const limitStateQuery = defineQuery<ProviderLimitState>(PROVIDER_LIMIT.state);
