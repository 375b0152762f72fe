import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor, formatDoctor } from '../src/cli/commands/doctor';
import { resultOf, startRun } from '../src/client/runs';
import { LlmClient } from '../src/llm/client';
import { DEFAULT_AZURE_API_VERSION, endpointFromEnv } from '../src/llm/endpoint';
import { classifyLlmError } from '../src/llm/errors';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { startSimulatedLlm } from '../src/simllm/server';
import { TASKS } from '../src/tasks/registry';
import { sortingTask } from '../src/tasks/sorting';
import { sortPrompt } from '../src/tasks/sorting/prompts';
import { type Harness, startHarness } from './support/harness';
import { type ProviderProxy, type ProviderQuirks, startProviderProxy } from './support/provider-proxy';

/**
 * Endpoints as they really are: a provider-shaped proxy in front of the simulator refuses
 * `max_tokens`, a non-default temperature or `n > 1`, drops `usage`, or wraps answers in reasoning.
 * The engine adapts once per model and the run ends as an undisturbed one does.
 */
const request = (llm: RunRequestInput['llm'] = {}): RunRequestInput => {
  const problem = sortingTask.generateProblem(32, 7);
  return {
    task: 'sorting',
    problem,
    goo: sortingTask.schemes.got!({ size: 32, problem }),
    seed: 4,
    llm: { maxTokens: 2000, temperature: 0.7, ...llm },
    labels: { scheme: 'got', size: 32, sample: 7 },
  };
};

let direct: Harness;
let clean: RunResult;
beforeAll(async () => {
  direct = await startHarness({ llm: { seed: 2 } });
  clean = await resultOf(await startRun(direct.client, request(), { taskQueue: direct.taskQueue }));
});
afterAll(async () => direct?.close());

async function throughProxy(
  quirks: ProviderQuirks,
  run: RunRequestInput = request(),
): Promise<{ result: RunResult; proxy: ProviderProxy }> {
  let upstream = '';
  const proxy = await startProviderProxy(() => upstream, quirks);
  const h = await startHarness({
    llm: { seed: 2 },
    endpoint: (sim) => {
      upstream = sim;
      return proxy.baseURL;
    },
  });
  try {
    return { result: await resultOf(await startRun(h.client, run, { taskQueue: h.taskQueue })), proxy };
  } finally {
    await h.close();
    await proxy.close();
  }
}

const answerOf = (r: RunResult) => ({ id: r.best?.id, score: r.best?.score, state: r.best?.state });

describe('a provider that refuses parameters', () => {
  it('sends max_completion_tokens after its first refusal of max_tokens, once for the whole run', async () => {
    const { result, proxy } = await throughProxy({ refuseMaxTokens: true });
    expect(proxy.refused).toEqual(['max_tokens']);
    expect(proxy.bodies.slice(1).every((b) => b.max_completion_tokens === 2000 && !('max_tokens' in b))).toBe(true);
    expect(answerOf(result)).toEqual(answerOf(clean));
  });

  it('sends no temperature to a model that takes only its default', async () => {
    const { result, proxy } = await throughProxy({ refuseTemperature: true });
    expect(proxy.refused).toEqual(['temperature']);
    expect(proxy.bodies.slice(1).every((b) => !('temperature' in b))).toBe(true);
    expect(result.status).toBe('answered');
    expect(result.best?.valid).toBe(true);
  });

  it('asks one sample per request when n > 1 is refused, and still gets every sample', async () => {
    const { result, proxy } = await throughProxy({ refuseN: true });
    // The two part sorts ask at the same moment, so both may be refused before the client adapts; none after.
    expect(new Set(proxy.refused)).toEqual(new Set(['n']));
    expect(proxy.refused.length).toBeLessThanOrEqual(2);
    const firstSingle = proxy.bodies.findIndex((b) => b.n === undefined);
    expect(proxy.bodies.slice(firstSingle).every((b) => b.n === undefined || b.n === 1)).toBe(true);
    // The same thoughts as without the refusal: every call has all its samples.
    expect(result.grs.thoughts.length).toBe(clean.grs.thoughts.length);
    expect(result.status).toBe('answered');
    expect(result.best!.score!).toBeLessThanOrEqual(clean.best!.score! + 2);
  });
});

