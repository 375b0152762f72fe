import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { RateLimiter } from '../src/llm/rate-limit';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

const cacheDir = mkdtempSync(join(tmpdir(), 'got-shared-cache-'));
let a: Harness;
let b: Harness;

beforeAll(async () => {
  // Two workers (two task queues) sharing one cache folder, as workers of a fleet would.
  [a, b] = await Promise.all([startHarness({ cacheDir }), startHarness({ cacheDir })]);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

const request = (o: { cache: boolean; seed?: number; sample?: number }): RunRequestInput => ({
  task: 'sorting',
  problem: sortingTask.generateProblem(32, o.sample ?? 4),
  goo: sortingTask.schemes.got!({ size: 32 }),
  llm: { cache: o.cache },
  seed: o.seed ?? 1,
});
const run = async (h: Harness, r: RunRequestInput): Promise<RunResult> => resultOf(await startRun(h.client, r, { taskQueue: h.taskQueue }));
const files = () => readdirSync(cacheDir, { recursive: true }).filter((f) => String(f).endsWith('.json')).length;

describe('the response cache', () => {
  it('makes a rerun of the same request cost zero tokens, marks its calls cached, and gives the same answer', async () => {
    const first = await run(a, request({ cache: true }));
    expect(first.grs.totals.promptTokens).toBeGreaterThan(0);
    expect(first.grs.calls.every((c) => !c.cached)).toBe(true);
    expect(files()).toBe(first.grs.calls.length);

    a.llm.resetStats();
    const again = await run(a, request({ cache: true }));
    expect(a.llm.stats().requests).toBe(0);
    expect(again.grs.totals).toMatchObject({ promptTokens: 0, completionTokens: 0, costUsd: 0, llmCalls: first.grs.calls.length });
    expect(again.grs.calls.every((c) => c.cached === true)).toBe(true);
    expect(again.best!.state).toEqual(first.best!.state);
    // Thoughts are listed in the order their calls finished; compare them by id.
    const byId = (r: RunResult) => r.grs.thoughts.map((t) => [t.id, t.state] as const).sort(([x], [y]) => (x < y ? -1 : 1));
    expect(byId(again)).toEqual(byId(first));
  });

  it('keeps k samples k different samples (the key carries the branch, not only the prompt)', async () => {
    const result = await run(a, request({ cache: true, sample: 9 }));
    const sorts = result.grs.thoughts.filter((t) => t.operationId.startsWith('sort'));
    expect(sorts).toHaveLength(10);
    // Five samples of one prompt are not one cached answer repeated.
    const firstPart = sorts.filter((t) => t.parents[0] === sorts[0]!.parents[0]).map((t) => JSON.stringify(t.state.list));
    expect(new Set(firstPart).size).toBeGreaterThan(1);
  });

  it('misses for another seed, and is not used by runs that do not ask for it', async () => {
    a.llm.resetStats();
    const otherSeed = await run(a, request({ cache: true, seed: 2 }));
    expect(otherSeed.grs.calls.some((c) => c.cached)).toBe(false);
    const off = await run(a, request({ cache: false }));
    expect(off.grs.calls.some((c) => c.cached)).toBe(false);
    expect(off.grs.totals.promptTokens).toBeGreaterThan(0);
    expect(a.llm.stats().requests).toBe(otherSeed.grs.calls.length + off.grs.calls.length);
  });

  it('is shared safely by workers running the same request at once', async () => {
    const r = request({ cache: true, sample: 21 });
    const [x, y] = await Promise.all([run(a, r), run(b, r)]);
    expect(x.best!.state).toEqual(y.best!.state);
    b.llm.resetStats();
    const z = await run(b, r);
    expect(b.llm.stats().requests).toBe(0);
    expect(z.grs.totals.costUsd).toBe(0);
  });
});

describe('rate limits', () => {
  it('spread requests to the configured rate instead of bursting past it', async () => {
    // 600 requests per minute with a 1 s burst: 10 at once, then 10 per second.
    const limiter = new RateLimiter({ requestsPerMinute: 600, burstSeconds: 1 });
    const started = Date.now();
    const times: number[] = [];
    await Promise.all(Array.from({ length: 30 }, () => limiter.acquire(0).then(() => times.push(Date.now() - started))));
    expect(times.filter((t) => t < 100)).toHaveLength(10);
    expect(Math.max(...times)).toBeGreaterThanOrEqual(1_800);
    expect(Math.max(...times)).toBeLessThan(4_000);
  });

  it('count tokens: a call waits until its estimated tokens fit, and settles with the real usage', async () => {
    const limiter = new RateLimiter({ tokensPerMinute: 60_000, burstSeconds: 1 }); // 1,000 tokens/s, burst 1,000
    const started = Date.now();
    await limiter.acquire(900);
    await limiter.acquire(900); // needs 800 more tokens: about 0.8 s
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    limiter.settle(900, 100); // the call used far less: the 800 tokens come back
    const before = Date.now();
    await limiter.acquire(800);
    expect(Date.now() - before).toBeLessThan(150);
  });

  it('keep a worker under its quota end to end', async () => {
    const h = await startHarness({ rateLimits: { requestsPerMinute: 300, burstSeconds: 1 } });
    try {
      const started = Date.now();
      // 12 io runs at once: 12 requests; 5 may go at once, the rest at 5 per second.
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          startRun(
            h.client,
            { ...request({ cache: false, sample: 40 + i }), goo: sortingTask.schemes.io!({ size: 32 }) },
            { taskQueue: h.taskQueue },
          ).then(resultOf),
        ),
      );
      expect(h.llm.stats().requests).toBe(12);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
    } finally {
      await h.close();
    }
  });
});
