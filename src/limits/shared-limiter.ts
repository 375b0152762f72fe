import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, type WorkflowClient } from '@temporalio/client';
import type { AcquireRequest, AcquireResult, CallBooking, ProviderLimitInput, Settled } from '../../workflows/limits/definitions';
import type { CallLimiter } from '../llm/rate-limit';
import { PROVIDER_LIMIT, PROVIDER_LIMIT_WORKFLOW_TYPE } from '../run/wire';
import { isLimited, type RateLimits } from './buckets';

/** How many times an ask is made again while the limit moves to its next run or the server is busy with other updates. */
const MAX_ATTEMPTS = 50;
/** Usage of ended calls is gathered this long (or until the next ask) and sent together. */
const SETTLE_DELAY_MS = 50;

export interface SharedLimiterOptions {
  /** The endpoint whose account the limit is: its URL and key name the limit (the key only as a digest). */
  endpoint: { baseURL: string; apiKey: string };
  limits: RateLimits;
  /** The task queue the limit's workflow runs on when a call starts it (the worker's own). */
  taskQueue: string;
  /** The Temporal client (default: the running activity's, which is the worker's). */
  client?: () => WorkflowClient;
}

/** The limit's workflow id: one per endpoint URL and API key, so two accounts on one URL do not share a quota. */
export function providerLimitId(endpoint: { baseURL: string; apiKey: string }): string {
  const digest = createHash('sha256').update(`${endpoint.baseURL}\n${endpoint.apiKey}`).digest('hex').slice(0, 20);
  return `${PROVIDER_LIMIT.workflowIdPrefix}${digest}`;
}

interface Waiting {
  booking: CallBooking;
  granted(): void;
  failed(error: unknown): void;
}

/**
 * A worker's side of the shared provider limit (workflows/limits/provider-limit.ts): every call waits
 * for its turn there before it is sent, so all workers together stay within the account's requests
 * and tokens per minute. A worker asks for all its waiting calls in one update at a time (Temporal
 * allows a workflow only a few updates in flight), and sends the usage of ended calls along with its
 * next ask. The first ask starts the workflow (update-with-start) with this worker's limits; a limit
 * already running keeps its own.
 */
export class SharedRateLimiter implements CallLimiter {
  readonly workflowId: string;
  private readonly client: () => WorkflowClient;
  private readonly waiting = new Map<string, Waiting>();
  /** Calls given up while an ask for them was open, and their tokens: a grant that raced the withdrawal is given back. */
  private readonly abandoned = new Map<string, number>();
  private settled: Settled[] = [];
  private asking = false;
  private settleTimer: NodeJS.Timeout | undefined;
  private lastClient: WorkflowClient | undefined;

  constructor(private readonly o: SharedLimiterOptions) {
    this.workflowId = providerLimitId(o.endpoint);
    this.client = o.client ?? (() => Context.current().client.workflow);
  }

  get limited(): boolean {
    return isLimited(this.o.limits);
  }

  async acquire(estimatedTokens: number, signal?: AbortSignal, requests = 1): Promise<void> {
    signal?.throwIfAborted();
    this.lastClient = this.client();
    const id = randomUUID();
    const turn = new Promise<void>((resolve, reject) => {
      this.waiting.set(id, {
        booking: { id, tokens: estimatedTokens, ...(requests === 1 ? {} : { requests }) },
        granted: resolve,
        failed: reject,
      });
    });
    this.ask();
    try {
      await (signal ? untilAborted(turn, signal) : turn);
    } catch (error) {
      if (!signal?.aborted) throw error;
      // Given up while waiting: its place is withdrawn, and a grant that raced the withdrawal is handed back.
      if (this.waiting.delete(id)) {
        this.abandoned.set(id, estimatedTokens);
        this.withdraw(id);
      } else this.settle(estimatedTokens, 0); // granted in the same moment: never sent
      throw signal.reason ?? error;
    }
  }

