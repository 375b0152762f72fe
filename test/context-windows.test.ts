import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { doctor, formatDoctor, reportedContextTokens } from '../src/cli/commands/doctor';
import { requestFromOptions } from '../src/cli/commands/run';
import { chatPromptTokens } from '../src/llm/answers';
import {
  CHARS_PER_TOKEN,
  contextTokensOf,
  contextWindowOf,
  estimateChatTokens,
  estimateTokens,
  knownContextTokens,
  SIMULATED_CONTEXT_TOKENS,
  UNKNOWN_MODEL_CONTEXT_TOKENS,
} from '../src/llm/context-windows';
import { LOCAL_LLM_DEFAULTS } from '../src/localllm/defaults';
import { LOCAL_MODELS } from '../src/localllm/models';
import { checkRun } from '../src/run/check';
import { LlmSettings } from '../src/run/request';
import { SIMULATED_MODEL } from '../src/run/wire';
import { startSimulatedLlm } from '../src/simllm/server';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { parseDocMergeCsv } from '../src/tasks/doc-merge/dataset';
import { readSharedData } from './support/tasks';

describe('context windows of known models', () => {
  it.each([
    ['gpt-4o', 128_000],
    ['gpt-4o-mini', 128_000],
    ['gpt-4o-2024-08-06', 128_000],
    ['openai/gpt-4o-mini', 128_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4.1-mini', 1_047_576],
    ['gpt-4-turbo', 128_000],
    ['gpt-4-0125-preview', 128_000],
    ['gpt-4', 8_192],
    ['gpt-4-0613', 8_192],
    ['gpt-4-32k', 32_768],
    ['gpt-3.5-turbo', 16_385],
    ['gpt-3.5-turbo-0125', 16_385],
    ['gpt-3.5-turbo-0613', 4_096],
    ['o1', 200_000],
    ['o1-mini', 128_000],
    ['o3-mini', 200_000],
    ['o4-mini', 200_000],
    ['meta-llama/Llama-3.1-8B-Instruct', 131_072],
    ['llama3.2:3b', 131_072],
    ['Meta-Llama-3-8B-Instruct', 8_192],
    ['mistralai/Mistral-7B-Instruct-v0.3', 32_768],
    ['mistral-7b-instruct-v0.1', 8_192],
    ['mistral-large-latest', 131_072],
    ['open-mixtral-8x7b', 32_768],
    ['mixtral-8x22b-instruct', 65_536],
    ['Qwen/Qwen2.5-7B-Instruct', 32_768],
    ['SmolLM2-135M-Instruct.Q4_1', LOCAL_LLM_DEFAULTS.contextSize],
    // The built-in Qwen models under the ids got local-llm serves them as: the window it serves, not the trained one.
    ['Qwen2.5-Coder-1.5B-Instruct-Q4_K_M', LOCAL_MODELS['qwen2.5-coder-1.5b'].contextSize],
    ['Qwen2.5-Coder-0.5B-Instruct-Q4_K_M', LOCAL_MODELS['qwen2.5-coder-0.5b'].contextSize],
    ['Qwen/Qwen2.5-Coder-1.5B-Instruct', 32_768],
    [SIMULATED_MODEL, SIMULATED_CONTEXT_TOKENS],
  ])('%s: %i tokens', (model, tokens) => {
    expect(knownContextTokens(model)?.tokens).toBe(tokens);
    expect(contextTokensOf({ model })).toBe(tokens);
  });

  it('an unknown model gets the conservative default, and says so; a setting wins over the table', () => {
    expect(knownContextTokens('my-finetune')).toBeUndefined();
    expect(contextWindowOf({ model: 'my-finetune' })).toEqual({ tokens: UNKNOWN_MODEL_CONTEXT_TOKENS, source: 'default' });
    expect(contextWindowOf({ model: 'gpt-4o', contextTokens: 50_000 })).toEqual({ tokens: 50_000, source: 'settings' });
    expect(contextWindowOf({ model: 'gpt-4o' })).toEqual({ tokens: 128_000, source: 'known model', family: 'gpt-4o' });
    expect(contextTokensOf({})).toBe(SIMULATED_CONTEXT_TOKENS);
  });

  it('llm.contextTokens is an optional positive whole number of the run request', () => {
    expect(LlmSettings.parse({}).contextTokens).toBeUndefined();
    expect(LlmSettings.parse({ contextTokens: 32_000 }).contextTokens).toBe(32_000);
    expect(LlmSettings.safeParse({ contextTokens: 0 }).success).toBe(false);
    expect(LlmSettings.safeParse({ contextTokens: 1.5 }).success).toBe(false);
  });
});

describe('estimating tokens without a tokenizer', () => {
  const ndas = parseDocMergeCsv(readSharedData('documents.csv')).flatMap((s) => s.problem.documents);
  const contracts = generateDataRoom(4, 20_000, 2).documents;

  it('counts at least as many tokens as the GPT tokenizers do, on NDAs and contracts', () => {
    for (const text of [...ndas.slice(0, 40), ...contracts]) {
      expect(estimateTokens(text)).toBeGreaterThanOrEqual(encode(text).length);
      expect(estimateTokens(text)).toBeGreaterThanOrEqual(encodeCl100k(text).length);
    }
  });

  it('counts ASCII at CHARS_PER_TOKEN characters a token and any other character as a token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a'.repeat(3 * CHARS_PER_TOKEN))).toBe(3);
    expect(estimateTokens('合同条款')).toBe(4);
    expect(estimateTokens(`${'a'.repeat(CHARS_PER_TOKEN)}é`)).toBe(2);
  });

  it("adds the chat format's overhead per message as the client's count does", () => {
    const messages = [{ role: 'user' as const, content: contracts[0]! }];
    const byLength = (text: string) => Array.from({ length: estimateTokens(text) }, () => 0);
    expect(estimateChatTokens(messages)).toBe(chatPromptTokens(messages, byLength));
  });
});

