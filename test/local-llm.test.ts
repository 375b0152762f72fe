/**
 * The local model server with the real default model (SmolLM2-135M on the CPU), through the
 * `openai` client the engine uses. Answers are kept to a few tokens: the point is the endpoint's
 * contract, not the model's skill.
 */
import { execFile } from 'node:child_process';
import { getLlama, type LlamaModel } from 'node-llama-cpp';
import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_LLM_DEFAULTS } from '../src/localllm/defaults';
import { ensureLocalModel, LOCAL_MODEL_ENV } from '../src/localllm/model';
import { LOCAL_MODEL_NAME_ENV, LOCAL_MODEL_NAMES, LOCAL_MODELS } from '../src/localllm/models';
import { type LocalLlm, type LocalLlmStats, startLocalLlm } from '../src/localllm/server';

const CONTEXT = 2048;

/** SmolLM2's chat template, written out by hand: its default system prompt, then ChatML turns, then the assistant's opening. */
const smolLm2Prompt = (user: string) =>
  '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' +
  `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the local model server (SmolLM2-135M)', () => {
  let llm: LocalLlm;
  let openai: OpenAI;
  let vocabulary: LlamaModel;

  beforeAll(async () => {
    // The default model, whatever GOT_LOCAL_MODEL says: the prompt below is written in its template.
    const modelPath = await ensureLocalModel({ env: { ...process.env, [LOCAL_MODEL_ENV]: '' }, log: (line) => console.log(line) });
    llm = await startLocalLlm({ modelPath, port: 0, contextSize: CONTEXT, parallel: 2 });
    openai = new OpenAI({ baseURL: llm.baseURL, apiKey: 'unused', maxRetries: 0 });
    // The tokenizer alone, loaded apart from the server, to count prompts independently of it.
    vocabulary = await (await getLlama({ gpu: false, build: 'never' })).loadModel({ modelPath, vocabOnly: true });
  });
  afterAll(async () => {
    await vocabulary?.dispose();
    await llm?.close();
  });

  it('answers n choices, cut at max_tokens, with usage counted by the model tokenizer', async () => {
    const user = 'Write a long story about a lighthouse keeper.';
    const completion = await openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: user }],
      n: 2,
      max_tokens: 16,
      seed: 7,
    });
    expect(completion.model).toBe(llm.model);
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1]);
    for (const choice of completion.choices) {
      expect(choice.message.content?.trim()).not.toBe('');
      expect(choice.finish_reason).toBe('length');
    }
    expect(completion.usage).toEqual({
      prompt_tokens: vocabulary.tokenize(smolLm2Prompt(user), true).length,
      completion_tokens: 2 * 16,
      total_tokens: vocabulary.tokenize(smolLm2Prompt(user), true).length + 32,
      // The first request of a fresh server: nothing was cached before it.
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it('gives the same text for the same seed at temperature 0', async () => {
    const ask = () =>
      openai.chat.completions.create({
        model: llm.model,
        messages: [{ role: 'user', content: 'Say hello.' }],
        max_completion_tokens: 12,
        seed: 3,
        temperature: 0,
      });
    const [first, second] = [await ask(), await ask()];
    expect(first.choices[0]!.message.content).not.toBe('');
    expect(second.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
  });

  it('ends a choice at a stop sequence, without it, with finish_reason stop', async () => {
    const completion = await openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: 'Count from 1 to 20, separated by commas.' }],
      max_tokens: 40,
      temperature: 0,
      stop: ['\n'],
    });
    const [choice] = completion.choices;
    expect(choice!.finish_reason).toBe('stop');
    expect(choice!.message.content).not.toBe('');
    expect(choice!.message.content).not.toContain('\n');
    expect(completion.usage!.completion_tokens).toBeLessThan(40);
  });

  it('stops generating when the client goes away and frees the sequence', async () => {
    const before = llm.stats();
    const controllers = [new AbortController(), new AbortController()];
    const requests = controllers.map((c) =>
      openai.chat.completions.create(
        { model: llm.model, messages: [{ role: 'user', content: 'Write a long story about the sea.' }], max_tokens: 1000, temperature: 0 },
        { signal: c.signal },
      ),
    );
    // Both sequences busy, tokens flowing: then both clients hang up.
    await until(
      'both sequences generate',
      () => llm.stats().activeSequences === 2 && llm.stats().completionTokens > before.completionTokens,
    );
    for (const c of controllers) c.abort();
    for (const r of requests) await expect(r).rejects.toThrow(/abort/i);
    await until('the sequences are free', () => llm.stats().activeSequences === 0);
    const after: LocalLlmStats = llm.stats();
    expect(after.cancelled - before.cancelled).toBe(2);
    expect(after.completed).toBe(before.completed);
    expect(after.completionTokens - before.completionTokens).toBeLessThan(2 * 1000);
    const next = await openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 4,
    });
    expect(next.choices[0]!.message.content).not.toBe('');
    expect(llm.stats()).toMatchObject({ activeSequences: 0, waiting: 0, completed: before.completed + 1 });
  });

  it('refuses a prompt longer than the context with a 400 naming the limit', async () => {
    const error = await openai.chat.completions
      .create({ model: llm.model, messages: [{ role: 'user', content: 'word '.repeat(CONTEXT + 100) }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    const bad = error as BadRequestError;
    expect(bad.message).toMatch(new RegExp(`maximum context length is ${llm.contextSize} tokens`));
    expect(bad.param).toBe('messages');
    expect(bad.code).toBe('context_length_exceeded');
  });

  it('lists the model with the window it serves, and measures its own speed without disturbing the counters', async () => {
    const models = (await (await fetch(`${llm.baseURL}/models`)).json()) as { data: { id: string; context_length: number }[] };
    expect(models.data).toEqual([expect.objectContaining({ id: llm.model, context_length: llm.contextSize })]);
    const before = llm.stats();
    const speed = await llm.measureSpeed({ maxTokens: 8 });
    expect(speed.completionTokens).toBeGreaterThan(1);
    expect(speed.promptTokens).toBeGreaterThan(0);
    expect(speed.tokensPerSecond).toBeGreaterThan(0);
    expect(speed.promptTokensPerSecond).toBeGreaterThan(0);
    expect(llm.stats()).toEqual(before);
  });

  it('refuses a malformed request with a 400 naming the field', async () => {
    const error = await openai.chat.completions
      .create({ model: llm.model, messages: [{ role: 'user', content: 'hi' }], n: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).param).toBe('n');
  });

  it('streams chunks of the same text, then a usage chunk', async () => {
    const request = {
      model: llm.model,
      messages: [{ role: 'user' as const, content: 'Name three colours.' }],
      max_tokens: 12,
      temperature: 0,
    };
    const whole = await openai.chat.completions.create(request);
    const stream = await openai.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const pieces = chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).filter(Boolean);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(whole.choices[0]!.message.content);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual([
      whole.choices[0]!.finish_reason,
    ]);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    // The same prompt again: all of it but the last token (read to sample from) is taken from the prefix cache.
    expect(last.usage).toEqual({
      ...whole.usage,
      prompt_tokens_details: { cached_tokens: whole.usage!.prompt_tokens - 1 },
    });
  });
});

describe('got local-llm', () => {
  const got = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'local-llm', ...args], { env }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );

  it('describes its options and their defaults', async () => {
    const { code, stdout: wrapped } = await got(['--help']);
    expect(code).toBe(0);
    const stdout = wrapped.replace(/\s+/g, ' ');
    for (const [flag, value] of [
      ['--port', LOCAL_LLM_DEFAULTS.port],
      ['--parallel', LOCAL_LLM_DEFAULTS.parallel],
      ['--batch', LOCAL_LLM_DEFAULTS.batch],
      ['--kv-cache-mb', LOCAL_LLM_DEFAULTS.kvCacheMb],
      ['--threads', LOCAL_LLM_DEFAULTS.threads],
    ] as const) {
      expect(stdout).toMatch(new RegExp(`${flag} <\\w+> [^(]*\\(default: ${value}\\)`));
    }
    expect(stdout).toContain(`env: ${LOCAL_MODEL_ENV}`);
    // Each built-in model is served with its own context size unless --context says otherwise.
    for (const m of Object.values(LOCAL_MODELS)) expect(stdout).toContain(`${m.contextSize} for ${m.name}`);
    expect(stdout).toContain(`${LOCAL_LLM_DEFAULTS.contextSize} for a file`);
    expect(stdout).toContain(`choices: ${LOCAL_MODEL_NAMES.map((n) => `"${n}"`).join(', ')}`);
    expect(stdout).toContain(`env: ${LOCAL_MODEL_NAME_ENV}`);
  });

  it('names the model file it cannot read, before loading anything', async () => {
    const { code, stderr } = await got(['--port', '0'], { ...process.env, [LOCAL_MODEL_ENV]: '/nonexistent/model.gguf' });
    expect(code).toBe(3);
    expect(stderr).toMatch(/The model file "\/nonexistent\/model\.gguf" .* is not a readable file/);
  });
});
