import OpenAI from 'openai';
import type { Usage } from '../grs/types';
import type { ChatMessage } from '../tasks/task';

export interface LlmEndpoint {
  baseURL: string;
  apiKey: string;
  /** Whether the endpoint honours `n` (OpenAI, vLLM do; some local servers ignore it). */
  supportsN: boolean;
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
export class LlmClient {
  private readonly openai: OpenAI;

  constructor(readonly endpoint: LlmEndpoint) {
    this.openai = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, maxRetries: 0, timeout: 10 * 60_000 });
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    const out: Completion = { texts: [], finishReasons: [], usage: { promptTokens: 0, completionTokens: 0 }, model: req.model, requests: 0 };
    while (out.texts.length < req.samples) {
      const missing = req.samples - out.texts.length;
      const n = this.endpoint.supportsN ? missing : 1;
      const response = await this.openai.chat.completions.create(
        {
          model: req.model,
          messages: req.messages,
          n,
          temperature: req.temperature,
          // A distinct seed per top-up request, so topped-up samples are new samples, not repeats.
          seed: req.seed + out.requests,
          ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
        },
        { signal: req.signal },
      );
      out.requests += 1;
      out.model = response.model || req.model;
      out.usage.promptTokens += response.usage?.prompt_tokens ?? 0;
      out.usage.completionTokens += response.usage?.completion_tokens ?? 0;
      const choices = [...response.choices].sort((a, b) => a.index - b.index).slice(0, missing);
      if (choices.length === 0) throw new Error(`${this.endpoint.baseURL} returned no choices`);
      for (const choice of choices) {
        out.texts.push(choice.message?.content ?? '');
        out.finishReasons.push(choice.finish_reason ?? 'unknown');
      }
    }
    return out;
  }
}
