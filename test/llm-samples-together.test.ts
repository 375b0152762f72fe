import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmClient } from '../src/llm/client';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortPrompt } from '../src/tasks/sorting/prompts';

/**
 * Samples asked one per request (an endpoint without `n`, or fan-out perSample) go as that many
 * requests at once: the call takes one latency, not k, and no request outlives the call.
 */
const LATENCY_MS = 300;
let sim: SimulatedLlm;
beforeAll(async () => {
  sim = await startSimulatedLlm({ latencyMs: LATENCY_MS });
});
afterAll(async () => sim?.close());

const ask = (client: LlmClient, samples: number, extra: { oneSamplePerRequest?: boolean } = {}) =>
  client.complete({
    model: 'sim-got-1',
    messages: [{ role: 'user', content: sortPrompt([5, 3, 9, 1]) }],
    samples,
    temperature: 1,
    seed: 40,
    ...extra,
  });

describe('samples one per request', () => {
  it('sends k requests together to an endpoint without n, seeds in order, each answering one sample', async () => {
    sim.resetStats();
    const completion = await ask(new LlmClient({ baseURL: sim.baseURL, apiKey: 'x', supportsN: false }), 5);
    const log = sim.requestLog();
    expect(completion.texts).toHaveLength(5);
    expect(completion.requests).toBe(5);
    expect(log.map((r) => r.seed)).toEqual([40, 41, 42, 43, 44]);
    // Together: every request arrived before the first was answered.
    const firstEnd = Math.min(...log.map((r) => r.endedAt!));
    expect(log.every((r) => r.at < firstEnd)).toBe(true);
    expect(sim.stats().maxInFlight).toBe(5);
    expect(completion.usage.completionTokens).toBeGreaterThan(0);
  });

  it('asks that way when the call says so, though the endpoint serves n', async () => {
    sim.resetStats();
    const completion = await ask(new LlmClient({ baseURL: sim.baseURL, apiKey: 'x', supportsN: true }), 3, { oneSamplePerRequest: true });
    expect(completion.texts).toHaveLength(3);
    expect(sim.stats()).toMatchObject({ requests: 3, completions: 3, maxInFlight: 3 });
    // Without it, one request with n = 3.
    sim.resetStats();
    await ask(new LlmClient({ baseURL: sim.baseURL, apiKey: 'x', supportsN: true }), 3);
    expect(sim.stats()).toMatchObject({ requests: 1, completions: 3 });
  });

  it('fails the call when one request fails, but only once every request of it has ended', async () => {
    sim.resetStats();
    sim.injectFaults(['pass', { status: 500, message: 'upstream broke' }, 'pass']);
    const client = new LlmClient({ baseURL: sim.baseURL, apiKey: 'x', supportsN: false });
    await expect(ask(client, 3)).rejects.toThrow(/500|upstream broke/);
    const failedAt = Date.now();
    const log = sim.requestLog();
    expect(log).toHaveLength(3);
    // The failed request ends at once; the call still waited for the two answered ones.
    expect(log.filter((r) => r.outcome === 'answered')).toHaveLength(2);
    expect(log.every((r) => r.endedAt !== undefined && r.endedAt <= failedAt)).toBe(true);
  });
});

describe('one signal shared by the requests of a call', () => {
  it("gives no listener-leak warning for 20 samples sent as 20 requests on the activity's one cancellation signal", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      const client = new LlmClient({ baseURL: sim.baseURL, apiKey: 'x', supportsN: false });
      const completion = await client.complete({
        model: 'sim-got-1',
        messages: [{ role: 'user', content: sortPrompt([5, 3, 9, 1]) }],
        samples: 20,
        temperature: 1,
        seed: 1,
        signal,
      });
      expect(completion.texts).toHaveLength(20);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