describe('a provider that reports no usage', () => {
  it('counts the tokens itself, marks them estimated, and budgets still stop the run', async () => {
    const { result } = await throughProxy({ dropUsage: true });
    expect(result.grs.calls.every((c) => c.usage.estimated === true && c.usage.promptTokens > 0 && c.usage.completionTokens > 0)).toBe(
      true,
    );
    const ratio =
      (result.grs.totals.promptTokens + result.grs.totals.completionTokens) /
      (clean.grs.totals.promptTokens + clean.grs.totals.completionTokens);
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.25);
    expect(result.grs.totals.costUsd).toBeGreaterThan(0);
  });

  it('stops scheduling calls once the estimated tokens reach the budget', async () => {
    const { result } = await throughProxy({ dropUsage: true }, { ...request(), budget: { maxTokens: 1500 } });
    expect(result.grs.budgetExhausted).toBe(true);
    expect(result.grs.calls.length).toBeLessThan(clean.grs.calls.length);
  });
});

describe('a reasoning model', () => {
  it.each([
    ['<think> blocks in the answer', { thinkBlocks: true }],
    ['a separate reasoning field', { reasoningField: true }],
  ] as const)('parses the answer without the reasoning (%s) and keeps the reasoning in the GRS', async (_, quirks) => {
    const { result } = await throughProxy(quirks);
    expect(answerOf(result)).toEqual(answerOf(clean));
    const made = result.grs.thoughts.filter((t) => t.callId);
    expect(made.length).toBeGreaterThan(0);
    expect(made.every((t) => t.reasoning?.includes('check every element twice'))).toBe(true);
  });
});

