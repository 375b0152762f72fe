import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { improveAttempt, sortingLambda, sortingResponder } from '../src/simllm/sorting';
import { type SortingState, sortingTask } from '../src/tasks/sorting';
import { lastIntegerList } from '../src/tasks/sorting/parse';
import { improvePrompt, mergePrompt, sortCotPrompt, sortPrompt, splitPrompt } from '../src/tasks/sorting/prompts';
import { errorScope } from '../src/tasks/sorting/score';
import { randomInt, seededRandom } from '../src/util/random';

const randomList = (length: number, seed: number) => {
  const random = seededRandom(seed);
  return Array.from({ length }, () => randomInt(random, 10));
};

/** Mean errorScope of parseable simulated answers; malformed ones are skipped. */
function meanError(seeds: number, makeList: (seed: number) => number[], answer: (list: number[], seed: number) => string) {
  let sum = 0;
  let parsed = 0;
  for (let seed = 0; seed < seeds; seed++) {
    const list = makeList(seed);
    const out = lastIntegerList(answer(list, seed));
    if (!out) continue;
    sum += errorScope(list, out);
    parsed++;
  }
  expect(parsed).toBeGreaterThan(seeds * 0.9);
  return sum / parsed;
}

describe('simulated sorting answers', () => {
  const answerTo = (prompt: string, seed: number) => sortingResponder(prompt)!.answer(seededRandom(seed));

  it('recognises each sorting prompt and nothing else', () => {
    const list = randomList(32, 1);
    expect(sortingResponder(sortPrompt(list))?.kind).toBe('sorting.sort');
    expect(sortingResponder(sortCotPrompt(list))?.kind).toBe('sorting.sortCot');
    expect(sortingResponder(splitPrompt(list, 2))?.kind).toBe('sorting.split');
    expect(sortingResponder(mergePrompt(list, list))?.kind).toBe('sorting.merge');
    expect(sortingResponder(improvePrompt(list, list))?.kind).toBe('sorting.improve');
    expect(sortingResponder('What is the capital of France?')).toBeUndefined();
  });

  it('lambda grows faster than the length', () => {
    expect(sortingLambda(16)).toBeCloseTo(0.6, 1);
    expect(sortingLambda(128) / sortingLambda(64)).toBeGreaterThan(2);
  });

  it('makes more mistakes on longer lists, but far fewer than the length', () => {
    const means = [16, 32, 64, 128].map((length) =>
      meanError(
        200,
        (seed) => randomList(length, seed + 1000 * length),
        (list, seed) => answerTo(sortPrompt(list), seed),
      ),
    );
    for (let i = 1; i < means.length; i++) expect(means[i]).toBeGreaterThan(means[i - 1]!);
    expect(means[0]).toBeGreaterThan(0);
    expect(means[3]).toBeLessThan(128 / 4);
  });

  it('improve reduces the errors of a bad attempt on average', () => {
    const attemptOf = (list: number[], seed: number) => {
      const attempt = [...list].sort((a, b) => a - b);
      const random = seededRandom(seed + 7);
      for (let k = 0; k < 8; k++) attempt[randomInt(random, attempt.length)] = randomInt(random, 10);
      return attempt;
    };
    const improvement = (length: number) => {
      const list = (seed: number) => randomList(length, seed);
      const before = meanError(200, list, (l, seed) => `[${attemptOf(l, seed).join(', ')}]`);
      const after = meanError(200, list, (l, seed) => answerTo(improvePrompt(l, attemptOf(l, seed)), seed));
      return after / before;
    };
    // Short lists are fixed far more reliably than long ones, but both get better on average.
    const short = improvement(16);
    const long = improvement(64);
    expect(short).toBeLessThan(0.6);
    expect(long).toBeLessThan(1);
    expect(short).toBeLessThan(long);
    // An unsorted attempt (the original itself) gets closer too.
    const original = randomList(32, 5);
    const fixed = improveAttempt(original, original, seededRandom(3));
    expect(errorScope(original, fixed)).toBeLessThan(errorScope(original, original));
  });

  it('splits into the requested number of parts', () => {
    for (const parts of [2, 4, 8]) {
      const list = randomList(64, parts);
      const state: SortingState = { unsorted: list, list };
      let answered = 0;
      for (let seed = 0; seed < 50; seed++) {
        const thoughts = sortingTask.parseResponse(
          { prompt: 'split', params: { parts }, thoughts: [state] },
          answerTo(splitPrompt(list, parts), seed),
        );
        if (!thoughts[0]!.valid) continue;
        answered++;
        expect(thoughts).toHaveLength(parts);
      }
      expect(answered).toBeGreaterThan(45);
    }
  });

  it('merges the two lists of the prompt', () => {
    const a = randomList(16, 1).sort((x, y) => x - y);
    const b = randomList(16, 2).sort((x, y) => x - y);
    const error = meanError(
      100,
      () => [...a, ...b],
      (_, seed) => answerTo(mergePrompt(a, b), seed),
    );
    expect(error).toBeLessThan(
      meanError(
        100,
        () => [...a, ...b],
        (l, seed) => answerTo(sortPrompt(l), seed),
      ),
    );
  });
});

