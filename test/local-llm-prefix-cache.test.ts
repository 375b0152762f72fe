/**
 * The local server's prefix cache and token prediction (decisions 95, 96): the choice of sequence
 * and prefix on fake sequences, then the real default model (SmolLM2-135M) served with both on and
 * with both off, side by side: prompts that share a prefix read it once, `cached_tokens` counts
 * exactly the shared tokens, the least recently used state is the one overwritten, and every answer
 * at temperature 0 is the one the server without them gives.
 */
import { getLlama, type LlamaModel, type Token } from 'node-llama-cpp';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalModel, LOCAL_MODEL_ENV } from '../src/localllm/model';
import { SlotPool } from '../src/localllm/pool';
import { commonPrefix, longestPrefix, runOn } from '../src/localllm/prefix-cache';
import { servedSummary } from '../src/localllm/served';
import { type LocalLlm, startLocalLlm } from '../src/localllm/server';

const held = (...tokens: number[]) => ({ contextTokens: tokens as Token[] });

describe('choosing where a prompt starts', () => {
  it('counts a prefix only as far as the tokens are equal', () => {
    expect(commonPrefix([1, 2, 3] as Token[], [1, 2, 4, 5] as Token[])).toBe(2);
    expect(commonPrefix([] as Token[], [1] as Token[])).toBe(0);
    expect(commonPrefix([7, 8] as Token[], [7, 8] as Token[])).toBe(2);
  });

  it('finds the free sequence holding the longest prefix, and reads on the least recently used other one', () => {
    const free = [held(1, 9), held(1, 2, 3, 4), held(1, 2, 5)];
    const prompt = [1, 2, 3, 7] as Token[];
    expect(longestPrefix(free, prompt)).toEqual({ at: 1, tokens: 3 });
    // The holder stays for later prompts; the least recently used state (index 0) is overwritten.
    expect(runOn(prompt)(free)).toBe(0);
    // When the least recently used one is the holder, the next one is overwritten instead.
    expect(runOn(prompt)([held(1, 2, 3), held(9)])).toBe(1);
    expect(runOn(prompt)([held(1, 2, 3)])).toBe(0);
  });

  it('keeps free slots least recently given back first, and lends the one a pick chooses', async () => {
    const pool = new SlotPool(['a', 'b', 'c']);
    const taken = [await pool.acquire(), await pool.acquire(), await pool.acquire()];
    for (const slot of ['b', 'c', 'a']) pool.release(slot);
    expect(taken.sort()).toEqual(['a', 'b', 'c']);
    expect(pool.idle).toEqual(['b', 'c', 'a']);
    expect(await pool.acquire(undefined, () => 0)).toBe('b');
    expect(pool.take('a')).toBe(true);
    expect(pool.take('a')).toBe(false);
    expect(pool.idle).toEqual(['c']);
  });
});

describe("the server's last line", () => {
  it('says the prompt tokens read and taken from the cache, and the predictions accepted when there were any', () => {
    const stats = { requests: 3, completed: 3, cancelled: 0, activeSequences: 0, waiting: 0, completionTokens: 60 };
    expect(servedSummary({ ...stats, promptTokens: 6_600, cachedPromptTokens: 3_434, predictions: { validated: 12, refuted: 30 } })).toBe(
      'Served 3 request(s): 6,600 prompt tokens, 3,166 read and 3,434 taken from the prefix cache; 60 completion tokens, 12 of 42 predicted tokens accepted.',
    );
    expect(servedSummary({ ...stats, promptTokens: 10, cachedPromptTokens: 0, predictions: { validated: 0, refuted: 0 } })).toMatch(
      /10 read and 0 taken from the prefix cache; 60 completion tokens\.$/,
    );
  });
});

/** A few hundred tokens of text two prompts share, then a question each asks of it. */
const DOCUMENT = Array.from(
  { length: 12 },
  (_, i) => `Clause ${i + 1}. The supplier delivers part ${100 + i} within ${i + 3} days and keeps its records for ${i + 2} years.`,
).join('\n');
const ask = (question: string, document = DOCUMENT) => `${document}\n\nQuestion: ${question}`;

