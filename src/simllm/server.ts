/**
 * A simulated OpenAI-compatible chat completions server for the tests, the demo and the
 * benchmarks, where no real model is reachable. It exists to exercise the machinery (parallel
 * calls, retries, parsing, crash recovery) under realistic shapes of answers and latency; its
 * error rates are a tunable imitation, not a claim about how real models behave.
 *
 * Answers are deterministic: choice i of a request is drawn from a stream seeded by the server
 * seed, the request's seed, the prompt and i, so a replayed request gets the same answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decode, encode } from 'gpt-tokenizer';
import { hashSeed, seededRandom } from '../util/random';
import { recognise } from './responders';

export const SIM_MODEL = 'sim-got-1';

export interface SimLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Fixed delay before each answer. */
  latencyMs?: number;
  /** Extra uniform delay in [0, jitter), seeded. */
  latencyJitterMs?: number;
  /** Extra delay per completion token, summed over the choices. */
  perTokenLatencyMs?: number;
  seed?: number;
}

export interface SimLlmStats {
  /** Chat completion requests received, including rejected ones. */
  requests: number;
  /** Choices answered. */
  completions: number;
  /** Answered requests per prompt kind, e.g. `sorting.sort`. */
  byKind: Record<string, number>;
  /** Chat completion requests being served right now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
}

/** A scripted failure for the next request: an HTTP error, as providers answer them. */
export interface SimFault {
  status: number;
  message?: string;
  /** Sent as the Retry-After header (seconds). */
  retryAfterSeconds?: number;
}

export interface SimulatedLlm {
  /** `http://127.0.0.1:PORT/v1`, ready for `new OpenAI({ baseURL })`. */
  baseURL: string;
  port: number;
  stats(): SimLlmStats;
  resetStats(): void;
  setLatency(ms: number, jitterMs?: number): void;
  /** Scripts the next chat completion requests, one entry each, in order: a fault, or 'pass' to answer normally. */
  injectFaults(faults: (SimFault | 'pass')[]): void;
  close(): Promise<void>;
}

interface ChatBody {
  model?: string;
  messages: { role: string; content: unknown }[];
  n?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  seed?: number;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : '';

function parseBody(raw: string): ChatBody {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new RequestError(400, 'The request body is not valid JSON.');
  }
  const b = body as Partial<ChatBody> | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.messages) || b.messages.length === 0) {
    throw new RequestError(400, "'messages' must be a non-empty array.");
  }
  if (b.n !== undefined && (!Number.isInteger(b.n) || b.n < 1 || b.n > 128)) {
    throw new RequestError(400, "'n' must be an integer from 1 to 128.");
  }
  return b as ChatBody;
}

// Close to OpenAI's accounting: a few tokens of framing per message around the contents.
const promptTokens = (messages: ChatBody['messages']) =>
  messages.reduce((sum, m) => sum + 3 + encode(textOf(m.content)).length, 3);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startSimulatedLlm(opts: SimLlmOptions = {}): Promise<SimulatedLlm> {
  const seed = opts.seed ?? 0;
  const perTokenMs = opts.perTokenLatencyMs ?? 0;
  let latencyMs = opts.latencyMs ?? 0;
  let jitterMs = opts.latencyJitterMs ?? 0;
  const jitter = seededRandom(hashSeed(seed, 'latency'));
  // inFlight lives outside the resettable counters: a reset must not forget requests still running.
  let inFlight = 0;
  const fresh = () => ({ requests: 0, completions: 0, byKind: {} as Record<string, number>, maxInFlight: inFlight });
  let stats = fresh();
  const faults: (SimFault | 'pass')[] = [];
  const snapshot = (): SimLlmStats => ({ ...structuredClone(stats), inFlight });

  async function complete(req: IncomingMessage) {
    const body = parseBody(await readBody(req));
    const prompt = textOf(body.messages.filter((m) => m.role === 'user').at(-1)?.content);
    const recognised = recognise(prompt);
    if (!recognised) {
      throw new RequestError(400, 'The simulated LLM does not understand this prompt: it answers only the prompts of the tasks it simulates.');
    }
    const maxTokens = body.max_completion_tokens ?? body.max_tokens;
    const choices = Array.from({ length: body.n ?? 1 }, (_, index) => {
      const tokens = encode(recognised.answer(seededRandom(hashSeed(seed, body.seed ?? 0, prompt, index))));
      const truncated = maxTokens !== undefined && tokens.length > maxTokens;
      const kept = truncated ? tokens.slice(0, maxTokens) : tokens;
      return {
        choice: {
          index,
          message: { role: 'assistant', content: decode(kept), refusal: null },
          logprobs: null,
          finish_reason: truncated ? 'length' : 'stop',
        },
        tokens: kept.length,
      };
    });
    const completionTokens = choices.reduce((sum, c) => sum + c.tokens, 0);
    await sleep(latencyMs + jitter() * jitterMs + perTokenMs * completionTokens);
    stats.completions += choices.length;
    stats.byKind[recognised.kind] = (stats.byKind[recognised.kind] ?? 0) + 1;
    const usage = { prompt_tokens: promptTokens(body.messages), completion_tokens: completionTokens };
    return {
      id: `chatcmpl-sim-${hashSeed(seed, body.seed ?? 0, prompt).toString(16)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? SIM_MODEL,
      choices: choices.map((c) => c.choice),
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: SIM_MODEL, object: 'model', created: 0, owned_by: 'durable-got' }] });
    }
    if (req.method === 'GET' && path === '/stats') return sendJson(res, 200, snapshot());
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      throw new RequestError(404, `Unknown endpoint ${req.method} ${path}.`);
    }
    stats.requests++;
    const fault = faults.shift();
    if (fault && fault !== 'pass') {
      await readBody(req);
      throw new RequestError(fault.status, fault.message ?? `simulated fault ${fault.status}`, fault.status >= 500 ? 'server_error' : 'invalid_request_error', fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) });
    }
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    try {
      sendJson(res, 200, await complete(req));
    } finally {
      inFlight--;
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof RequestError ? err.status : 500;
      const type = err instanceof RequestError ? err.type : 'server_error';
      const headers = err instanceof RequestError ? err.headers : {};
      if (!res.headersSent) sendJson(res, status, { error: { message: String((err as Error)?.message ?? err), type, code: null } }, headers);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    stats: snapshot,
    resetStats: () => {
      stats = fresh();
    },
    injectFaults: (more) => {
      faults.push(...more);
    },
    setLatency: (ms, jitter = 0) => {
      latencyMs = ms;
      jitterMs = jitter;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets of clients would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