describe('got doctor', () => {
  it('reports what an endpoint supports and the settings the engine will use with it', async () => {
    const sim = await startSimulatedLlm({});
    const plain = await doctor({ baseURL: sim.baseURL, apiKey: 'x', supportsN: true }, 'sim', 'sim-got-1');
    expect(plain).toMatchObject({
      ok: true,
      honoursN: true,
      usageReported: true,
      reasoning: false,
      settings: { maxTokensField: 'max_tokens', temperature: 'as asked', samplesPerRequest: 'n' },
    });
    const proxy = await startProviderProxy(sim.baseURL, { refuseN: true, refuseMaxTokens: true, dropUsage: true, thinkBlocks: true });
    try {
      const quirky = await doctor({ baseURL: proxy.baseURL, apiKey: 'x', supportsN: true }, 'endpoint', 'sim-got-1');
      expect(quirky).toMatchObject({
        ok: true,
        honoursN: false,
        usageReported: false,
        reasoning: true,
        settings: { maxTokensField: 'max_completion_tokens', samplesPerRequest: 'one' },
      });
      expect(formatDoctor(quirky)).toMatch(/usage\s+missing/);
      const broken = await doctor({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x', supportsN: true }, 'endpoint', 'm');
      expect(broken.ok).toBe(false);
      expect(formatDoctor(broken)).toMatch(/NOT USABLE/);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });
});

describe('Azure OpenAI', () => {
  it('calls the deployment with the api-version and an api-key header, configured from the environment', async () => {
    const sim = await startSimulatedLlm({});
    const seen: { url: string; apiKey?: string; authorization?: string }[] = [];
    // Answers only as Azure is addressed: /openai/deployments/<deployment>/chat/completions?api-version=...
    const azure = createServer((req, res) => {
      seen.push({ url: req.url!, apiKey: req.headers['api-key'] as string | undefined, authorization: req.headers.authorization });
      if (!/^\/openai\/deployments\/[^/]+\/chat\/completions\?api-version=/.test(req.url!)) {
        res.writeHead(404).end('{"error":{"message":"Resource not found"}}');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void fetch(`${sim.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        }).then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()));
      });
    });
    await new Promise<void>((resolve) => azure.listen(0, '127.0.0.1', resolve));
    const { port } = azure.address() as AddressInfo;
    try {
      const endpoint = endpointFromEnv({ AZURE_OPENAI_ENDPOINT: `http://127.0.0.1:${port}`, AZURE_OPENAI_API_KEY: 'azure-key-123' });
      expect(endpoint?.azure).toEqual({ apiVersion: DEFAULT_AZURE_API_VERSION });
      const completion = await new LlmClient(endpoint!).complete({
        model: 'my-gpt-deployment',
        messages: [{ role: 'user', content: sortPrompt([3, 1, 2]) }],
        samples: 2,
        temperature: 1,
        seed: 1,
      });
      expect(completion.texts).toHaveLength(2);
      expect(seen).toEqual([
        {
          url: `/openai/deployments/my-gpt-deployment/chat/completions?api-version=${DEFAULT_AZURE_API_VERSION}`,
          apiKey: 'azure-key-123',
          authorization: undefined,
        },
      ]);
      // Without Azure's variables, OPENAI_BASE_URL configures a plain endpoint; without either, none.
      expect(endpointFromEnv({ OPENAI_BASE_URL: 'http://x/v1', OPENAI_API_KEY: 'k' })).toEqual({
        baseURL: 'http://x/v1',
        apiKey: 'k',
        supportsN: true,
      });
      expect(endpointFromEnv({})).toBeUndefined();
    } finally {
      await new Promise((resolve) => azure.close(resolve));
      await sim.close();
    }
  });
});

describe('a streamed answer that stops arriving', () => {
  it('is given up as stalled after stallMs of silence, a fault that is retried', async () => {
    let hungUp = false;
    // One chunk of the answer, then silence (a server stuck mid-generation).
    const stuck = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: '[1,' }, finish_reason: null }] })}\n\n`,
      );
      res.on('close', () => {
        hungUp = true;
      });
    });
    await new Promise<void>((resolve) => stuck.listen(0, '127.0.0.1', resolve));
    const { port } = stuck.address() as AddressInfo;
    try {
      const client = new LlmClient({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x', supportsN: true, stream: true });
      const received: number[] = [];
      const error = await client
        .complete({
          model: 'm',
          messages: [{ role: 'user', content: 'sort' }],
          samples: 1,
          temperature: 1,
          seed: 1,
          stallMs: 300,
          onTokens: (n) => received.push(n),
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(received).toEqual([1]);
      expect(classifyLlmError(error, 'http://stuck')).toMatchObject({
        retryable: true,
        kind: 'timeout',
        message: expect.stringMatching(/stalled: the stream sent nothing for 0 s after 1 tokens/),
      });
      // The abandoned request is closed, so the server can stop generating for it.
      await expect.poll(() => hungUp).toBe(true);
    } finally {
      stuck.closeAllConnections();
      await new Promise((resolve) => stuck.close(resolve));
    }
  });
});

describe('a provider with every quirk at once', () => {
  it('merges documents with GoT to the same quality as the undisturbed endpoint, tokens counted', async () => {
    const docMerge = TASKS['doc-merge']!;
    const problem = docMerge.generateProblem(4, 2);
    const merge: RunRequestInput = {
      task: 'doc-merge',
      problem: problem as RunRequestInput['problem'],
      goo: docMerge.schemes.got!({ size: 4, problem }),
      seed: 2,
      llm: { maxTokens: 4000, temperature: 0.8 },
      labels: { scheme: 'got' },
    };
    const undisturbed = await resultOf(await startRun(direct.client, merge, { taskQueue: direct.taskQueue }));
    const { result, proxy } = await throughProxy(
      { refuseN: true, refuseMaxTokens: true, refuseTemperature: true, dropUsage: true, thinkBlocks: true },
      merge,
    );
    expect(new Set(proxy.refused)).toEqual(new Set(['n', 'max_tokens', 'temperature']));
    expect(result.status).toBe('answered');
    expect(result.grs.calls.every((c) => c.usage.estimated && c.usage.promptTokens > 0 && c.usage.completionTokens > 0)).toBe(true);
    // The judge's harmonic mean (0–10, higher is better), from other samples (one per request):
    // within a tenth of the undisturbed run's.
    expect(Math.abs(result.best!.score! - undisturbed.best!.score!)).toBeLessThan(undisturbed.best!.score! * 0.1);
  });
});