describe('got doctor: the context window', () => {
  it('prints the window a run plans for, from the model name, for the simulated LLM', async () => {
    const sim = await startSimulatedLlm({});
    try {
      const report = await doctor({ baseURL: sim.baseURL, apiKey: 'x', supportsN: true }, 'sim', SIMULATED_MODEL);
      expect(report.contextWindow).toEqual({ tokens: SIMULATED_CONTEXT_TOKENS, source: 'known model', family: 'the simulated LLM' });
      expect(report.reportedContextTokens).toBeUndefined();
      expect(formatDoctor(report)).toMatch(/context\s+128,000 tokens \(known for the simulated LLM\)/);
      const set = await doctor({ baseURL: sim.baseURL, apiKey: 'x', supportsN: true }, 'sim', SIMULATED_MODEL, { contextTokens: 9_000 });
      expect(formatDoctor(set)).toMatch(/context\s+9,000 tokens \(as set\)/);
    } finally {
      await sim.close();
    }
  });

  it("reads the window an endpoint reports in its model list, and says when it differs from the plan's", async () => {
    const lists: Record<string, unknown> = {
      '/vllm/models': {
        data: [
          { id: 'other', max_model_len: 1 },
          { id: 'my-model', max_model_len: 24_576 },
        ],
      },
      '/openrouter/models': { data: [{ id: 'my-model', context_length: 65_536 }] },
      '/plain/models': { data: [{ id: 'my-model', object: 'model' }] },
    };
    const server = createServer((req, res) => {
      const body = lists[req.url ?? ''];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'no' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const at = (path: string) => ({ baseURL: `${base}/${path}`, apiKey: 'x', supportsN: true });
      expect(await reportedContextTokens(at('vllm'), 'my-model')).toBe(24_576);
      expect(await reportedContextTokens(at('openrouter/'), 'my-model')).toBe(65_536);
      expect(await reportedContextTokens(at('plain'), 'my-model')).toBeUndefined();
      expect(await reportedContextTokens(at('missing'), 'my-model')).toBeUndefined();
      const report = await doctor(at('vllm'), 'endpoint', 'my-model');
      expect(report.ok).toBe(false);
      expect(report.reportedContextTokens).toBe(24_576);
      expect(formatDoctor(report)).toMatch(
        /context\s+8,192 tokens \(model not known: a conservative default.*\) · the server reports 24,576: run with --context-tokens 24576/,
      );
    } finally {
      server.close();
    }
  });
});

describe('the CLI gives doc-merge schemes the run model window', () => {
  const dir = mkdtempSync(join(tmpdir(), 'got-sections-'));
  const files = generateDataRoom(6, 30_000, 3).documents.map((text, i) => {
    const path = join(dir, `contract-${i + 1}.txt`);
    writeFileSync(path, text);
    return path;
  });
  const options = (more: Partial<Parameters<typeof requestFromOptions>[0]>) =>
    requestFromOptions({
      task: 'doc-merge',
      scheme: 'got',
      sample: '0',
      doc: files,
      seed: 0,
      latency: 0,
      worker: false,
      json: true,
      progress: false,
      llm: 'sim',
      ...more,
    });
  // The CLI names the scheme; the GoO is what checking the request (as a worker with a payload store does) expands it to.
  const first = (r: ReturnType<typeof requestFromOptions>) => checkRun(r, { storeThreshold: 2048 }).request.goo.operations[0]!.type;

  it('sectioned for a window the contracts exceed, whole for one they fit', () => {
    const narrow = options({ contextTokens: 16_000 });
    expect(first(narrow)).toBe('forEach');
    expect(narrow.llm).toMatchObject({ contextTokens: 16_000 });
    expect(first(options({}))).toBe('generate');
    expect(first(options({ model: 'gpt-4' }))).toBe('forEach');
  });

  it('refuses a window too small for one section, as bad input naming the scheme', () => {
    expect(() => checkRun(options({ contextTokens: 500 }))).toThrow(/scheme: a context window of 500 tokens cannot hold/);
  });
});
