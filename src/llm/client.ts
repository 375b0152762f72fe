import { getMaxListeners, setMaxListeners } from 'node:events';
import OpenAI, { AzureOpenAI } from 'openai';
import type { Usage } from '../grs/types';
import { DEFAULT_STALL_SECONDS } from '../run/wire';
import { type AnswerSchema, hasLengthBounds, type JsonSchema, withoutLengthBounds } from '../tasks/answer-schema';
import type { ChatMessage } from '../tasks/task';
import { chatPromptTokens, estimateUsage, splitReasoning } from './answers';
import { type AnsweredRequest, type CallProgress, gathered, nextRound, samplesIn, unanswered } from './call-progress';
import { classifyLlmError, LlmResponseError, LlmStalledError, type RetryableKind, retryAfterMs } from './errors';
import { createLlmFetch } from './http';
import { noRefusals, type Patience, patiently, type Refusals } from './patience';
import { type CallLimiter, RateLimiter, type RateLimits } from './rate-limit';

export interface LlmEndpoint {
  baseURL: string;
  apiKey: string;
  /** Whether the endpoint honours `n` (OpenAI, vLLM do; some local servers ignore it). */
  supportsN: boolean;
  /** Which responses the cache may share with this endpoint (default: its base URL; the simulator, whose port changes, names itself). */
  cacheNamespace?: string;
  /**
   * Ask for the answer as a stream: the call reports each token as it arrives (the activity
   * heartbeats on them) and a stream that stops sending for `stallSeconds` is given up and retried,
   * so a slow answer that makes progress is never killed for being long.
   */
  stream?: boolean;
  /** Azure OpenAI: `baseURL` is the resource's endpoint; requests go to a deployment with an `api-version` and an `api-key` header. */
  azure?: { apiVersion: string; deployment?: string };
}

export interface CompletionRequest {
  model: string;
  messages: ChatMessage[];
  samples: number;
  temperature: number;
  maxTokens?: number;
  seed: number;
  signal?: AbortSignal;
  /** Streaming only: called with the completion tokens received so far (chunks, counted). */
  onTokens?: (received: number) => void;
  /** Streaming only: give up when nothing arrives for this long (the first token included). Default 60 s. */
  stallMs?: number;
  /**
   * Ask for the answer in this JSON shape (OpenAI's structured output, strict). An endpoint that
   * refuses it is asked for text instead, from then on for this model (decision 65).
   */
  responseFormat?: AnswerSchema;
  /**
   * Each sample as a request of its own, all sent at once (fan-out `perSample`: every branch is a
   * request, served in parallel by the endpoint) instead of one request with `n = samples`.
   */
  oneSamplePerRequest?: boolean;
  /** Retry each refused request inside the call until it has been refused this long (decision 90); without it, the first fault ends the call. */
  patience?: Patience;
  /** What an earlier attempt of this call received: only the samples still missing are asked for. */
  progress?: CallProgress;
  /** Called with what the call has received each time a request answers while samples are still missing (the activity heartbeats it). */
  onProgress?: (progress: CallProgress) => void;
  /** Told of each refused request before it is sent again (the worker's fault metrics). */
  onRefused?: (kind: RetryableKind) => void;
  /** A request that is not streamed and has not answered in this long is given up (and, with patience, sent again). */
  requestTimeoutMs?: number;
}

export interface Completion {
  /** One text per requested sample, reasoning removed; a refused or empty sample is an empty string. */
  texts: string[];
  /** Per sample, what a reasoning model thought before answering (undefined where it did not say). */
  reasoning: (string | undefined)[];
  finishReasons: string[];
  usage: Usage;
  model: string;
  requests: number;
  /** The requests refused and sent again within the call, and the time that cost (absent when none was). */
  refusals?: Refusals;
  /** Samples taken from an earlier attempt's progress rather than asked for again. */
  resumed?: number;
}

/**
 * The one place that talks to an OpenAI-compatible endpoint. Retries are Temporal's job, so the
 * SDK's own are off. k samples are asked for with `n = k` (the prompt is paid once), or as k
 * requests sent together where `n` is not served or not wanted; an endpoint that returns fewer
 * choices than asked is topped up with further requests.
 */
export interface LlmClientOptions {
  /**
   * Whether an error names what a broken endpoint sent (the first 80 characters of a body that is
   * not a completion). Error messages are stored in plain text even when payloads are encrypted,
   * and such a body may echo the prompt: the worker turns this off when it encrypts.
   */
  quoteBodies?: boolean;
}