describe('simulated LLM server', () => {
  let sim: SimulatedLlm;
  let client: OpenAI;
  const list = randomList(32, 42);
  const state: SortingState = { unsorted: list, list };
  const ask = (body: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
    client.chat.completions.create({ model: 'sim-got-1', messages: [{ role: 'user', content: sortPrompt(list) }], ...body });

  beforeAll(async () => {
    sim = await startSimulatedLlm({ seed: 1 });
    client = new OpenAI({ baseURL: sim.baseURL, apiKey: 'sim', maxRetries: 0 });
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.setLatency(0);
    sim.resetStats();
  });

  it('answers n different choices that the task parses', async () => {
    const res = await ask({ n: 5 });
    expect(res.object).toBe('chat.completion');
    expect(res.choices).toHaveLength(5);
    const texts = res.choices.map((c) => c.message.content ?? '');
    expect(new Set(texts).size).toBeGreaterThan(1);
    for (const [i, choice] of res.choices.entries()) {
      expect(choice.index).toBe(i);
      expect(choice.finish_reason).toBe('stop');
      expect(choice.message.role).toBe('assistant');
    }
    const parsed = texts.flatMap((t) => sortingTask.parseResponse({ prompt: 'sort', params: {}, thoughts: [state] }, t));
    expect(parsed.filter((p) => p.valid).length).toBeGreaterThanOrEqual(4);
  });

  it('answers the same request identically', async () => {
    const first = await ask({ n: 3, seed: 9 });
    const again = await ask({ n: 3, seed: 9 });
    expect(again.choices.map((c) => c.message.content)).toEqual(first.choices.map((c) => c.message.content));
  });

  it('reports plausible usage', async () => {
    const res = await ask({ n: 2 });
    const usage = res.usage!;
    // 32 digits with separators, in prompt and in each answer.
    expect(usage.prompt_tokens).toBeGreaterThan(60);
    expect(usage.completion_tokens).toBeGreaterThan(2 * 30);
    expect(usage.completion_tokens).toBeLessThan(2 * 200);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it('truncates at max_tokens', async () => {
    const res = await ask({ max_tokens: 5 });
    expect(res.choices[0]!.finish_reason).toBe('length');
    expect(res.usage!.completion_tokens).toBe(5);
  });

  it('honours the latency and serves requests in parallel', async () => {
    sim.setLatency(200);
    const startedAt = Date.now();
    await Promise.all([ask(), ask(), ask()]);
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2000);
    expect(sim.stats().maxInFlight).toBe(3);
    expect(sim.stats().inFlight).toBe(0);
  });

  it('rejects prompts it does not understand with a 400', async () => {
    const err = await client.chat.completions
      .create({ model: 'sim-got-1', messages: [{ role: 'user', content: 'Tell me a joke.' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).message).toMatch(/does not understand/);
  });

  it('rejects bad JSON with a 400', async () => {
    const res = await fetch(`${sim.baseURL}/chat/completions`, {
      method: 'POST',
      body: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });

  it('lists its model and counts requests', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['sim-got-1']);
    await ask({ n: 4 });
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: mergePrompt([1, 3], [2]) }] });
    const stats = (await (await fetch(`${sim.baseURL.replace(/\/v1$/, '')}/stats`)).json()) as ReturnType<SimulatedLlm['stats']>;
    expect(stats).toMatchObject({ requests: 2, completions: 5, byKind: { 'sorting.sort': 1, 'sorting.merge': 1 }, inFlight: 0 });
    expect(sim.stats()).toEqual(stats);
  });
});

