/**
 * LLM faults, injected by the simulated LLM, end to end: through `LlmClient` and the error
 * classification, and through whole runs on the real Temporal server. Retryable faults are retried
 * within the bounded policy and change nothing about the result; rejections fail the run at once,
 * naming the cause and the endpoint; unusable answers become invalid thoughts the graph routes around.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { LlmClient } from '../src/llm/client';
import { classifyLlmError, type LlmFault } from '../src/llm/errors';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { FAILURE, QUERY } from '../src/run/wire';
import { NON_ANSWER, type SimFault } from '../src/simllm/faults';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import { sortPrompt } from '../src/tasks/sorting/prompts';
import { eventually, failureOf, graphFacts, retryGap } from './support/faults';
import { type Harness, startHarness } from './support/harness';

/** Per-request timeout of the runs here: a slow answer beyond it is given up and its request sent again. */
const TIMEOUT_SECONDS = 2;
const SENTINEL = sortingTask.noAnswerScore;

function sortingRun(scheme: 'io' | 'got', size: number, sample = 3): RunRequestInput {
  return {
    task: 'sorting',
    problem: sortingTask.generateProblem(size, sample),
    goo: sortingTask.schemes[scheme]!({ size }),
    // The heartbeat timeout stays above the activity's 5 s heartbeat interval; the call timeout is what a slow answer hits.
    llm: { timeoutSeconds: TIMEOUT_SECONDS, heartbeatSeconds: 10 },
    seed: 11,
    labels: { scheme, size, sample },
  };
}