/** Abort listeners one request may add to its signal (the HTTP client's, a stream's combined signal). */
const LISTENERS_PER_REQUEST = 2;

export class LlmClient {
  private readonly openai: OpenAI;
  private readonly limiter: CallLimiter;
  private readonly quoteBodies: boolean;
  private readonly quirks = new Map<string, EndpointQuirks>();

  constructor(
    readonly endpoint: LlmEndpoint,
    limits: RateLimits | CallLimiter = {},
    o: LlmClientOptions = {},
  ) {
    this.quoteBodies = o.quoteBodies ?? true;
    const common = { apiKey: endpoint.apiKey, maxRetries: 0, timeout: 10 * 60_000, fetch: createLlmFetch() };
    // Azure routes by deployment (the run's model name unless one is fixed) and authenticates with `api-key`.
    this.openai = endpoint.azure
      ? new AzureOpenAI({
          ...common,
          endpoint: endpoint.baseURL,
          apiVersion: endpoint.azure.apiVersion,
          ...(endpoint.azure.deployment ? { deployment: endpoint.azure.deployment } : {}),
        })
      : new OpenAI({ ...common, baseURL: endpoint.baseURL });
    this.limiter = 'acquire' in limits ? limits : new RateLimiter(limits);
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    if (!this.limiter.limited) return this.request(req);
    // The tokenizer costs ~0.3 s of CPU to load: only a worker with a token or request limit needs it.
    const estimate = estimateTokens(req, (await import('gpt-tokenizer')).encode);
    // Samples sent as requests of their own count as that many requests.
    const requests = req.oneSamplePerRequest || !this.endpoint.supportsN ? req.samples : 1;
    await this.limiter.acquire(estimate, req.signal, requests);
    try {
      const completion = await this.request(req);
      this.limiter.settle(estimate, completion.usage.promptTokens + completion.usage.completionTokens);
      return completion;
    } catch (error) {
      // A refusal pauses every call the limiter holds until the provider's Retry-After, not just this one's retry.
      if (error instanceof OpenAI.APIError && error.status === 429) this.limiter.refused(retryAfterMs(error.headers) ?? 1_000);
      throw error;
    }
  }

  private async request(req: CompletionRequest): Promise<Completion> {
    // A resumed call starts from what an earlier attempt received (a copy: the caller's stays as it was).
    const progress: CallProgress = req.progress ? structuredClone(req.progress) : { answered: [] };
    const resumed = samplesIn(progress);
    const refusals = noRefusals();
    while (samplesIn(progress) < req.samples) {
      // Without `n` (or asked so) the missing samples go as that many requests at once, not one after another.
      const oneEach = req.oneSamplePerRequest || !this.endpoint.supportsN || this.quirksOf(req.model).oneSamplePerRequest;
      progress.round ??= nextRound(progress, req.seed, req.samples - samplesIn(progress), oneEach);
      const n = progress.round.n;
      await this.askAll(req, unanswered(progress), n, refusals, (seed, response) => {
        progress.answered.push(answeredRequest(seed, response, req.model));
        // Only a call still missing samples has anything to keep: the one that completes returns at once
        // (and a heartbeat of its answers would be one more payload to store).
        if (samplesIn(progress) < req.samples) req.onProgress?.(progress);
      });
      progress.round = undefined;
    }
    const got = gathered(progress, req.samples, req.model);
    const out: Completion = {
      texts: got.texts,
      reasoning: got.reasoning,
      finishReasons: got.finishReasons,
      usage: got.usage,
      model: got.model,
      requests: got.requests,
      ...(refusals.requests ? { refusals } : {}),
      ...(resumed ? { resumed } : {}),
    };
    // An endpoint that reports no usage would make every call free and no budget would ever stop a run.
    if (got.unreportedRequests) {
      const counted = await estimateUsage(req.messages, got.unreportedRequests, got.unreported);
      out.usage = {
        ...out.usage,
        promptTokens: out.usage.promptTokens + counted.promptTokens,
        completionTokens: out.usage.completionTokens + counted.completionTokens,
        estimated: true,
      };
    }
    return out;
  }

