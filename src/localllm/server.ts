/**
 * A real model served as an OpenAI-compatible chat completions endpoint, in process, on the CPU,
 * through node-llama-cpp's prebuilt llama.cpp (decision 19).
 *
 * One llama.cpp context holds several sequences, shared by the requests: a request waits for one,
 * reads its prompt there once, copies it to as many free sequences as its `n` can use (up to
 * `batch`), and decodes its choices together, one token of each per step, in the same llama.cpp
 * batches as any other request's (batch.ts). A prompt starts from the longest prefix of it a free
 * sequence still holds (prefix-cache.ts), and tokens may be predicted ahead
 * (prediction.ts). A `response_format` is enforced by a grammar while generating (grammar.ts), and
 * answers go out in OpenAI's shapes (respond.ts). A client that goes away stops its generation and
 * frees its sequences.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import {
  type ChatHistoryItem,
  type ChatWrapper,
  getLlama,
  LlamaChat,
  type LlamaContextSequence,
  type LlamaGrammar,
  LlamaLogLevel,
  type LlamaModel,
  resolveChatWrapper,
  type Token,
} from 'node-llama-cpp';
import { generateChoices, type PromptSharing, promptSharing } from './batch';
import { LOCAL_LLM_DEFAULTS } from './defaults';
import { Grammars } from './grammar';
import { PromptPace } from './pace';
import { SlotPool } from './pool';
import { type InputLookup, type Prediction, type PredictionStats, predictingSequences } from './prediction';
import { type ChatMessage, type ChatRequest, OpenAiError, parseChatRequest } from './request';
import { type Choice, type ChoiceListener, readBody, sendJson, streamCompletion, usageOf } from './respond';
import { bytesPerSequence, planSequences } from './sequences';

/** How to serve: which model, where, and how many requests at once. */
export interface LocalLlmOptions {
  /** The GGUF file to serve (see `ensureLocalModel`). */
  modelPath: string;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** 0 picks a free port (default 8001). */
  port?: number;
  /** Tokens per sequence, prompt and answer together (default 2048; a built-in model's own is in models.ts). */
  contextSize?: number;
  /** Requests served at once even while one of them decodes a full batch, each on a sequence of its own (default 2). */
  parallel?: number;
  /** Samples of one request decoded together at most (default 10); 1 generates them one after another. */
  batch?: number;
  /** KV cache memory of all sequences together, in MiB (default 2048); fewer sequences are made to fit. */
  kvCacheMb?: number;
  /** 'evaluate' reads the prompt on each sequence of a batch instead of copying it (for measurements; default: copy when possible). */
  promptSharing?: PromptSharing;
  /** CPU threads for llama.cpp (default 1). */
  threads?: number;
  /** Whether prompts start from the longest prefix a free sequence holds (default true); false reads every prompt in full. */
  prefixCache?: boolean;
  /** How tokens are predicted ahead (default 'off'); 'draft' needs `draftModelPath`. */
  prediction?: Prediction;
  /** The GGUF file of a smaller model with the same tokenizer, drafting for `prediction: 'draft'`. */
  draftModelPath?: string;
  /** Input lookup's lengths (for measurements; default in defaults.ts). */
  inputLookup?: InputLookup;
  log?: (line: string) => void;
}

/** What the server is doing, for tests and `GET /stats`. */
export interface LocalLlmStats {
  /** Chat completion requests received, including refused ones. */
  requests: number;
  /** Requests answered in full. */
  completed: number;
  /** Requests whose client went away before the answer was done. */
  cancelled: number;
  /** Sequences generating right now, and requests waiting for one. */
  activeSequences: number;
  waiting: number;
  /** Completion tokens generated so far, counted as they come out (cancelled requests included). */
  completionTokens: number;
  /** Prompt tokens of the requests that reached a sequence, and how many of them were taken from the prefix cache rather than read. */
  promptTokens: number;
  cachedPromptTokens: number;
  /** Tokens predicted ahead that the model agreed with, and that it did not. */
  predictions: PredictionStats;
}

