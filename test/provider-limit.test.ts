import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { providerLimitId, SharedRateLimiter } from '../src/limits/shared-limiter';
import { PROVIDER_LIMIT } from '../src/run/wire';
import { sortingTask } from '../src/tasks/sorting';
import { bundleGotWorkflows } from '../worker/create';
import type { ProviderLimitState } from '../workflows/limits/definitions';
import { type Harness, startHarness } from './support/harness';

// The shared provider limit (decision 70) against a real Temporal server: its workflow runs on the
// harness's workers; limiters made here play the part of further workers' clients.

describe('the shared provider limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  const limiterFor = (apiKey: string, tokensPerMinute: number, burstSeconds = 1) =>
    new SharedRateLimiter({
      endpoint: { baseURL: 'http://provider.test/v1', apiKey },
      limits: { tokensPerMinute, burstSeconds },
      taskQueue: h.taskQueue,
      client: () => h.client.workflow,
    });

  it('holds the tokens per minute across workers: calls from two wait their turn in one queue', async () => {
    // 60,000 tokens a minute with a 2 s burst: 2,000 at once (the limit grants 1,500 of them, keeping
    // half a second in hand), then 1,000 a second, for both together.
    const [a, b] = [limiterFor('pace', 60_000, 2), limiterFor('pace', 60_000, 2)];
    expect(a.workflowId).toBe(b.workflowId);
    const started = Date.now();
    const grants: number[] = [];
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).acquire(500).then(() => grants.push(Date.now() - started))));
    grants.sort((x, y) => x - y);
    // 4,000 tokens: 1,500 at once, 2,500 more at 1,000 a second.
    expect(grants[2]!).toBeLessThan(2_000);
    expect(grants.at(-1)!).toBeGreaterThanOrEqual(2_400);
    // By any moment, no more than the provider's burst and the refill since the start were granted.
    for (const [i, at] of grants.entries()) expect((i + 1) * 500).toBeLessThanOrEqual(2_000 + at);
    const state = await h.client.workflow.getHandle(a.workflowId).query<ProviderLimitState>(PROVIDER_LIMIT.state);
    expect(state).toMatchObject({ endpoint: 'http://provider.test/v1', granted: 8, refusals: 0 });
  });

  it('is shown by `got limits` for the configured endpoint and key, and its absence too', async () => {
    const got = async (apiKey: string) =>
      (
        await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'limits', '--json'], {
          env: {
            ...process.env,
            TEMPORAL_ADDRESS: inject('temporalAddress'),
            OPENAI_BASE_URL: 'http://provider.test/v1',
            OPENAI_API_KEY: apiKey,
          },
        })
      ).stdout;
    // The first test's limit ('pace') granted its eight calls; no worker ever used the key 'unused'.
    expect(JSON.parse(await got('pace'))).toMatchObject({
      running: true,
      state: { granted: 8, waiting: 0, limits: { tokensPerMinute: 60_000 } },
    });
    expect(JSON.parse(await got('unused'))).toMatchObject({ running: false });
  }, 60_000);

  it('charges nothing for a call that gave up waiting, and gives back what a call did not use', async () => {
    // 10 tokens a second, 295 at once (a 30 s burst less the half second the limit keeps in hand).
    const limiter = limiterFor('withdraw', 600, 30);
    await limiter.acquire(295);
    const quit = new AbortController();
    const waiting = limiter.acquire(100, quit.signal);
    setTimeout(() => quit.abort(new Error('the run was cancelled')), 100);
    await expect(waiting).rejects.toThrow('the run was cancelled');
    // The first call used nothing: its 295 tokens come back. Had they not, or had the withdrawn call
    // been charged, the next would wait about 27 s or 8.5 s for the refill.
    limiter.settle(295, 0);
    const before = Date.now();
    await limiter.acquire(280);
    expect(Date.now() - before).toBeLessThan(5_000);
  }, 30_000);

  it('continues as new after two thousand bookings without losing a call or its count', async () => {
    const limiter = limiterFor('many', 1e9);
    const other = limiterFor('many', 1e9);
    for (let batch = 0; batch < 21; batch++) await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? limiter : other).acquire(1)));
    const handle = h.client.workflow.getHandle(limiter.workflowId);
    const state = await handle.query<ProviderLimitState>(PROVIDER_LIMIT.state);
    // A run books at most two thousand: the count went on in the run it continued as.
    expect(state.granted).toBe(2_100);
  }, 120_000);

  it('serves more workers than Temporal’s default of ten updates in flight, each with calls waiting', async () => {
    const workers = Array.from({ length: 12 }, () => limiterFor('crowd', 60_000, 2)); // 1,000 tokens a second
    const started = Date.now();
    await Promise.all(workers.flatMap((w) => [w.acquire(200), w.acquire(200)]));
    // 4,800 tokens: 1,500 at once, the rest at 1,000 a second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    const state = await h.client.workflow.getHandle(workers[0]!.workflowId).query<ProviderLimitState>(PROVIDER_LIMIT.state);
    expect(state).toMatchObject({ granted: 24, waiting: 0 });
  }, 60_000);

  it('keys the limit by endpoint and account: another API key on the same URL has a quota of its own', () => {
    expect(limiterFor('one', 1_000).workflowId).not.toBe(limiterFor('two', 1_000).workflowId);
    expect(limiterFor('one', 1_000).workflowId).not.toContain('one');
  });
});

describe('workers sharing a provider limit', () => {
  it('run many runs on two workers within the endpoint’s token limit: no call refused, one at most on a loaded machine', async () => {
    const limits = { tokensPerMinute: 120_000, burstSeconds: 2 };
    const h = await startHarness({ llm: { limits, latencyMs: 50 }, rateLimits: limits, limitScope: 'shared', workers: 2 });
    try {
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          startRun(
            h.client,
            { task: 'sorting', problem: sortingTask.generateProblem(32, 70 + i), goo: sortingTask.schemes.got!({ size: 32 }), seed: 1 },
            { taskQueue: h.taskQueue },
          ).then(resultOf),
        ),
      );
      const seconds = (Date.now() - started) / 1000;
      expect(results.map((r) => r.status)).toEqual(results.map(() => 'answered'));
      const stats = h.llm.stats();
      // A grant late by more than the limit's lead under a loaded machine may meet one refusal; a limit not shared meets many.
      expect(stats.rateLimited).toBeLessThanOrEqual(1);
      // More than the burst was asked for, so the limit did hold calls back: the tokens served stay within burst + rate × time.
      expect(stats.tokensServed).toBeGreaterThan(4_000);
      expect(stats.tokensServed).toBeLessThanOrEqual(4_000 + 2_000 * seconds);
      // Every request went through the one limit, whichever worker sent it.
      const limit = h.client.workflow.getHandle(providerLimitId({ baseURL: h.llm.baseURL, apiKey: 'sim' }));
      expect((await limit.query<ProviderLimitState>(PROVIDER_LIMIT.state)).granted).toBe(stats.requests);
      // Its decisions rest on workflow time, updates, signals and timers only: the history replays as it ran.
      await Worker.runReplayHistory(
        { workflowBundle: await bundleGotWorkflows(), replayName: 'provider-limit' },
        await limit.fetchHistory(),
        limit.workflowId,
      );
    } finally {
      await h.close();
    }
  }, 120_000);
});