  /**
   * One request per seed, `n` samples each, sent together; each answer is handed to `answered` as it
   * comes. With `req.patience` a refused request is sent again on its own (decision 90); all are
   * awaited before a failure is thrown, so none is left running unseen once the call has ended; a
   * stream's token count is their sum.
   */
  private async askAll(
    req: CompletionRequest,
    seeds: number[],
    n: number,
    refusals: Refusals,
    answered: (seed: number, response: OpenAI.ChatCompletion) => void,
  ): Promise<void> {
    // Every request listens on the call's one signal (the activity's cancellation): that many listeners
    // at once are the design, not a leak, so Node is told to expect them rather than warn.
    if (req.signal && seeds.length > 1)
      setMaxListeners(Math.max(getMaxListeners(req.signal), LISTENERS_PER_REQUEST * seeds.length + 10), req.signal);
    const received = new Array<number>(seeds.length).fill(0);
    const one = async (seed: number, i: number) => {
      const asked =
        req.onTokens && seeds.length > 1
          ? {
              ...req,
              onTokens: (tokens: number) => {
                received[i] = tokens;
                req.onTokens!(received.reduce((a, b) => a + b, 0));
              },
            }
          : req;
      const send = () => this.ask(asked, n, seed).then((r) => this.checked(r));
      const response = req.patience
        ? await patiently(send, req.patience, refusals, {
            classify: (e) => classifyLlmError(e, this.endpoint.baseURL),
            // A refusal pauses every call the limiter holds until the provider's Retry-After, not just this request.
            refused: (fault, waitMs) => {
              req.onRefused?.(fault.kind);
              if (fault.kind === 'rate-limited') this.limiter.refused(waitMs);
            },
            beforeRetry: () => (this.limiter.limited ? this.limiter.acquire(0, req.signal, 1) : Promise.resolve()),
            ...(req.signal ? { signal: req.signal } : {}),
          })
        : await send();
      answered(seed, response);
    };
    const settled = await Promise.allSettled(seeds.map(one));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** A proxy's error page or a cut-off body can arrive as a 200: it is a fault to retry, not an answer. */
  private checked(response: unknown): OpenAI.ChatCompletion {
    if (!isChatCompletion(response))
      throw new LlmResponseError(`expected a chat completion, got ${this.quoteBodies ? describe(response) : shapeOf(response)}`);
    if (response.choices.length === 0) throw new LlmResponseError('the completion has no choices');
    return response;
  }

  /** What this endpoint has refused of a model so far: learnt from its 400s, kept for the worker's life. */
  private quirksOf(model: string): EndpointQuirks {
    const known = this.quirks.get(model);
    if (known) return known;
    const quirks: EndpointQuirks = {
      maxTokensField: 'max_tokens',
      defaultTemperatureOnly: false,
      oneSamplePerRequest: false,
      textAnswersOnly: false,
      unboundedLists: false,
    };
    this.quirks.set(model, quirks);
    return quirks;
  }

  /** Settings this client adapted to for a model (for `got doctor` and the worker's log). */
  adaptationsOf(model: string): Readonly<EndpointQuirks> {
    return { ...this.quirksOf(model) };
  }

  /**
   * One request; `seed` differs per top-up request, so topped-up samples are new samples, not repeats.
   * A 400 that names a parameter the endpoint does not take (`max_tokens` where it wants
   * `max_completion_tokens`, a temperature other than its default, `n` above 1, a `response_format`)
   * is learnt once per model and the request sent again without it: providers differ, and the run
   * should not fail for it.
   */
  private async ask(req: CompletionRequest, n: number, seed: number): Promise<OpenAI.ChatCompletion> {
    const quirks = this.quirksOf(req.model);
    for (let adapted = 0; ; adapted++) {
      const samples = quirks.oneSamplePerRequest ? 1 : n;
      const body = {
        model: req.model,
        messages: req.messages,
        ...(quirks.oneSamplePerRequest ? {} : { n: samples }),
        ...(quirks.defaultTemperatureOnly ? {} : { temperature: req.temperature }),
        seed,
        ...(req.maxTokens ? { [quirks.maxTokensField]: req.maxTokens } : {}),
        ...(req.responseFormat && !quirks.textAnswersOnly
          ? {
              response_format: {
                type: 'json_schema',
                json_schema: {
                  name: req.responseFormat.name,
                  schema: quirks.unboundedLists ? withoutLengthBounds(req.responseFormat.schema) : req.responseFormat.schema,
                  strict: true,
                },
              },
            }
          : {}),
      } as OpenAI.ChatCompletionCreateParamsNonStreaming;
      try {
        return this.endpoint.stream
          ? await this.streamed(body, req)
          : await this.openai.chat.completions.create(body, {
              signal: req.signal,
              ...(req.requestTimeoutMs ? { timeout: req.requestTimeoutMs } : {}),
            });
      } catch (e) {
        // The JSON parser's message quotes the body's first characters.
        if (e instanceof SyntaxError && !this.quoteBodies) throw new LlmResponseError('a body that is not JSON');
        const refused = adapted < 4 && e instanceof OpenAI.BadRequestError ? refusedParameter(e) : undefined;
        // Decided on what this request sent: calls in flight together may all be refused before one adapts.
        const sent = body as unknown as Record<string, unknown>;
        if (refused === 'max_tokens' && 'max_tokens' in sent) quirks.maxTokensField = 'max_completion_tokens';
        else if (refused === 'temperature' && 'temperature' in sent) quirks.defaultTemperatureOnly = true;
        // The caller tops up the samples this request no longer asks for with further requests.
        else if (refused === 'n' && samples > 1) quirks.oneSamplePerRequest = true;
        // The tasks read free text as well as their JSON, so the answer is asked for as text.
        // A schema refused for its list bounds is asked again without them before it is given up (decision 85).
        else if (refused === 'response_format' && sentBounds(sent) && !quirks.unboundedLists) quirks.unboundedLists = true;
        else if (refused === 'response_format' && 'response_format' in sent) quirks.textAnswersOnly = true;
        else throw e;
      }
    }
  }
  /**
   * One request as a stream, assembled into the completion it stands for. Every chunk counts as
   * progress; a stream silent for `stallMs` is aborted as stalled (retryable), so what times out is a
   * stall, not a long answer.
   */
  private async streamed(body: OpenAI.ChatCompletionCreateParamsNonStreaming, req: CompletionRequest): Promise<OpenAI.ChatCompletion> {
    const stallMs = req.stallMs ?? DEFAULT_STALL_MS;
    const silence = new AbortController();
    let stalled = false;
    const stall = () => {
      stalled = true;
      silence.abort();
    };
    let timer = setTimeout(stall, stallMs);
    const signal = req.signal ? AbortSignal.any([req.signal, silence.signal]) : silence.signal;
    const texts = new Map<number, { content: string; reasoning: string; finish: string | null }>();
    let usage: OpenAI.CompletionUsage | undefined;
    let model = body.model;
    let received = 0;
    try {
      const stream = await this.openai.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal },
      );
      for await (const chunk of stream) {
        clearTimeout(timer);
        timer = setTimeout(stall, stallMs);
        model = chunk.model || model;
        if (chunk.usage) usage = chunk.usage;
        for (const choice of chunk.choices ?? []) {
          const at = texts.get(choice.index) ?? { content: '', reasoning: '', finish: null };
          const delta = choice.delta as { content?: string | null; reasoning_content?: string | null; reasoning?: string | null };
          at.content += delta?.content ?? '';
          at.reasoning += delta?.reasoning_content ?? delta?.reasoning ?? '';
          at.finish = choice.finish_reason ?? at.finish;
          texts.set(choice.index, at);
          if (delta?.content || delta?.reasoning_content || delta?.reasoning) received++;
        }
        req.onTokens?.(received);
      }
    } catch (e) {
      if (!stalled) throw e;
    } finally {
      clearTimeout(timer);
    }
    // A stream aborted for silence may throw or just end: either way a partial answer is not an answer.
    if (stalled) throw new LlmStalledError(`the stream sent nothing for ${Math.round(stallMs / 1000)} s after ${received} tokens`);
    req.signal?.throwIfAborted();
    const choices = [...texts.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, t]) => ({
        index,
        message: {
          role: 'assistant' as const,
          content: t.content,
          refusal: null,
          ...(t.reasoning ? { reasoning_content: t.reasoning } : {}),
        },
        finish_reason: (t.finish ?? 'stop') as OpenAI.ChatCompletion.Choice['finish_reason'],
        logprobs: null,
      }));
    return { id: 'streamed', object: 'chat.completion', created: 0, model, choices, ...(usage ? { usage } : {}) } as OpenAI.ChatCompletion;
  }
}