  settle(estimatedTokens: number, actualTokens: number): void {
    if (estimatedTokens === actualTokens) return;
    this.settled.push([estimatedTokens, actualTokens]);
    // Sent with the next ask, or on its own shortly: other workers may be waiting for these tokens.
    this.settleTimer ??= setTimeout(() => this.sendSettled(), SETTLE_DELAY_MS).unref();
  }

  refused(retryAfterMs: number): void {
    this.handle()
      ?.signal(PROVIDER_LIMIT.refused, { retryAfterMs })
      .catch(() => undefined);
  }

  private handle() {
    return this.lastClient?.getHandle(this.workflowId);
  }

  private withdraw(id: string): void {
    this.handle()
      ?.signal(PROVIDER_LIMIT.withdraw, { ids: [id] })
      .catch(() => undefined); // else the limit forgets it once nobody asks for it
  }

  private sendSettled(): void {
    this.settleTimer = undefined;
    // Not kept for the next ask: the open one may be waiting for exactly these tokens.
    if (this.settled.length === 0) return;
    const settled = this.settled.splice(0);
    this.handle()
      ?.signal(PROVIDER_LIMIT.settle, { settled })
      .catch(() => undefined); // a lost correction only makes the limit stricter until the buckets refill
  }

  /** Asks for every waiting call in one update; asks again for those still waiting once it is answered. */
  private ask(): void {
    if (this.asking || this.waiting.size === 0) return;
    this.asking = true;
    const settled = this.settled.splice(0);
    const calls = [...this.waiting.values()].map((w) => w.booking);
    const asked = calls.map((c) => c.id);
    this.request({ calls, ...(settled.length ? { settled } : {}) })
      .then(
        (granted) => {
          for (const id of granted) {
            const w = this.waiting.get(id);
            this.waiting.delete(id);
            w?.granted();
            const abandoned = this.abandoned.get(id);
            if (abandoned !== undefined) this.settle(abandoned, 0);
          }
        },
        (error: unknown) => {
          this.settled.unshift(...settled);
          for (const w of this.waiting.values()) w.failed(error);
          this.waiting.clear();
        },
      )
      .finally(() => {
        // Given up and not granted in this answer: the withdrawal reached the limit first.
        for (const id of asked) this.abandoned.delete(id);
        this.asking = false;
        this.ask();
      });
  }

  private async request(request: AcquireRequest): Promise<string[]> {
    const client = this.lastClient!;
    const input: ProviderLimitInput = { endpoint: this.o.endpoint.baseURL, limits: this.o.limits };
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await client.executeUpdateWithStart<(input: ProviderLimitInput) => Promise<void>, AcquireResult, [AcquireRequest]>(
          PROVIDER_LIMIT.acquire,
          {
            args: [request],
            startWorkflowOperation: new WithStartWorkflowOperation(PROVIDER_LIMIT_WORKFLOW_TYPE, {
              workflowId: this.workflowId,
              taskQueue: this.o.taskQueue,
              args: [input],
              workflowIdConflictPolicy: 'USE_EXISTING',
            }),
          },
        );
        // A run that was ending answered with what it granted; the rest are asked for from its successor.
        if (result.granted.length || !result.again) return result.granted;
      } catch (error) {
        if (!askAgain(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
      if (attempt >= MAX_ATTEMPTS) throw new Error(`the provider limit ${this.workflowId} did not answer after ${MAX_ATTEMPTS} attempts`);
      // The limit is continuing as new (its next run answers in a moment), or the server is busy with other workers' updates.
      await sleep(10 + Math.random() * 20 * Math.min(attempt, 10));
      request = { calls: request.calls.filter((c) => this.waiting.has(c.id)) };
      if (request.calls.length === 0) return [];
    }
  }
}

/** Answers that mean "not now": the limit's run closed before taking the update, or too many updates are in flight. */
function askAgain(error: unknown): boolean {
  const text = `${error instanceof Error ? error.message : String(error)} ${(error as { cause?: unknown })?.cause ?? ''}`;
  return /update was aborted|workflow execution already completed|workflow not found for ID|in-flight updates|RESOURCE_EXHAUSTED/i.test(
    text,
  );
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