/** A running local model server. */
export interface LocalLlm {
  /** `http://HOST:PORT/v1`, ready for `new OpenAI({ baseURL })`. */
  baseURL: string;
  port: number;
  /** The model's id in responses and `GET /v1/models`: the file name without `.gguf`. */
  model: string;
  /** Tokens per sequence, as llama.cpp made it (it may round the requested size up). */
  contextSize: number;
  /** Sequences in the context, shared by all requests. */
  sequences: number;
  /** Samples of one request decoded together at most. */
  batch: number;
  /** How a request's further sequences get its prompt: a copy of the first one's KV cache, or read again. */
  promptSharing: PromptSharing;
  /** Whether prompts start from cached prefixes, and how tokens are predicted ahead. */
  prefixCache: boolean;
  prediction: Prediction;
  /** Time to load the model and create its context. */
  loadMs: number;
  stats(): LocalLlmStats;
  /** Generates a short fixed answer on a free sequence and times it (waits for a sequence like a request does). */
  measureSpeed(opts?: { maxTokens?: number }): Promise<SpeedSample>;
  close(): Promise<void>;
}

/** How fast the model read a prompt and generated an answer, measured on this machine just now. */
export interface SpeedSample {
  promptTokens: number;
  /** From the start to the first generated token: reading the prompt. */
  promptMs: number;
  completionTokens: number;
  /** From the first generated token to the last. */
  generationMs: number;
  /** Generated tokens per second after the first one (the speed at which an answer streams). */
  tokensPerSecond: number;
  /** Prompt tokens read per second. */
  promptTokensPerSecond: number;
}

/** A prompt whose answer is long and predictable, so a speed measurement is not cut short by an early stop. */
const SPEED_PROMPT = 'Count from 1 to 200 in words, separated by commas.';

/** Raised inside a generation when its client went away. */
class ClientGone extends Error {
  override readonly name = 'ClientGone';
}

/** A request's prompt: the chat history LlamaChat formats, and the tokens that formatting comes to. */
interface Prompt {
  history: ChatHistoryItem[];
  tokens: Token[];
}