/** How long a stream may stay silent before it counts as stalled. */
export const DEFAULT_STALL_MS = DEFAULT_STALL_SECONDS * 1000;

/** What an endpoint has been found to refuse, per model. */
export interface EndpointQuirks {
  /** `max_completion_tokens` for endpoints (OpenAI's reasoning models) that refuse `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** The model takes only its default temperature: none is sent. */
  defaultTemperatureOnly: boolean;
  /** `n` above 1 is refused: one sample per request. */
  oneSamplePerRequest: boolean;
  /** `response_format` (structured output) is refused: answers are asked for, and read, as text. */
  textAnswersOnly: boolean;
  /** Answer schemas sent without their list length bounds (`minItems`, `maxItems`), which the endpoint refused. */
  unboundedLists: boolean;
}

/** Whether a request sent a response schema with list length bounds. */
function sentBounds(sent: Record<string, unknown>): boolean {
  const format = sent.response_format as { json_schema?: { schema?: JsonSchema } } | undefined;
  const schema = format?.json_schema?.schema;
  return !!schema && hasLengthBounds(schema);
}

/**
 * The parameter a 400 refuses, from the error's `param` field (OpenAI and most compatible servers)
 * or, where a server leaves it out, from a message that names the parameter as unsupported.
 */
function refusedParameter(
  e: InstanceType<typeof OpenAI.BadRequestError>,
): 'max_tokens' | 'temperature' | 'n' | 'response_format' | undefined {
  const param = typeof e.param === 'string' ? e.param : undefined;
  if (param === 'max_tokens' || param === 'temperature' || param === 'n') return param;
  // `response_format`, or a field of it (`response_format.json_schema.schema`): the schema is not taken.
  if (param?.startsWith('response_format')) return 'response_format';
  const message = e.message.toLowerCase();
  if (
    /response_format|json_schema|structured outputs?/.test(message) &&
    /unsupported|not supported|does not support|only supports|invalid|must be|unknown|not allowed|not permitted|unrecogni[sz]ed/.test(
      message,
    )
  )
    return 'response_format';
  if (!/unsupported|not supported|does not support|only supports|only the default|must be 1|invalid/.test(message)) return undefined;
  if (/\bmax_tokens\b/.test(message)) return 'max_tokens';
  if (/\btemperature\b/.test(message)) return 'temperature';
  if (/['"`]n['"`]|\bn\s*(=|>|must)|\bn parameter\b|multiple (choices|completions)/.test(message)) return 'n';
  return undefined;
}

/** What a call keeps of an answered request: its choices in index order, reasoning apart, and its usage or the texts to count. */
function answeredRequest(seed: number, response: OpenAI.ChatCompletion, model: string): AnsweredRequest {
  // Some compatible servers leave out `index`; their order is then the list's.
  const choices = response.choices
    .map((choice, position) => ({ choice, at: typeof choice.index === 'number' ? choice.index : position }))
    .sort((a, b) => a.at - b.at)
    .map((c) => c.choice);
  const unreported: string[] = [];
  const kept = choices.map((choice) => {
    const message = (choice.message ?? {}) as { content?: string | null; reasoning_content?: unknown; reasoning?: unknown };
    const { answer, reasoning } = splitReasoning(message.content ?? '', message.reasoning_content ?? message.reasoning);
    if (!response.usage) unreported.push(message.content ?? '', reasoning && !(message.content ?? '').includes(reasoning) ? reasoning : '');
    return { text: answer, ...(reasoning !== undefined ? { reasoning } : {}), finish: choice.finish_reason ?? 'unknown' };
  });
  return {
    seed,
    model: response.model || model,
    choices: kept,
    ...(response.usage ? { usage: usageOf(response.usage) } : { unreported }),
  };
}

/** A response's usage, with the prompt tokens its endpoint took from a prompt cache where it says (decision 95). */
function usageOf(usage: OpenAI.CompletionUsage): NonNullable<AnsweredRequest['usage']> {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    ...(cached > 0 ? { cachedPromptTokens: cached } : {}),
  };
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
  return Array.isArray(value)
    ? `an array of ${value.length} items`
    : typeof value === 'object'
      ? `an object with the keys ${Object.keys(value).slice(0, 10).join(', ')}`
      : `a ${typeof value}`;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `text: ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`;
  if (value === null || value === undefined) return 'an empty body';
  const text = JSON.stringify(value) ?? String(value);
  return `${Array.isArray(value) ? 'an array' : typeof value}: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`;
}

/** Prompt tokens plus what the samples may produce (max tokens when set, else as much as the prompt). */
function estimateTokens(req: CompletionRequest, encode: (text: string) => number[]): number {
  const prompt = chatPromptTokens(req.messages, encode);
  return prompt + req.samples * (req.maxTokens ?? prompt);
}
