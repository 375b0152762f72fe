import OpenAI from 'openai';
import { RateLimiter, type RateLimits } from './rate-limit';
import type { Usage } from '../grs/types';
import type { ChatMessage } from '../tasks/task';
import { LlmResponseError } from './errors';
import { createLlmFetch } from './http';

export interface LlmEndpoint {
  baseURL: string;
  apiKey: string;
  /** Whether the endpoint honours `n` (OpenAI, vLLM do; some local servers ignore it). */
  supportsN: boolean;
  /** Which responses the cache may share with this endpoint (default: its base URL; the simulator, whose port changes, names itself). */
  cacheNamespace?: string;
}

export interface CompletionRequest {
  model: string;
  messages: ChatMessage[];
  samples: number;
  temperature: number;
  maxTokens?: number;
  seed: number;
  signal?: AbortSignal;
}

export interface Completion {
  /** One text per requested sample; a refused or empty sample is an empty string. */
  texts: string[];
  finishReasons: string[];
  usage: Usage;
  model: string;
  requests: number;
}

/**
 * The one place that talks to an OpenAI-compatible endpoint. Retries are Temporal's job, so the
 * SDK's own are off. k samples are asked for with `n = k` (the prompt is paid once); an endpoint
 * that returns fewer choices than asked is topped up with further requests.
 */
export interface LlmClientOptions {
  /**
   * Whether an error names what a broken endpoint sent (the first 80 characters of a body that is
   * not a completion). Error messages are stored in plain text even when payloads are encrypted,
   * and such a body may echo the prompt: the worker turns this off when it encrypts.
   */
  quoteBodies?: boolean;
}

export class LlmClient {
  private readonly openai: OpenAI;
  private readonly limiter: RateLimiter;
  private readonly quoteBodies: boolean;

  constructor(
    readonly endpoint: LlmEndpoint,
    limits: RateLimits = {},
    o: LlmClientOptions = {},
  ) {
    this.quoteBodies = o.quoteBodies ?? true;
    this.openai = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, maxRetries: 0, timeout: 10 * 60_000, fetch: createLlmFetch() });
    this.limiter = new RateLimiter(limits);
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    if (!this.limiter.limited) return this.request(req);
    // The tokenizer costs ~0.3 s of CPU to load: only a worker with a token or request limit needs it.
    const estimate = estimateTokens(req, (await import('gpt-tokenizer')).encode);
    await this.limiter.acquire(estimate, req.signal);
    const completion = await this.request(req);
    this.limiter.settle(estimate, completion.usage.promptTokens + completion.usage.completionTokens);
    return completion;
  }

  private async request(req: CompletionRequest): Promise<Completion> {
    const out: Completion = { texts: [], finishReasons: [], usage: { promptTokens: 0, completionTokens: 0 }, model: req.model, requests: 0 };
    while (out.texts.length < req.samples) {
      const missing = req.samples - out.texts.length;
      const n = this.endpoint.supportsN ? missing : 1;
      const response = await this.ask(req, n, req.seed + out.requests);
      // A proxy's error page or a cut-off body can arrive as a 200: it is a fault to retry, not an answer.
      if (!isChatCompletion(response)) throw new LlmResponseError(`expected a chat completion, got ${this.quoteBodies ? describe(response) : shapeOf(response)}`);
      out.requests += 1;
      out.model = response.model || req.model;
      out.usage.promptTokens += response.usage?.prompt_tokens ?? 0;
      out.usage.completionTokens += response.usage?.completion_tokens ?? 0;
      // Some compatible servers leave out `index`; their order is then the list's.
      const choices = response.choices
        .map((choice, position) => ({ choice, at: typeof choice.index === 'number' ? choice.index : position }))
        .sort((a, b) => a.at - b.at)
        .map((c) => c.choice)
        .slice(0, missing);
      if (choices.length === 0) throw new LlmResponseError('the completion has no choices');
      for (const choice of choices) {
        out.texts.push(choice.message?.content ?? '');
        out.finishReasons.push(choice.finish_reason ?? 'unknown');
      }
    }
    return out;
  }

  /** One request; `seed` differs per top-up request, so topped-up samples are new samples, not repeats. */
  private async ask(req: CompletionRequest, n: number, seed: number): Promise<OpenAI.ChatCompletion> {
    try {
      return await this.openai.chat.completions.create(
        { model: req.model, messages: req.messages, n, temperature: req.temperature, seed, ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}) },
        { signal: req.signal },
      );
    } catch (e) {
      // The JSON parser's message quotes the body's first characters.
      if (e instanceof SyntaxError && !this.quoteBodies) throw new LlmResponseError('a body that is not JSON');
      throw e;
    }
  }
}

/** The shape `complete` relies on; openai hands back whatever the body was (a string for a non-JSON content type). */
function isChatCompletion(value: unknown): value is OpenAI.ChatCompletion {
  if (!value || typeof value !== 'object') return false;
  const choices = (value as { choices?: unknown }).choices;
  return Array.isArray(choices) && choices.every((c: unknown) => !!c && typeof c === 'object');
}

/** What a body was, without a word of it. */
function shapeOf(value: unknown): string {
  if (typeof value === 'string') return `a text body of ${value.length} characters`;
  if (value === null || value === undefined) return 'an empty body';
  return Array.isArray(value) ? `an array of ${value.length} items` : typeof value === 'object' ? `an object with the keys ${Object.keys(value).slice(0, 10).join(', ')}` : `a ${typeof value}`;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `text: ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`;
  if (value === null || value === undefined) return 'an empty body';
  const text = JSON.stringify(value) ?? String(value);
  return `${Array.isArray(value) ? 'an array' : typeof value}: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`;
}

/** Prompt tokens plus what the samples may produce (max tokens when set, else as much as the prompt). */
function estimateTokens(req: CompletionRequest, encode: (text: string) => number[]): number {
  const prompt = req.messages.reduce((sum, m) => sum + 4 + encode(m.content).length, 3);
  return prompt + req.samples * (req.maxTokens ?? prompt);
}