describe('simulated LLM per-minute limits', () => {
  let sim: SimulatedLlm;
  const messages = [{ role: 'user', content: sortPrompt(randomList(32, 42)) }];
  interface Reply {
    status: number;
    headers: Headers;
    body: {
      usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
      error?: { message: string; type: string; code: string | null };
    };
  }
  const post = async (body: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Reply> => {
    const res = await fetch(`${sim.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim-got-1', messages, ...body }),
      signal,
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Reply['body'] };
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  // One request's prompt and completion tokens, measured without limits; max tokens of 4× the
  // completion reserve far more than a request uses, so settlement has something to refund.
  let prompt = 0;
  let used = 0;
  let maxTokens = 0;
  let reserved = 0;

  beforeAll(async () => {
    sim = await startSimulatedLlm({ seed: 1 });
    const { usage } = (await post()).body;
    prompt = usage!.prompt_tokens;
    used = usage!.total_tokens;
    maxTokens = 4 * usage!.completion_tokens;
    reserved = prompt + maxTokens;
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.setLatency(0);
    sim.setLimits(undefined);
    sim.resetStats();
  });

  it('refuses a request beyond the token limit with a 429 and answers it after Retry-After', async () => {
    // The bucket holds one reservation; refilled in a second.
    const tokensPerMinute = 60 * reserved;
    sim.setLimits({ tokensPerMinute, burstSeconds: 1 });
    expect((await post({ max_tokens: maxTokens })).status).toBe(200);
    const refused = await post({ max_tokens: maxTokens });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
    expect(refused.body.error!.message).toMatch(
      new RegExp(
        `^Rate limit reached for sim-got-1 on tokens per min \\(TPM\\): Limit ${tokensPerMinute}, Used \\d+, Requested ${reserved}\\. Please try again in [\\d.]+m?s\\.$`,
      ),
    );
    const h = refused.headers;
    expect(h.get('retry-after')).toBe('1');
    const retryMs = Number(h.get('retry-after-ms'));
    expect(retryMs).toBeGreaterThan(0);
    expect(retryMs).toBeLessThanOrEqual(1000);
    expect(h.get('x-ratelimit-limit-tokens')).toBe(String(tokensPerMinute));
    expect(Number(h.get('x-ratelimit-remaining-tokens'))).toBeLessThan(reserved);
    expect(h.get('x-ratelimit-limit-requests')).toBeNull();
    expect(sim.stats()).toMatchObject({ requests: 2, completions: 1, rateLimited: 1, faults: {}, tokensServed: used });
    expect(sim.requestLog()[1]).toMatchObject({ outcome: 'status', limited: true });

    await sleep(retryMs);
    expect((await post({ max_tokens: maxTokens })).status).toBe(200);
    expect(sim.stats()).toMatchObject({ rateLimited: 1, tokensServed: 2 * used });
    expect(sim.requestLog()[2]).toMatchObject({ outcome: 'answered', tokens: used });
  });

  it('settles a reservation to the tokens used, so unused max tokens are refunded', async () => {
    // Room for one reservation and one request's real usage: two reservations only fit with the refund.
    sim.setLimits({ tokensPerMinute: 60 * (reserved + used), burstSeconds: 1 });
    expect((await post({ max_tokens: maxTokens })).status).toBe(200);
    expect((await post({ max_tokens: maxTokens })).status).toBe(200);
    const third = await post({ max_tokens: maxTokens });
    expect(third.status).toBe(429);
    // What is left is the bucket less two requests' real usage (plus a few ms of refill).
    const remaining = Number(third.headers.get('x-ratelimit-remaining-tokens'));
    expect(remaining).toBeGreaterThanOrEqual(reserved - used - 1);
    expect(remaining).toBeLessThan(reserved);
    expect(sim.stats()).toMatchObject({ rateLimited: 1, tokensServed: 2 * used });
  });

  it('settles a request the client hangs up on to its prompt tokens', async () => {
    // A bucket of one reservation and one prompt: the next reservation fits only if the abandoned
    // request kept no more than its prompt.
    sim.setLimits({ tokensPerMinute: 30 * (reserved + prompt), burstSeconds: 2 });
    sim.setLatency(1000);
    await expect(post({ max_tokens: maxTokens }, AbortSignal.timeout(50))).rejects.toThrow();
    while (sim.requestLog()[0]?.outcome !== 'abandoned') await sleep(10);
    sim.setLatency(0);
    expect((await post({ max_tokens: maxTokens })).status).toBe(200);
    expect(sim.requestLog()[0]!.tokens).toBeUndefined();
    expect(sim.stats()).toMatchObject({ rateLimited: 0, tokensServed: used });
  });

  it('refuses requests beyond the requests limit', async () => {
    // Two requests at once, two more each second.
    sim.setLimits({ requestsPerMinute: 120, burstSeconds: 1 });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(refused.body.error!.message).toMatch(/on requests per min \(RPM\): Limit 120, Used \d+, Requested 1\./);
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('120');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-limit-tokens')).toBeNull();
    const retryMs = Number(refused.headers.get('retry-after-ms'));
    expect(retryMs).toBeLessThanOrEqual(500);
    await sleep(retryMs);
    expect((await post()).status).toBe(200);
    expect(sim.stats()).toMatchObject({ requests: 4, completions: 3, rateLimited: 1 });
  });

  it('takes limits as an option, and setLimits(undefined) lifts them', async () => {
    const limited = await startSimulatedLlm({ seed: 1, limits: { requestsPerMinute: 60, burstSeconds: 1 } });
    try {
      const call = () =>
        fetch(`${limited.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'sim-got-1', messages }),
        }).then((res) => res.status);
      expect(await call()).toBe(200);
      expect(await call()).toBe(429);
      limited.setLimits(undefined);
      expect([await call(), await call(), await call()]).toEqual([200, 200, 200]);
      expect(limited.stats().rateLimited).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('refuses limits that are not positive numbers', () => {
    expect(() => sim.setLimits({ tokensPerMinute: 0 })).toThrow(/tokensPerMinute must be a positive number/);
    expect(() => sim.setLimits({ requestsPerMinute: Number.NaN })).toThrow(RangeError);
  });
});
