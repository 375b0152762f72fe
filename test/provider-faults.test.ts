/**
 * A busy provider as users meet it (decision 90): an endpoint that serves one choice per request
 * (it refuses `n > 1`) and refuses a share of requests with 429 (Retry-After) and 5xx. A refused
 * request is sent again on its own inside its call, the samples already answered are kept, nothing
 * refused is paid for, and a run fails on refusals only once a request has been refused for
 * `llm.giveUpSeconds` straight, saying what was refused.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { LlmClient } from '../src/llm/client';
import { ProviderGaveUpError } from '../src/llm/patience';
import type { RunRequestInput } from '../src/run/request';
import { FAILURE } from '../src/run/wire';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import { sortPrompt } from '../src/tasks/sorting/prompts';
import { failureOf, graphFacts } from './support/faults';
import { type Harness, startHarness } from './support/harness';

const BUSY = { rateLimited: 0.1, serverError: 0.05 };

function sortingRun(size: number, llm: RunRequestInput['llm'] = {}): RunRequestInput {
  return {
    task: 'sorting',
    problem: sortingTask.generateProblem(size, 4),
    goo: sortingTask.schemes.got!({ size }),
    llm,
    seed: 5,
    labels: { scheme: 'got', size },
  };
}

describe('one request of a call refused, as the LLM client sees it', () => {
  let sim: SimulatedLlm;
  let client: LlmClient;
  const ask = () =>
    client.complete({
      model: 'sim',
      messages: [{ role: 'user', content: sortPrompt([5, 3, 9, 1]) }],
      samples: 5,
      temperature: 1,
      seed: 7,
      patience: { giveUpAfterMs: 10_000 },
    });

  beforeAll(async () => {
    sim = await startSimulatedLlm({ seed: 2, maxChoices: 1 });
  });
  afterAll(async () => sim?.close());
  beforeEach(() => {
    sim.clearFaults();
    sim.resetStats();
    client = new LlmClient({ baseURL: sim.baseURL, apiKey: 'sim', supportsN: false });
  });

  it('sends the refused request again on its own and keeps the others: the answers and tokens of a clean call', async () => {
    const clean = await ask();
    expect(sim.stats().requests).toBe(5);
    sim.resetStats();
    sim.injectFaults(['pass', 'pass', { status: 429, retryAfterSeconds: 0.3 }, 'pass', { status: 502 }]);
    const busy = await ask();
    expect(busy.texts).toEqual(clean.texts);
    expect(busy.usage).toEqual(clean.usage);
    // Two refusals, two more requests; the three answered at once were not asked again.
    expect(sim.stats()).toMatchObject({ requests: 7, completions: 5, faults: { '429': 1, '502': 1 } });
    expect(busy.refusals).toMatchObject({ requests: 2, byKind: { '429': 1, '502': 1 } });
    expect(busy.refusals!.waitedMs).toBeGreaterThanOrEqual(300);
  });

  it('gives up on a request refused for the whole give-up time, with what it was refused', async () => {
    sim.setFaultRates({ rateLimited: 1 }, 1, { retryAfterSeconds: 0.2 });
    const started = Date.now();
    const error = await client
      .complete({
        model: 'sim',
        messages: [{ role: 'user', content: sortPrompt([2, 1]) }],
        samples: 1,
        temperature: 1,
        seed: 1,
        patience: { giveUpAfterMs: 700 },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderGaveUpError);
    expect((error as Error).message).toMatch(/refused or failed for 0\.7 s without a break.*refused \d+ times \(\d+ × 429\)/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect(sim.stats().completions).toBe(0);
  });
});

describe('GoT runs on a one-choice endpoint that refuses 10% with 429 and 5% with 5xx', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ llm: { latencyMs: 10, seed: 3, maxChoices: 1 } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => {
    h.llm.clearFaults();
    h.llm.resetStats();
  });
  const run = async (request: RunRequestInput) => resultOf(await startRun(h.client, request, { taskQueue: h.taskQueue }));
  const answered = () => h.llm.requestLog().filter((r) => r.outcome === 'answered').length;

  it("completes sorting-128 with a clean run's answer and tokens, each refusal one request more, none paid", async () => {
    const clean = await run(sortingRun(128));
    const cleanRequests = h.llm.stats().requests;
    const cleanAnswered = answered();
    h.llm.resetStats();
    h.llm.setFaultRates(BUSY, 17, { retryAfterSeconds: [0.2, 0.5] });
    const busy = await run(sortingRun(128));
    const stats = h.llm.stats();
    const refusals = Object.values(stats.faults).reduce((a, b) => a + b, 0);
    console.info(`one-choice endpoint, ${JSON.stringify(stats.faults)}: ${stats.requests} requests against ${cleanRequests} clean`);

    expect(busy.best).toMatchObject({ id: clean.best!.id, score: clean.best!.score, state: clean.best!.state });
    expect(graphFacts(busy.grs)).toEqual(graphFacts(clean.grs));
    // Paid for what was answered, exactly as the clean run: refused requests cost nothing.
    expect(busy.grs.totals).toMatchObject({
      promptTokens: clean.grs.totals.promptTokens,
      completionTokens: clean.grs.totals.completionTokens,
    });
    // Summed in the order calls finished, which differs: equal up to rounding.
    expect(busy.grs.totals.costUsd).toBeCloseTo(clean.grs.totals.costUsd, 9);
    expect(answered()).toBe(cleanAnswered);
    expect(refusals).toBeGreaterThan(5);
    // Every refusal is in the GRS, and none cost an attempt of its call.
    expect(busy.grs.calls.reduce((sum, c) => sum + (c.refused?.requests ?? 0), 0)).toBe(refusals);
    expect(busy.grs.calls.every((c) => c.attempt === 1)).toBe(true);
    expect(stats.requests).toBeLessThanOrEqual(cleanRequests * 1.25);
  });

  it('fails a run only when requests were refused for llm.giveUpSeconds straight, saying what was refused', async () => {
    h.llm.setFaultRates({ rateLimited: 1 }, 1, { retryAfterSeconds: 0.3 });
    const started = Date.now();
    const handle = await startRun(h.client, sortingRun(32, { giveUpSeconds: 2 }), { taskQueue: h.taskQueue });
    const failure = await failureOf(handle);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(failure.type).toBe(FAILURE.runFailed);
    expect(failure.message).toMatch(/run failed in operation split: gave up on http:.*refused or failed for 2 s without a break.*× 429/);
    expect(h.llm.stats().completions).toBe(0);
  });
});

/** An endpoint that streams its answer one piece every `everyMs`: slow, never silent for long. */
async function slowStreamer(pieces: string[], everyMs: number): Promise<{ server: Server; baseURL: string; requests: () => number }> {
  let requests = 0;
  const chunk = (choices: unknown[], extra = {}) =>
    `data: ${JSON.stringify({ id: 'slow', object: 'chat.completion.chunk', created: 0, model: 'slow', choices, ...extra })}\n\n`;
  const server = createServer(async (req, res) => {
    req.resume();
    requests++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of pieces) {
      if (res.destroyed) return;
      res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
      await new Promise((r) => setTimeout(r, everyMs));
    }
    res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
    res.write(chunk([], { usage: { prompt_tokens: 20, completion_tokens: pieces.length, total_tokens: 20 + pieces.length } }));
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => requests };
}

