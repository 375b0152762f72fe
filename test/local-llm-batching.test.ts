/**
 * A request's samples decoded together on the real default model (SmolLM2-135M): distinct choices,
 * each reproducible from its seed, streamed interleaved, and a client that hangs up mid-batch frees
 * every sequence it held. Answers are kept short: the point is the batching, not the model's skill.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalModel, LOCAL_MODEL_ENV } from '../src/localllm/model';
import { type LocalLlm, startLocalLlm } from '../src/localllm/server';

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('samples decoded together (SmolLM2-135M)', () => {
  let llm: LocalLlm;
  let openai: OpenAI;

  beforeAll(async () => {
    const modelPath = await ensureLocalModel({ env: { ...process.env, [LOCAL_MODEL_ENV]: '' }, log: (line) => console.log(line) });
    llm = await startLocalLlm({ modelPath, port: 0, contextSize: 2048, parallel: 2, batch: 4 });
    openai = new OpenAI({ baseURL: llm.baseURL, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(async () => {
    await llm?.close();
  });

  it('holds a batch plus a sequence for the other parallel request, and copies the prompt between them', () => {
    expect(llm).toMatchObject({ sequences: 5, batch: 4, promptSharing: 'copy' });
  });

  const story = (seed: number, n = 4) =>
    openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: 'Write a short story about a cat.' }],
      n,
      max_tokens: 12,
      temperature: 1,
      seed,
    });

  it('answers n = 4 with four distinct choices, each the same again for the same seed', async () => {
    const first = await story(11);
    const texts = first.choices.map((c) => c.message.content);
    expect(first.choices.map((c) => c.index)).toEqual([0, 1, 2, 3]);
    expect(new Set(texts).size).toBe(4);
    expect(first.usage!.completion_tokens).toBeGreaterThan(4);
    expect(first.usage!.completion_tokens).toBeLessThanOrEqual(4 * 12);
    const again = await story(11);
    expect(again.choices.map((c) => c.message.content)).toEqual(texts);
    // Choice i is seeded with seed + i, wherever it runs: seed 12's first choice is seed 11's second.
    const shifted = await story(12, 1);
    expect(shifted.choices[0]!.message.content).toBe(texts[1]);
    expect(llm.stats()).toMatchObject({ activeSequences: 0, waiting: 0 });
  });

  it('runs an n larger than the batch in rounds', async () => {
    const completion = await story(21, 7);
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(new Set(completion.choices.map((c) => c.message.content)).size).toBe(7);
    const [alone] = (await story(21 + 5, 1)).choices;
    expect(alone!.message.content).toBe(completion.choices[5]!.message.content);
  });

  it('streams every choice of n = 3, interleaved, each ending once, then the usage', async () => {
    const request = {
      model: llm.model,
      messages: [{ role: 'user' as const, content: 'Name three colours.' }],
      n: 3,
      max_tokens: 10,
      temperature: 1,
      seed: 5,
    };
    const whole = await openai.chat.completions.create(request);
    const stream = await openai.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    const texts = ['', '', ''];
    const finishes: [number, string][] = [];
    const order: number[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const c of chunk.choices) {
        texts[c.index] += c.delta.content ?? '';
        if (c.delta.content) order.push(c.index);
        if (c.finish_reason) finishes.push([c.index, c.finish_reason]);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(texts).toEqual(whole.choices.map((c) => c.message.content));
    expect(finishes.sort()).toEqual(whole.choices.map((c) => [c.index, c.finish_reason]));
    // Decoded together, the choices' pieces alternate rather than come one choice after another.
    const switches = order.slice(1).filter((index, i) => index !== order[i]).length;
    expect(switches).toBeGreaterThan(2);
    // The same prompt again: all of it but the last token comes from the prefix cache.
    expect(usage).toEqual({ ...whole.usage, prompt_tokens_details: { cached_tokens: whole.usage!.prompt_tokens - 1 } });
  });

  it('gives a request of n = 1 one sequence only', async () => {
    const gone = new AbortController();
    const stream = await openai.chat.completions.create(
      { model: llm.model, messages: [{ role: 'user', content: 'Write a long story.' }], max_tokens: 200, stream: true },
      { signal: gone.signal },
    );
    let active: number | undefined;
    const read = (async () => {
      for await (const chunk of stream) {
        if (!chunk.choices[0]?.delta.content) continue;
        active = llm.stats().activeSequences;
        gone.abort();
      }
    })();
    await read.catch(() => {}); // the client ends the stream or throws its abort, by version: either way it is gone
    expect(active).toBe(1);
    await until('the sequence is free', () => llm.stats().activeSequences === 0);
  });

  it('lets a second request start while a batch holds the other sequences', async () => {
    const batch = story(31);
    await until('the batch decodes', () => llm.stats().activeSequences === 4);
    const single = await openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 4,
    });
    expect(single.choices[0]!.message.content).not.toBe('');
    expect((await batch).choices).toHaveLength(4);
  });

  it('frees every sequence of a batch when its client hangs up', async () => {
    const before = llm.stats();
    const gone = new AbortController();
    const request = openai.chat.completions.create(
      { model: llm.model, messages: [{ role: 'user', content: 'Write a long story about the sea.' }], n: 4, max_tokens: 1000 },
      { signal: gone.signal },
    );
    await until(
      'all four choices generate',
      () => llm.stats().activeSequences === 4 && llm.stats().completionTokens > before.completionTokens + 8,
    );
    gone.abort();
    await expect(request).rejects.toThrow(/abort/i);
    await until('the sequences are free', () => llm.stats().activeSequences === 0);
    const after = llm.stats();
    expect(after.cancelled - before.cancelled).toBe(1);
    expect(after.completionTokens - before.completionTokens).toBeLessThan(4 * 1000);
    // The freed sequences serve the next batch.
    expect((await story(41)).choices).toHaveLength(4);
    expect(llm.stats()).toMatchObject({ activeSequences: 0, waiting: 0 });
  });
});
