import { allHandlersFinished, condition, continueAsNew, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import { TokenBuckets } from '../../src/limits/buckets';
import {
  type AcquireResult,
  acquireUpdate,
  type CallBooking,
  limitStateQuery,
  type ProviderLimitInput,
  refusedSignal,
  type Settled,
  settleSignal,
  withdrawSignal,
} from './definitions';

/** Each run of a limit grants this many calls, then continues as new: its history stays small. */
const GRANTS_PER_RUN = 2_000;
/**
 * A grant reaches the provider some time after the workflow made it (the update's way back, the
 * HTTP request): the limit's levels stay this much of the rates below the provider's (a 60 s burst
 * loses under 1%), see `TokenBucketsOptions.leadSeconds`.
 */
const GRANT_LEAD_SECONDS = 0.5;
/** A waiting call whose worker has not asked for it again for this long is dropped (the worker died): it must not hold the queue. */
const FORGOTTEN_MS = 30_000;
/** A limit nobody asked anything for this long ends; the next call starts it again with full buckets. */
const IDLE_MS = 10 * 60_000;

interface Waiter extends CallBooking {
  granted?: true;
  /** Withdrawn, or dropped as forgotten: an open ask for it is answered. */
  gone?: true;
  /** How many asks for it are open now, and when one last ended. */
  held: number;
  lastAsked: number;
}

/**
 * One provider account's requests and tokens per minute, held for every worker that calls it.
 * Calls wait here for their turn, first come first served, and go only when the buckets hold them
 * now (never booked into the future: a provider at its full bucket loses refill a booking would
 * count). A worker asks for all its waiting calls in one update, answered when at least one may go,
 * so the updates in flight are one per worker, not one per call (Temporal caps them per workflow).
 * Time is the workflow's, so a replay grants the same calls.
 */
export async function providerLimit(input: ProviderLimitInput): Promise<void> {
  const buckets = new TokenBuckets(input.limits, Date.now(), input.levels, { leadSeconds: GRANT_LEAD_SECONDS });
  const queue: Waiter[] = (input.waiting ?? []).map((c) => ({ ...c, held: 0, lastAsked: Date.now() }));
  const byId = new Map(queue.map((w) => [w.id, w]));
  let granted = 0;
  let refusals = 0;
  let pausedUntil: number | undefined;
  let ending = false;
  // Bumped by everything that may let the head of the queue go (an ask, a refund, a withdrawal).
  let changes = 0;
  const settle = (settled: Settled[] | undefined) => {
    for (const [booked, used] of settled ?? []) if (Number.isFinite(booked) && Number.isFinite(used)) buckets.settle(booked, used);
  };
  const remove = (w: Waiter) => {
    queue.splice(queue.indexOf(w), 1);
    byId.delete(w.id);
    w.gone = true;
  };

  setHandler(
    acquireUpdate,
    async ({ calls, settled }): Promise<AcquireResult> => {
      settle(settled);
      changes++;
      if (ending) return { granted: [], again: true };
      const mine = calls.map((call) => {
        let w = byId.get(call.id);
        if (!w) {
          w = { ...call, held: 0, lastAsked: Date.now() };
          queue.push(w);
          byId.set(w.id, w);
        }
        w.held++;
        return w;
      });
      await condition(() => ending || mine.some((w) => w.granted || w.gone));
      const now = Date.now();
      for (const w of mine) {
        w.held--;
        w.lastAsked = now;
      }
      const given = mine.filter((w) => w.granted);
      for (const w of given) byId.delete(w.id);
      return { granted: given.map((w) => w.id), ...(ending ? { again: true as const } : {}) };
    },
    {
      validator: ({ calls, settled }) => {
        if (!Array.isArray(calls) || calls.length === 0) throw new Error('acquire: calls must be a non-empty array');
        for (const { id, tokens, requests } of calls) {
          if (typeof id !== 'string' || !id) throw new Error('acquire: every call needs an id');
          if (!(Number.isFinite(tokens) && tokens >= 0)) throw new Error(`acquire: tokens must be a number ≥ 0, got ${tokens}`);
          if (requests !== undefined && !(Number.isInteger(requests) && requests >= 1))
            throw new Error(`acquire: requests must be a whole number ≥ 1, got ${requests}`);
        }
        if (settled !== undefined && !Array.isArray(settled)) throw new Error('acquire: settled must be an array of [booked, used]');
      },
    },
  );
  setHandler(settleSignal, ({ settled }) => {
    settle(settled);
    changes++;
  });
  setHandler(withdrawSignal, ({ ids }) => {
    for (const id of ids) {
      const w = byId.get(id);
      if (w && !w.granted) remove(w);
    }
    changes++;
  });
  setHandler(refusedSignal, ({ retryAfterMs }) => {
    refusals++;
    const until = Date.now() + Math.max(0, retryAfterMs);
    buckets.pauseUntil(until, Date.now());
    pausedUntil = Math.max(pausedUntil ?? 0, until);
    changes++;
  });
  setHandler(limitStateQuery, () => ({
    endpoint: input.endpoint,
    limits: input.limits,
    levels: buckets.levels(Date.now()),
    waiting: queue.length,
    granted: (input.grantedBefore ?? 0) + granted,
    refusals,
    ...(pausedUntil !== undefined ? { pausedUntil } : {}),
  }));

  for (;;) {
    const now = Date.now();
    // Calls whose worker stopped asking for them (it died) leave the queue; they would hold it forever.
    for (const w of queue.filter((w) => w.held === 0 && now - w.lastAsked > FORGOTTEN_MS)) remove(w);
    while (queue.length && buckets.tryTake(queue[0]!.tokens, now, queue[0]!.requests)) {
      const head = queue.shift()!;
      head.granted = true;
      granted++;
    }
    showState(input, (input.grantedBefore ?? 0) + granted, queue.length);
    if (granted >= GRANTS_PER_RUN || workflowInfo().continueAsNewSuggested) break;
    const seen = changes;
    if (queue.length) {
      const waitMs = Math.max(1, Math.min(buckets.waitMs(queue[0]!.tokens, now, queue[0]!.requests), FORGOTTEN_MS));
      await condition(() => changes !== seen, waitMs);
    } else if (!(await condition(() => changes !== seen, IDLE_MS))) {
      ending = true;
      await condition(allHandlersFinished);
      return;
    }
  }
  // Open asks are answered with what they got; the calls still waiting keep their places in the next run.
  ending = true;
  await condition(allHandlersFinished);
  await continueAsNew<typeof providerLimit>({
    ...input,
    levels: buckets.levels(Date.now()),
    grantedBefore: (input.grantedBefore ?? 0) + granted,
    waiting: queue.map(({ id, tokens, requests }) => ({ id, tokens, ...(requests ? { requests } : {}) })),
  });
}

/** The limit's page in the Web UI: its rates and what waits. */
function showState(input: ProviderLimitInput, granted: number, waiting: number): void {
  const { requestsPerMinute: rpm, tokensPerMinute: tpm } = input.limits;
  const rates = [rpm ? `${rpm} requests` : '', tpm ? `${tpm} tokens` : ''].filter(Boolean).join(' and ');
  setCurrentDetails(
    `**${input.endpoint}: ${rates || 'no limit'} a minute, for every worker**\n\n${granted} calls granted · ${waiting} waiting`,
  );
}