describe('the prefix cache and prediction on the real model (SmolLM2-135M)', () => {
  let cached: LocalLlm;
  let plain: LocalLlm;
  let vocabulary: LlamaModel;
  let modelPath: string;

  beforeAll(async () => {
    modelPath = await ensureLocalModel({ env: { ...process.env, [LOCAL_MODEL_ENV]: '' }, log: (line) => console.log(line) });
    // Two sequences: one prompt's state kept while another is read, the third prompt evicts the older.
    cached = await startLocalLlm({ modelPath, port: 0, contextSize: 1024, parallel: 1, batch: 2, prediction: 'input-lookup' });
    plain = await startLocalLlm({ modelPath, port: 0, contextSize: 1024, parallel: 1, batch: 2, prefixCache: false, prediction: 'off' });
    vocabulary = await (await getLlama({ gpu: false, build: 'never' })).loadModel({ modelPath, vocabOnly: true });
  });
  afterAll(async () => {
    await vocabulary?.dispose();
    await cached?.close();
    await plain?.close();
  });

  /** SmolLM2's chat template, as the server applies it. */
  const tokens = (user: string) =>
    vocabulary.tokenize(
      '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' +
        `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`,
      true,
    );
  /** The document's own tokens, without the template around it. */
  const documentTokens = () => vocabulary.tokenize(DOCUMENT).length;
  /** The tokens of `b`'s prompt a server holding `a`'s can take from it (the last one is always read, to sample from). */
  const shared = (a: string, b: string) => commonPrefix(tokens(a), tokens(b).slice(0, -1));

  const complete = async (llm: LocalLlm, user: string, maxTokens = 24) => {
    const openai = new OpenAI({ baseURL: llm.baseURL, apiKey: 'unused', maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: user }],
      max_tokens: maxTokens,
      temperature: 0,
    });
    return {
      text: completion.choices[0]!.message.content,
      promptTokens: completion.usage!.prompt_tokens,
      cachedTokens: completion.usage!.prompt_tokens_details?.cached_tokens,
    };
  };

  /** The same request to both servers: the answers must match, the cached server's usage is returned. */
  const both = async (user: string, maxTokens?: number) => {
    const withCache = await complete(cached, user, maxTokens);
    const without = await complete(plain, user, maxTokens);
    expect(withCache.text).toBe(without.text);
    expect(without.cachedTokens).toBe(0);
    return withCache;
  };

  it('reads a shared document once: the second question takes exactly the shared tokens from the cache', async () => {
    const first = await both(ask('Which part is delivered within 5 days?'));
    expect(first.cachedTokens).toBe(0);
    const second = await both(ask('How long are the records of part 107 kept?'));
    const expected = shared(ask('Which part is delivered within 5 days?'), ask('How long are the records of part 107 kept?'));
    expect(expected).toBeGreaterThan(documentTokens());
    expect(second.cachedTokens).toBe(expected);
    expect(second.cachedTokens).toBeLessThan(second.promptTokens);
    // The very same prompt again: all of it but the last token.
    const again = await both(ask('How long are the records of part 107 kept?'));
    expect(again.cachedTokens).toBe(again.promptTokens - 1);
    expect(cached.stats()).toMatchObject({ cachedPromptTokens: expected + again.promptTokens - 1 });
    expect(plain.stats().cachedPromptTokens).toBe(0);
  });

  it('shares nothing past the first different token of a prompt that only looks alike', async () => {
    const original = ask('Which part is delivered within 5 days?');
    // One clause's number changed, and the same text with two spaces for one: alike to the eye, not in tokens.
    const edited = ask('Which part is delivered within 5 days?', DOCUMENT.replace('part 104', 'part 1O4'));
    const spaced = ask('Which part is delivered within 5 days?', DOCUMENT.replace('keeps its records', 'keeps its  records'));
    for (const alike of [edited, spaced]) {
      const answer = await both(alike);
      expect(answer.cachedTokens).toBe(shared(original, alike));
      expect(answer.cachedTokens).toBeLessThan(documentTokens());
      await both(original); // back in the cache for the next one
    }
  });

  it('overwrites the least recently used state when a third prompt comes', async () => {
    const [a, b, c] = ['first', 'second', 'third'].map((which) => ask(`Name the ${which} clause.`, DOCUMENT.replaceAll('supplier', which)));
    await both(a!);
    await both(b!);
    await both(c!); // two sequences: a's state is overwritten, b's kept
    expect((await both(b!)).cachedTokens).toBe(tokens(b!).length - 1);
    const evicted = await both(a!);
    expect(evicted.cachedTokens).toBe(Math.max(shared(b!, a!), shared(c!, a!)));
    expect(evicted.cachedTokens).toBeLessThan(documentTokens() / 2);
  });

  it('predicts copied text ahead, with the same answer as without prediction', async () => {
    const before = cached.stats().predictions;
    const copy = await both(`Repeat this text exactly:\n${DOCUMENT.slice(0, 300)}`, 48);
    // The model copies (SmolLM2 drops the clause's number): the copied part is what input lookup predicts.
    expect(copy.text).toContain('The supplier delivers part 100 within 3 days');
    const after = cached.stats().predictions;
    expect(after.validated).toBeGreaterThan(before.validated);
    expect(plain.stats().predictions).toEqual({ validated: 0, refuted: 0 });
  });

  it('drafts with a draft model (SmolLM2 for itself) beside the prefix cache, with the same answers', async () => {
    const drafting = await startLocalLlm({
      modelPath,
      port: 0,
      contextSize: 1024,
      parallel: 1,
      batch: 2,
      prediction: 'draft',
      draftModelPath: modelPath,
    });
    try {
      expect(drafting.prediction).toBe('draft');
      for (const question of ['Which part is delivered within 5 days?', 'How long are the records of part 107 kept?']) {
        const drafted = await complete(drafting, ask(question));
        expect(drafted.text).toBe((await complete(plain, ask(question))).text);
      }
      // The second question took the document from the first one's sequence, copied with its draft sequence.
      expect(drafting.stats().cachedPromptTokens).toBe(
        shared(ask('Which part is delivered within 5 days?'), ask('How long are the records of part 107 kept?')),
      );
      // A model drafting for itself is right nearly always.
      const { validated, refuted } = drafting.stats().predictions;
      expect(validated).toBeGreaterThan(refuted);
    } finally {
      await drafting.close();
    }
  });

  it('keeps each server its own cache: another context (as another model would have) starts with nothing', async () => {
    const other = await startLocalLlm({ modelPath, port: 0, contextSize: 1024, parallel: 1, batch: 1 });
    try {
      const user = ask('Which part is delivered within 5 days?');
      await complete(cached, user);
      expect((await complete(cached, user)).cachedTokens).toBe(tokens(user).length - 1);
      expect((await complete(other, user)).cachedTokens).toBe(0);
    } finally {
      await other.close();
    }
  });
});