/** Loads the model and serves it until `close()`. */
export async function startLocalLlm(opts: LocalLlmOptions): Promise<LocalLlm> {
  const log = opts.log ?? (() => {});
  const threads = opts.threads ?? LOCAL_LLM_DEFAULTS.threads;
  const parallel = opts.parallel ?? LOCAL_LLM_DEFAULTS.parallel;
  const requestedContextSize = opts.contextSize ?? LOCAL_LLM_DEFAULTS.contextSize;
  const startedAt = Date.now();
  // build: 'never' — only the prebuilt binary from npm is used: no download, no compiler at run time.
  const llama = await getLlama({ gpu: false, build: 'never', maxThreads: threads, logLevel: LlamaLogLevel.error, progressLogs: false });
  const model = await llama.loadModel({ modelPath: opts.modelPath });
  const plan = planSequences({
    parallel,
    batch: opts.batch ?? LOCAL_LLM_DEFAULTS.batch,
    bytesPerSequence: await bytesPerSequence(model, requestedContextSize),
    budgetBytes: (opts.kvCacheMb ?? LOCAL_LLM_DEFAULTS.kvCacheMb) * 2 ** 20,
  });
  const context = await model.createContext({ contextSize: requestedContextSize, sequences: plan.sequences, threads });
  const prediction = opts.prediction ?? LOCAL_LLM_DEFAULTS.prediction;
  const predicting = await predictingSequences({
    llama,
    context,
    count: plan.sequences,
    prediction,
    threads,
    ...(opts.draftModelPath !== undefined && { draftModelPath: opts.draftModelPath }),
    ...(opts.inputLookup && { inputLookup: opts.inputLookup }),
  });
  const { sequences } = predicting;
  const prefixCache = opts.prefixCache ?? LOCAL_LLM_DEFAULTS.prefixCache;
  const pool = new SlotPool(sequences);
  // How fast prompts are read here, from the requests served: a streamed answer's first-token deadline.
  const pace = new PromptPace();
  const sharing = opts.promptSharing === 'evaluate' ? 'evaluate' : promptSharing(sequences[0]!);
  const grammars = new Grammars(llama);
  const chatWrapper = modelChatWrapper(model);
  const contextSize = sequences[0]!.contextSize;
  const loadMs = Date.now() - startedAt;
  const modelId = basename(opts.modelPath).replace(/\.gguf$/i, '');

  const counters = { requests: 0, completed: 0, cancelled: 0, completionTokens: 0, promptTokens: 0, cachedPromptTokens: 0 };
  const stats = (): LocalLlmStats => ({
    ...counters,
    activeSequences: pool.active,
    waiting: pool.waiting,
    predictions: predicting.stats(),
  });
  const running = new Set<AbortController>();
  const handling = new Set<Promise<void>>();

  /** The choices of a request, decoded together on borrowed sequences (batch.ts). */
  async function generate(
    req: ChatRequest,
    prompt: Prompt,
    grammar: LlamaGrammar | undefined,
    signal: AbortSignal,
    listener?: ChoiceListener,
    onPromptRead?: (cachedTokens: number) => void,
  ): Promise<Choice[]> {
    const room = contextSize - prompt.tokens.length;
    // Asking for more than the context holds is answered with as much as fits, marked `length`.
    const maxTokens = Math.min(req.maxTokens ?? room, room);
    return generateChoices({
      pool,
      promptTokens: prompt.tokens,
      n: req.n,
      maxSequences: plan.batch,
      sharing,
      ...(prefixCache && { prefixCache: { minTokens: LOCAL_LLM_DEFAULTS.prefixCacheMinTokens } }),
      onPromptRead: (cachedTokens) => {
        counters.promptTokens += prompt.tokens.length;
        counters.cachedPromptTokens += cachedTokens;
        onPromptRead?.(cachedTokens);
      },
      signal,
      generate: (sequence, index, stop) =>
        generateChoice(sequence, prompt.history, {
          req,
          index,
          maxTokens,
          signal: stop,
          ...(grammar && { grammar }),
          ...(listener && { onText: (text: string) => listener.text(index, text) }),
        }),
      ...(listener && { onChoice: (index: number, choice: Choice) => listener.done(index, choice) }),
    });
  }

  async function generateChoice(
    sequence: LlamaContextSequence,
    history: ChatHistoryItem[],
    o: {
      req: ChatRequest;
      index: number;
      maxTokens: number;
      signal: AbortSignal;
      grammar?: LlamaGrammar;
      onText?: (text: string) => void;
    },
  ): Promise<Choice> {
    const { req, index } = o;
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
    // Counted as they come: the sequence's token meter also counts predicted tokens the model refuted.
    let completionTokens = 0;
    try {
      const result = await chat.generateResponse(history, {
        maxTokens: o.maxTokens,
        temperature: req.temperature,
        ...(req.topP !== undefined && { topP: req.topP }),
        // Each choice gets a seed of its own: with one seed, n samples would all be the same text.
        ...(req.seed !== undefined && { seed: (req.seed + index) >>> 0 }),
        ...(req.stop.length > 0 && { customStopTriggers: req.stop }),
        ...(o.grammar && { grammar: o.grammar }),
        signal: o.signal,
        stopOnAbortSignal: false,
        ...(o.onText && { onTextChunk: o.onText }),
        onToken: (tokens) => {
          completionTokens += tokens.length;
          counters.completionTokens += tokens.length;
        },
      });
      return {
        text: result.response,
        finishReason: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
        completionTokens,
      };
    } finally {
      chat.dispose({ disposeSequence: false });
    }
  }

  /** The prompt as the model sees it (its chat template applied), and in the model's tokens. */
  function preparePrompt(messages: ChatMessage[]): Prompt {
    const history: ChatHistoryItem[] = [
      ...messages.map(
        (m): ChatHistoryItem => (m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content }),
      ),
      { type: 'model', response: [] },
    ];
    const { contextText } = chatWrapper.generateContextState({ chatHistory: history });
    return { history, tokens: contextText.tokenize(model.tokenizer) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      // `context_length` as OpenRouter and Together name it: `got doctor` reads it to plan runs for the window served.
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: modelId, object: 'model', created: 0, owned_by: 'durable-got', context_length: contextSize }],
      });
    }
    if (req.method === 'GET' && path === '/stats') return sendJson(res, 200, stats());
    if (req.method !== 'POST' || path !== '/v1/chat/completions') throw new OpenAiError(404, `Unknown endpoint ${req.method} ${path}.`);
    counters.requests++;

    const request = parseChatRequest(await readBody(req));
    const prompt = preparePrompt(request.messages);
    const promptTokens = prompt.tokens.length;
    if (promptTokens >= contextSize) {
      throw new OpenAiError(
        400,
        `This model's maximum context length is ${contextSize} tokens, but the messages come to ${promptTokens} tokens, leaving no room for an answer. Shorten the messages.`,
        'messages',
        'context_length_exceeded',
      );
    }

    const grammar = await grammars.for(request.responseFormat);

    const controller = new AbortController();
    running.add(controller);
    // 'close' on the response also fires after a normal end; only an unfinished one means the client left.
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new ClientGone('The client went away.'));
    });
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    let cachedTokens = 0;
    const heard = (cached: number) => {
      cachedTokens = cached;
    };
    const usage = (choices: Choice[]) => usageOf(promptTokens, cachedTokens, choices);
    try {
      if (request.stream) {
        await streamCompletion(
          res,
          { id, created, model: modelId },
          request,
          usage,
          (listener) => generate(request, prompt, grammar, controller.signal, listener, heard),
          // The tokens read, not those taken from the cache, are what the pace measures.
          { withinMs: pace.firstTokenWithinMs(promptTokens), came: (ms) => pace.observe(promptTokens - cachedTokens, ms) },
        );
      } else {
        const choices = await generate(request, prompt, grammar, controller.signal, undefined, heard);
        sendJson(res, 200, {
          id,
          object: 'chat.completion',
          created,
          model: modelId,
          choices: choices.map((c, index) => ({
            index,
            message: { role: 'assistant', content: c.text, refusal: null },
            logprobs: null,
            finish_reason: c.finishReason,
          })),
          usage: usage(choices),
        });
      }
      counters.completed++;
    } catch (error) {
      if (controller.signal.aborted) {
        counters.cancelled++;
        return;
      }
      throw error;
    } finally {
      running.delete(controller);
    }
  }

  const server = createServer((req, res) => {
    const handled = handle(req, res).catch((error: unknown) => {
      const failure =
        error instanceof OpenAiError
          ? error
          : new OpenAiError(500, `The local model failed: ${error instanceof Error ? error.message : String(error)}`);
      if (failure.status >= 500) log(failure.message);
      if (res.destroyed) return;
      if (!res.headersSent) sendJson(res, failure.status, failure.body());
      else res.end(`data: ${JSON.stringify(failure.body())}\n\n`); // mid-stream: OpenAI's clients read an error event
    });
    handling.add(handled);
    void handled.finally(() => handling.delete(handled));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? LOCAL_LLM_DEFAULTS.port, opts.host ?? LOCAL_LLM_DEFAULTS.host, () => resolve());
    });
  } catch (error) {
    await llama.dispose(); // e.g. the port is taken: the model's memory is not kept for nothing
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(
        `Port ${opts.port ?? LOCAL_LLM_DEFAULTS.port} on ${opts.host ?? LOCAL_LLM_DEFAULTS.host} is taken (another local-llm?): choose another with --port.`,
      );
    }
    throw error;
  }
  async function measureSpeed(o: { maxTokens?: number } = {}): Promise<SpeedSample> {
    const prompt = preparePrompt([{ role: 'user', content: SPEED_PROMPT }]);
    const promptTokens = prompt.tokens.length;
    // The least recently used sequence: the cached prompts most likely wanted again stay.
    const sequence = await pool.acquire(undefined, () => 0);
    let chat: LlamaChat | undefined;
    const startedAt = performance.now();
    let firstAt: number | undefined;
    let lastAt = startedAt;
    let firstTokens = 0;
    let tokens = 0;
    try {
      chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
      await chat.generateResponse(prompt.history, {
        maxTokens: o.maxTokens ?? 32,
        temperature: 0,
        onToken: (chunk) => {
          lastAt = performance.now();
          tokens += chunk.length;
          if (firstAt === undefined) {
            firstAt = lastAt;
            firstTokens = chunk.length;
          }
        },
      });
    } finally {
      chat?.dispose({ disposeSequence: false });
      // The next request starts on a clean sequence, as if this one had never run.
      await sequence.clearHistory().catch(() => {});
      pool.release(sequence);
    }
    const promptMs = (firstAt ?? lastAt) - startedAt;
    const generationMs = lastAt - (firstAt ?? lastAt);
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      promptTokens,
      promptMs: Math.round(promptMs),
      completionTokens: tokens,
      generationMs: Math.round(generationMs),
      tokensPerSecond: generationMs > 0 ? round(((tokens - firstTokens) / generationMs) * 1000) : 0,
      promptTokensPerSecond: promptMs > 0 ? round((promptTokens / promptMs) * 1000) : 0,
    };
  }

  const { port } = server.address() as AddressInfo;
  const host = opts.host ?? LOCAL_LLM_DEFAULTS.host;
  log(
    `Loaded ${modelId} in ${(loadMs / 1000).toFixed(1)}s: ${plan.sequences} sequences of ${contextSize} tokens ` +
      `(${Math.round((plan.sequences * plan.bytesPerSequence) / 2 ** 20)} MiB of KV cache; up to ${plan.batch} samples of a prompt decoded together), ${threads} thread(s); ` +
      `prefix cache ${prefixCache ? `on (up to ${plan.sequences} prompts kept)` : 'off'}, prediction ${prediction}.`,
  );

  return {
    baseURL: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/v1`,
    port,
    model: modelId,
    contextSize,
    sequences: plan.sequences,
    batch: plan.batch,
    promptSharing: sharing,
    prefixCache,
    prediction,
    loadMs,
    stats,
    measureSpeed,
    async close() {
      for (const controller of running) controller.abort(new ClientGone('The server is closing.'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Generations unwind (and give their sequences back) before the context goes away under them.
      await Promise.allSettled([...handling]);
      await context.dispose();
      await predicting.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

/**
 * The model's own chat template (the Jinja template in its GGUF) when it has one. node-llama-cpp
 * would otherwise swap in a built-in wrapper it deems equivalent, and for SmolLM2 that one drops the
 * default system prompt the model was trained with and adds a second `<|im_start|>`.
 */
function modelChatWrapper(model: LlamaModel): ChatWrapper {
  const template = model.fileInfo.metadata?.tokenizer?.chat_template;
  if (typeof template !== 'string') return resolveChatWrapper(model);
  return (
    resolveChatWrapper({
      type: 'jinjaTemplate',
      bosString: model.tokens.bosString,
      filename: model.filename,
      fileInfo: model.fileInfo,
      tokenizer: model.tokenizer,
    }) ?? resolveChatWrapper(model)
  );
}