describe('a slow answer that keeps coming', () => {
  let h: Harness;
  let slow: Awaited<ReturnType<typeof slowStreamer>>;
  beforeAll(async () => {
    // 16 pieces, 0.25 s apart: 4 s of answer, four times the call's timeout, never silent for its stall time.
    slow = await slowStreamer(['[', ...'1, 2, 3, 4, 5, 6, 7'.split(' ').map((p) => `${p} `), '8]'].concat(Array(6).fill(' ')), 250);
    h = await startHarness({ stream: true, endpoint: () => slow.baseURL });
  });
  afterAll(async () => {
    await h?.close();
    slow?.server.closeAllConnections();
    await new Promise((r) => slow?.server.close(r));
  });

  it('is not cut by the call timeout: one request, one attempt, the answer whole', async () => {
    const list = [8, 3, 5, 1, 7, 2, 6, 4];
    const result = await resultOf(
      await startRun(
        h.client,
        {
          task: 'sorting',
          problem: { list },
          goo: sortingTask.schemes.io!({ size: list.length }),
          llm: { timeoutSeconds: 1, stallSeconds: 2, heartbeatSeconds: 10 },
        },
        { taskQueue: h.taskQueue },
      ),
    );
    expect(slow.requests()).toBe(1);
    expect(result.grs.calls).toHaveLength(1);
    expect(result.grs.calls[0]).toMatchObject({ attempt: 1 });
    expect(result.grs.calls[0]!.refused).toBeUndefined();
    expect(result.grs.calls[0]!.latencyMs).toBeGreaterThan(3_500);
    expect(result.best!.state.list).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