describe('the simulated faults as the LLM client sees them', () => {
  let sim: SimulatedLlm;
  let client: LlmClient;
  const ask = (signal?: AbortSignal) =>
    client.complete({
      model: 'sim-got-1',
      messages: [{ role: 'user', content: sortPrompt([5, 3, 9, 1, 1, 8, 0, 2]) }],
      samples: 3,
      temperature: 1,
      seed: 4,
      ...(signal ? { signal } : {}),
    });
  const classified = async (fault: SimFault, signal?: AbortSignal): Promise<LlmFault> => {
    sim.injectFaults([fault]);
    const error = await ask(signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, `${JSON.stringify(fault)} should fail the call`).toBeDefined();
    return classifyLlmError(error, sim.baseURL);
  };

  beforeAll(async () => {
    sim = await startSimulatedLlm({ seed: 2 });
    client = new LlmClient({ baseURL: sim.baseURL, apiKey: 'sim', supportsN: true });
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.clearFaults();
    sim.resetStats();
  });

  it.each([
    [{ status: 429, retryAfterSeconds: 3 }, 'rate-limited', 3000],
    [{ status: 500 }, 'server-error', undefined],
    [{ status: 502 }, 'server-error', undefined],
    [{ status: 503, retryAfterSeconds: 2 }, 'server-error', 2000],
    [{ kind: 'reset' }, 'connection', undefined],
    [{ kind: 'garbage' }, 'malformed', undefined],
    [{ kind: 'garbage', body: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' }, 'malformed', undefined],
  ] as [SimFault, string, number | undefined][])('%j is retryable (%s), and answers nothing', async (fault, kind, retryAfterMs) => {
    const f = await classified(fault);
    expect(f).toMatchObject({ retryable: true, kind });
    expect(f.retryable && f.retryAfterMs).toBe(retryAfterMs ?? undefined);
    expect(f.message).toContain(sim.baseURL);
    expect(sim.stats()).toMatchObject({ requests: 1, completions: 0 });
    expect(Object.values(sim.stats().faults)).toEqual([1]);
  });

  it.each([
    [401, 'API key rejected by'],
    [403, 'access forbidden (API key lacks permission) by'],
    [404, 'model or endpoint not found by'],
    [400, 'request rejected as invalid by'],
  ])('%i is not retryable, and the message names the cause and the endpoint', async (status, cause) => {
    const f = await classified({ status });
    expect(f).toMatchObject({ retryable: false, kind: 'rejected', status });
    // openai's "401 Incorrect API key..." loses its status prefix: the status is named once, after the endpoint.
    expect(f.message).toMatch(
      new RegExp(`^${cause.replace(/[()]/g, '\\$&')} http://127\\.0\\.0\\.1:${sim.port}/v1 \\(${status}\\): [A-Z]`),
    );
  });

  it('gives up a slow answer when the caller aborts, and the server counts nothing answered', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const f = await classified({ kind: 'slow', delayMs: 20_000 }, controller.signal);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(f.retryable).toBe(true);
    await eventually('the slow request to be abandoned', () => sim.requestLog()[0]?.outcome === 'abandoned');
    expect(sim.stats()).toMatchObject({ completions: 0, faults: { slow: 1 }, inFlight: 0 });
  });

  it('answers a slow request after its delay when the client waits', async () => {
    sim.injectFaults([{ kind: 'slow', delayMs: 400 }]);
    const started = Date.now();
    const completion = await ask();
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(completion.texts).toHaveLength(3);
    expect(sim.stats()).toMatchObject({ completions: 3, faults: { slow: 1 } });
  });

  it.each([
    ['empty', { kind: 'empty', choice: 1 }, '', 'stop'],
    ['truncated', { kind: 'truncated', choice: 1 }, /^\[[\d, ]+$/, 'length'],
    ['unparseable', { kind: 'unparseable', choice: 1 }, NON_ANSWER, 'stop'],
    ['contentFilter', { kind: 'contentFilter', choice: 1 }, '', 'content_filter'],
  ] as [string, SimFault, string | RegExp, string][])(
    '%s replaces one answer of a served completion',
    async (label, fault, text, finishReason) => {
      const clean = await ask();
      sim.injectFaults([fault]);
      const faulted = await ask();
      // Only choice 1 differs; the request was served and its choices count as answered.
      expect(faulted.texts[0]).toBe(clean.texts[0]);
      expect(faulted.texts[2]).toBe(clean.texts[2]);
      expect(faulted.texts[1]).toMatch(typeof text === 'string' ? new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\']/g, '\\$&')}$`) : text);
      expect(faulted.finishReasons).toEqual(['stop', finishReason, 'stop']);
      expect(sim.stats()).toMatchObject({ requests: 2, completions: 6, faults: { [label]: 1 } });
    },
  );

  it('draws random faults from its own seeded stream: the same seed, the same faults', async () => {
    const labels = async (seed: number) => {
      sim.resetStats();
      sim.setFaultRates({ rateLimited: 0.2, serverError: 0.2, garbage: 0.1, empty: 0.1 }, seed);
      for (let i = 0; i < 30; i++) await ask().catch(() => undefined);
      sim.clearFaults();
      return sim.requestLog().map((r) => r.fault ?? '.');
    };
    const first = await labels(5);
    expect(await labels(5)).toEqual(first);
    expect(await labels(6)).not.toEqual(first);
    expect(first.filter((l) => l !== '.').length).toBeGreaterThan(5);
    expect(first.filter((l) => l === '.').length).toBeGreaterThan(5);
    expect(() => sim.setFaultRates({ rateLimited: 0.7, reset: 0.5 })).toThrow(/sum to 1\.2/);
    expect(() => sim.injectFaults([{ status: 200 }])).toThrow(/HTTP error status/);
  });
});

describe('runs on Temporal against a faulty endpoint', () => {
  let h: Harness;
  /** GoT-32 without faults: the split is its first request, alone, so a fault injected first hits it. */
  let clean: RunResult;
  let cleanCompletions: number;

  const run = async (request: RunRequestInput) => resultOf(await startRun(h.client, request, { taskQueue: h.taskQueue }));
  const splitCall = (result: RunResult) => result.grs.calls.find((c) => c.operationId === 'split')!;

  beforeAll(async () => {
    h = await startHarness({ llm: { latencyMs: 20, seed: 1 } });
    h.llm.resetStats();
    clean = await run(sortingRun('got', 32));
    cleanCompletions = h.llm.stats().completions;
    expect(clean.grs.calls.every((c) => c.attempt === 1)).toBe(true);
    // The answers the answer-level faults replace (the third of either part sort) are valid without faults.
    expect(clean.grs.thoughts.filter((t) => /^sort.*\/0\.2$/.test(t.id)).map((t) => t.valid)).toEqual([true, true]);
  });
  afterAll(async () => h?.close());
  beforeEach(() => {
    h.llm.clearFaults();
    h.llm.resetStats();
  });

  /** A retried run asks the same questions and so gets the same graph, with nothing answered twice. */
  function expectSameAsClean(result: RunResult) {
    expect(graphFacts(result.grs)).toEqual(graphFacts(clean.grs));
    expect(result.best).toMatchObject({ id: clean.best!.id, score: clean.best!.score, state: clean.best!.state });
    expect(result.grs.totals).toMatchObject({
      promptTokens: clean.grs.totals.promptTokens,
      completionTokens: clean.grs.totals.completionTokens,
      llmCalls: clean.grs.totals.llmCalls,
    });
    expect(h.llm.stats().completions).toBe(cleanCompletions);
  }

  it('waits as long as a 429 Retry-After says, not the fixed backoff', async () => {
    h.llm.injectFaults([{ status: 429, retryAfterSeconds: 3 }]);
    const result = await run(sortingRun('got', 32));
    const gap = retryGap(h.llm.requestLog(), 'sorting.split', '429');
    console.info(`429 with Retry-After: 3 → the retry came ${gap} ms later`);
    expect(gap).toBeGreaterThanOrEqual(2_500);
    expect(gap).toBeLessThan(4_500);
    // Sent again inside the call (decision 90): the call's first attempt answered, the refusal and its wait recorded.
    expect(splitCall(result).attempt).toBe(1);
    expect(splitCall(result).faults).toBeUndefined();
    expect(splitCall(result).refused).toMatchObject({ requests: 1, byKind: { '429': 1 } });
    expect(splitCall(result).refused!.waitedMs).toBeGreaterThanOrEqual(3_000);
    expectSameAsClean(result);
  });

  it('falls back to the jittered backoff (0.5-1 s the first time) for a 429 without Retry-After', async () => {
    h.llm.injectFaults([{ status: 429 }]);
    const result = await run(sortingRun('got', 32));
    const gap = retryGap(h.llm.requestLog(), 'sorting.split', '429');
    expect(gap).toBeGreaterThanOrEqual(450);
    expect(gap).toBeLessThan(2_500);
    expect(splitCall(result).attempt).toBe(1);
    expect(splitCall(result).refused).toMatchObject({ requests: 1, byKind: { '429': 1 } });
  });

  it.each([
    [{ status: 500 }, '500'],
    [{ status: 502 }, '502'],
    [{ status: 503 }, '503'],
    [{ kind: 'reset' }, 'connection'],
    [{ kind: 'garbage' }, 'malformed'],
  ] as [SimFault, string][])('retries %j inside the call and completes with the fault-free result', async (fault, label) => {
    h.llm.injectFaults([fault]);
    const result = await run(sortingRun('got', 32));
    expect(h.llm.pendingFaults()).toBe(0);
    expect(Object.values(h.llm.stats().faults)).toEqual([1]);
    // The GRS records that the split's request was refused once and sent again, within its first attempt.
    expect(splitCall(result).refused).toMatchObject({ requests: 1, byKind: { [label]: 1 } });
    expect(result.grs.calls.filter((c) => c.refused)).toHaveLength(1);
    expect(result.grs.calls.every((c) => c.attempt === 1)).toBe(true);
    expectSameAsClean(result);
  });

  it('times out an answer slower than the request timeout and sends the request again', async () => {
    h.llm.injectFaults([{ kind: 'slow', delayMs: 60_000 }]);
    const result = await run(sortingRun('got', 32));
    const gap = retryGap(h.llm.requestLog(), 'sorting.split', 'slow');
    // The request is given up at its timeout, then sent again after the backoff: far sooner than the slow answer.
    expect(gap).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000);
    expect(gap).toBeLessThan(TIMEOUT_SECONDS * 1000 + 5_000);
    expect(splitCall(result).attempt).toBe(1);
    expect(splitCall(result).refused).toMatchObject({ requests: 1, byKind: { timeout: 1 } });
    expectSameAsClean(result);
    // The timed-out attempt's HTTP request is abandoned by the worker, never answered.
    const slow = await eventually(
      'the slow request to be abandoned',
      () => (h.llm.requestLog()[0]!.outcome === 'abandoned' ? h.llm.requestLog()[0] : undefined),
      { timeoutMs: 15_000 },
    );
    console.info(`slow answer: retried ${gap} ms after it was asked, its request abandoned after ${slow.endedAt! - slow.at} ms`);
    expect(h.llm.stats().completions).toBe(cleanCompletions);
  });

  it.each([
    [401, 'API key rejected by'],
    [403, 'access forbidden (API key lacks permission) by'],
    [404, 'model or endpoint not found by'],
    [400, 'request rejected as invalid by'],
  ])('fails the run at once on %i, naming the cause and the endpoint', async (status, cause) => {
    h.llm.injectFaults([{ status }]);
    const started = Date.now();
    const handle = await startRun(h.client, sortingRun('got', 32), { taskQueue: h.taskQueue });
    const failure = await failureOf(handle);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failure.type).toBe(FAILURE.runFailed);
    expect(failure.message).toContain(`run failed in operation split: ${cause} ${h.llm.baseURL} (${status})`);
    // Not retried: exactly one request reached the endpoint.
    expect(h.llm.stats()).toMatchObject({ requests: 1, completions: 0, faults: { [String(status)]: 1 } });
    const grs = await handle.query<RunResult['grs']>(QUERY.grs);
    expect(grs.operations.find((o) => o.id === 'split')).toMatchObject({
      status: 'failed',
      note: expect.stringContaining(`${cause} ${h.llm.baseURL}`),
    });
  });

  it.each([
    ['empty', /empty answer/],
    ['truncated', /no list of numbers.*truncated at max tokens/],
    ['unparseable', /no list of numbers in the answer/],
    ['contentFilter', /refused to answer \(content filter\)/],
  ] as const)('turns a %s answer into an invalid thought that KeepBest routes around', async (kind, error) => {
    // The second request is one of the two part sorts (k = 5); its third answer is replaced.
    h.llm.injectFaults(['pass', { kind, choice: 2 }]);
    const result = await run(sortingRun('got', 32));
    expect(h.llm.stats().faults).toEqual({ [kind]: 1 });
    expect(result.best).toBeDefined();
    expect(result.grs.operations.every((o) => o.status === 'done')).toBe(true);

    const cleanById = new Map(clean.grs.thoughts.map((t) => [t.id, t]));
    const hit = result.grs.thoughts.filter(
      (t) => t.operationId.startsWith('sort') && JSON.stringify(t.state) !== JSON.stringify(cleanById.get(t.id)?.state),
    );
    expect(hit).toHaveLength(1);
    const [bad] = hit;
    expect(bad!.id).toMatch(/\/0\.2$/);
    expect(bad!.valid).toBe(false);
    expect(bad!.error).toMatch(error);
    // The task's sentinel score, so it ranks last and KeepBest passes it over.
    expect(bad!.score).toBe(SENTINEL);
    const keep = result.grs.operations.find((o) => o.type === 'keepBestN' && o.inputThoughts.includes(bad!.id))!;
    expect(keep.outputThoughts).toHaveLength(1);
    expect(keep.outputThoughts).not.toContain(bad!.id);
    expect(result.grs.thoughts.find((t) => t.id === keep.outputThoughts[0])!.valid).toBe(true);
  });
});

describe('a run against an endpoint that faults at random', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ llm: { latencyMs: 20, seed: 1 } });
  });
  afterAll(async () => h?.close());

  it('completes GoT sorting-64 with the same best score and answer as a fault-free run on the same seed', async () => {
    const request = sortingRun('got', 64, 5);
    const run = async () => resultOf(await startRun(h.client, request, { taskQueue: h.taskQueue }));

    h.llm.resetStats();
    const clean = await run();
    const cleanStats = h.llm.stats();
    expect(cleanStats.faults).toEqual({});
    // The fault seed below was picked for a run of 11 requests (one per LLM call).
    expect(cleanStats.requests).toBe(11);

    h.llm.resetStats();
    // Seed 220 draws, over the run's requests: reset, slow, 429, 500, 502 and garbage among 11 good answers.
    h.llm.setFaultRates({ rateLimited: 0.1, serverError: 0.1, reset: 0.05, slow: 0.05, garbage: 0.05 }, 220, {
      retryAfterSeconds: 1,
      slowMs: 60_000,
    });
    const faulty = await run();
    h.llm.clearFaults();
    const stats = h.llm.stats();
    console.info(`random faults: ${JSON.stringify(stats.faults)} over ${stats.requests} requests`);

    expect(faulty.best!.score).toBe(clean.best!.score);
    expect(faulty.best!.state).toEqual(clean.best!.state);
    expect(graphFacts(faulty.grs)).toEqual(graphFacts(clean.grs));
    // Every kind of fault happened, each was retried, and the GRS shows which calls needed more attempts.
    const faults = Object.values(stats.faults).reduce((a, b) => a + b, 0);
    expect(faults).toBeGreaterThanOrEqual(5);
    expect(Object.keys(stats.faults)).toEqual(expect.arrayContaining(['429', 'reset', 'slow', 'garbage']));
    expect(Object.keys(stats.faults).some((k) => /^5\d\d$/.test(k))).toBe(true);
    expect(stats.requests).toBe(cleanStats.requests + faults);
    // Each refused request was sent again inside its call: no call needed a second attempt, and the GRS counts every refusal.
    expect(faulty.grs.calls.every((c) => c.attempt === 1)).toBe(true);
    const refused = faulty.grs.calls.filter((c) => c.refused);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.reduce((sum, c) => sum + c.refused!.requests, 0)).toBe(faults);
    // Nothing answered was paid twice: the same answers, the same tokens.
    expect(stats.completions).toBe(cleanStats.completions);
    expect(faulty.grs.totals).toEqual(clean.grs.totals);
  });
});
