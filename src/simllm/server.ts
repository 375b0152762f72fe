/**
 * A simulated OpenAI-compatible chat completions server for the tests, the demo and the
 * benchmarks, where no real model is reachable. It exists to exercise the machinery (parallel
 * calls, retries, parsing, crash recovery) under realistic shapes of answers and latency; its
 * error rates are a tunable imitation, not a claim about how real models behave.
 *
 * Answers are deterministic: choice i of a request is drawn from a stream seeded by the server
 * seed, the request's seed, the prompt and i, so a replayed request gets the same answers.
 *
 * Faults (`./faults`), scripted per request or drawn at seeded random rates, imitate what real
 * endpoints do wrong: error statuses with Retry-After, resets, answers slower than any timeout,
 * garbage bodies, and empty, truncated, unparseable or refused answers. A retried request gets the
 * answers it would have got without the fault, so a run with faults ends as a run without them.
 *
 * Per-minute limits (`./quota`), when set, refuse what exceeds an account's quota with OpenAI's 429.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RateLimits, TokenBuckets } from '../limits/buckets';
import { SIMULATED_MODEL } from '../run/wire';
import { hashSeed, seededRandom } from '../util/random';
import {
  type AnswerFault,
  applyAnswerFault,
  DEFAULT_GARBAGE,
  DEFAULT_SLOW_MS,
  errorBody,
  FaultPlan,
  faultLabel,
  isAnswerFault,
  isStatusFault,
  type SimChoice,
  type SimFault,
  type SimFaultRateOptions,
  type SimFaultRates,
} from './faults';
import { checkedLimits, quotaRefusal } from './quota';
import { recognise, type SimSettings } from './responders';
import { inSchema, requestedSchema } from './structured';

export type { RateLimits } from '../limits/buckets';
export type { AnswerFault, HttpFault, SimFault, SimFaultRateOptions, SimFaultRates } from './faults';
export type { SimSettings } from './responders';

/** The environment variable that sets the invention share of a simulator the CLI starts (`got sim-llm --invent`, `got run`). */
export const INVENT_SHARE_ENV = 'GOT_SIM_INVENT';

/** An invention share from its text (a flag's or an environment variable's value), checked to lie in [0, 1]. */
export function parseInventShare(text: string, from: string = INVENT_SHARE_ENV): number {
  const share = Number(text);
  if (text.trim() === '' || !(share >= 0 && share <= 1)) throw new RangeError(`${from} must be a share from 0 to 1, got "${text}"`);
  return share;
}

/** The invention share set in the environment, 0 when unset. */
export const inventShareFromEnv = (env: NodeJS.ProcessEnv = process.env): number =>
  env[INVENT_SHARE_ENV] ? parseInventShare(env[INVENT_SHARE_ENV]!) : 0;

/** The model name the simulator answers as. */
export const SIM_MODEL = SIMULATED_MODEL;

export interface SimLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Interface to listen on; 127.0.0.1 unless serving other machines (e.g. in docker-compose: 0.0.0.0). */
  host?: string;
  /**
   * How long each request takes, from its arrival to its answer (the simulator's own work included,
   * as a remote model's latency would): the benchmarks count on it being exact.
   */
  latencyMs?: number;
  /** Extra uniform delay in [0, jitter), seeded. */
  latencyJitterMs?: number;
  /** Extra delay per completion token, summed over the choices. */
  perTokenLatencyMs?: number;
  seed?: number;
  /** Random faults from the start (see `setFaultRates`). */
  faults?: { rates: SimFaultRates; seed?: number } & SimFaultRateOptions;
  /**
   * Document merging: chance per merged paragraph of an added sentence that no source has (default
   * 0), so provenance checks have clauses known to be invented; drawn from a stream of its own, so
   * at 0 every answer is what it always was.
   */
  inventShare?: number;
  /**
   * A provider's per-minute quota: a request that does not fit (one request, and its prompt tokens
   * plus `n` × its max tokens, as the engine's client estimates a call) gets a 429 with Retry-After.
   */
  limits?: RateLimits;
  /**
   * The most choices one request may ask for: a request with a larger `n` is refused with a 400
   * naming `n`, as providers and reasoning models that serve one choice per request do.
   */
  maxChoices?: number;
}

export interface SimLlmStats {
  /** Chat completion requests received, including rejected and faulted ones. */
  requests: number;
  /**
   * Choices answered (and paid for). A request failed by an HTTP-level fault (status, reset, a slow
   * answer the client gave up on, garbage) answers none; an answer-level fault still answers its choices.
   */
  completions: number;
  /** Faults injected, by status code ("429") or kind ("reset", "slow", "empty"...). */
  faults: Record<string, number>;
  /** Requests refused with a 429 by the per-minute limits (injected 429s count among `faults`). */
  rateLimited: number;
  /** Prompt and completion tokens of the answered requests. */
  tokensServed: number;
  /** Answered requests per prompt kind, e.g. `sorting.sort`. */
  byKind: Record<string, number>;
  /** Chat completion requests being served right now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
}

/** One chat completion request as the server saw it, in arrival order. */
export interface SimRequestRecord {
  /** Arrival time (ms since epoch). */
  at: number;
  /** The prompt kind, once recognised (e.g. `sorting.split`). */
  kind?: string;
  /** The request's seed, as sent by the client. */
  seed?: number;
  /** The injected fault's label, if any ("429", "reset", "truncated"...). */
  fault?: string;
  /** How it ended: answered, failed with an HTTP status, reset, or abandoned by the client. */
  outcome?: 'answered' | 'status' | 'reset' | 'garbage' | 'abandoned';
  /** Refused by the per-minute limits (its outcome is 'status', a 429). */
  limited?: boolean;
  /** Prompt and completion tokens of an answered request. */
  tokens?: number;
  /** When it ended (ms since epoch). */
  endedAt?: number;
  /** SHA-256 (hex) of the Authorization header: which key came, without the simulator keeping it. */
  authorizationSha256?: string;
}

export interface SimulatedLlm {
  /** `http://127.0.0.1:PORT/v1`, ready for `new OpenAI({ baseURL })`. */
  baseURL: string;
  port: number;
  stats(): SimLlmStats;
  resetStats(): void;
  setLatency(ms: number, jitterMs?: number): void;
  /** Sets the invention share of document merges (see `SimLlmOptions.inventShare`). */
  setInventShare(share: number): void;
  /**
   * Scripts the next chat completion requests, one entry each, in order: a fault, or 'pass' to
   * answer normally. Scripted faults come before random ones.
   */
  injectFaults(faults: (SimFault | 'pass')[]): void;
  /**
   * Faults at random, per request, drawn from a stream of their own seeded by `seed` (answers stay
   * those of a fault-free server); `undefined` turns them off.
   */
  setFaultRates(rates: SimFaultRates | undefined, seed?: number, options?: SimFaultRateOptions): void;
  /** Drops scripted faults not yet used and the random rates. */
  clearFaults(): void;
  /** Enforces these per-minute limits from now on, with full buckets (see `SimLlmOptions.limits`); undefined lifts them. */
  setLimits(limits: RateLimits | undefined): void;
  /** Scripted faults not yet used. */
  pendingFaults(): number;
  /** Every chat completion request since the last `resetStats`, in arrival order. */
  requestLog(): SimRequestRecord[];
  close(): Promise<void>;
}

interface ChatBody {
  model?: string;
  messages: { role: string; content: unknown }[];
  n?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  seed?: number;
  response_format?: unknown;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly headers: Record<string, string> = {},
    readonly code: string | null = null,
    readonly param: string | null = null,
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

// The tokenizer's tables take ~0.3 s of CPU to load. The server starts loading them as it starts,
// without waiting: a process that starts a worker next (the CLI) does both at once.
type Tokenizer = typeof import('gpt-tokenizer');
let tokenizer: Promise<Tokenizer> | undefined;
const loadTokenizer = () => (tokenizer ??= import('gpt-tokenizer'));

// Close to OpenAI's accounting: a few tokens of framing per message around the contents.
const promptTokens = (messages: ChatBody['messages'], encode: Tokenizer['encode']) =>
  messages.reduce((sum, m) => sum + 3 + encode(textOf(m.content)).length, 3);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Notes what a request asks (its prompt kind and seed) in the log, whatever happens to it next. */
function noteRequest(record: SimRequestRecord, raw: string): void {
  try {
    const body = JSON.parse(raw) as Partial<ChatBody>;
    if (typeof body.seed === 'number') record.seed = body.seed;
    const prompt = textOf(body.messages?.filter((m) => m.role === 'user').at(-1)?.content);
    const kind = recognise(prompt)?.kind;
    if (kind) record.kind = kind;
  } catch {
    // Not JSON: parseBody answers it with a 400.
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

/** Waits `ms`, or less if the client hangs up; true when the client is still there. */
function waitUnlessGone(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (stillThere: boolean) => {
      clearTimeout(timer);
      res.off('close', gone);
      resolve(stillThere);
    };
    const gone = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    res.once('close', gone);
  });
}

function checkedShare(share: number): number {
  if (!(share >= 0 && share <= 1)) throw new RangeError(`inventShare must be in [0, 1], got ${share}`);
  return share;
}

export async function startSimulatedLlm(opts: SimLlmOptions = {}): Promise<SimulatedLlm> {
  loadTokenizer().catch(() => undefined); // a failure surfaces with the first request that needs it
  const seed = opts.seed ?? 0;
  const perTokenMs = opts.perTokenLatencyMs ?? 0;
  let latencyMs = opts.latencyMs ?? 0;
  const settings: SimSettings = { inventShare: checkedShare(opts.inventShare ?? 0) };
  let jitterMs = opts.latencyJitterMs ?? 0;
  const jitter = seededRandom(hashSeed(seed, 'latency'));
  // inFlight lives outside the resettable counters: a reset must not forget requests still running.
  let inFlight = 0;
  const fresh = () => ({
    requests: 0,
    completions: 0,
    faults: {} as Record<string, number>,
    rateLimited: 0,
    tokensServed: 0,
    byKind: {} as Record<string, number>,
    maxInFlight: inFlight,
  });
  let stats = fresh();
  let log: SimRequestRecord[] = [];
  const plan = new FaultPlan();
  const bucketsFor = (limits: RateLimits | undefined) => {
    const checked = checkedLimits(limits);
    return checked && new TokenBuckets(checked, Date.now());
  };
  let buckets = bucketsFor(opts.limits);
  if (opts.faults) plan.setRates(opts.faults.rates, opts.faults.seed, opts.faults);
  const snapshot = (): SimLlmStats => ({ ...structuredClone(stats), inFlight });
  const countFault = (f: SimFault) => {
    const label = faultLabel(f);
    stats.faults[label] = (stats.faults[label] ?? 0) + 1;
  };

  /** The completion for a parsed request; undefined when the client hung up before it was ready (nothing is counted then). */
  async function complete(
    body: ChatBody,
    res: ServerResponse,
    o: { fault: AnswerFault | undefined; arrivedAt: number; promptTokens: number },
  ) {
    const { fault, arrivedAt } = o;
    const { encode, decode } = await loadTokenizer();
    const prompt = textOf(body.messages.filter((m) => m.role === 'user').at(-1)?.content);
    const recognised = recognise(prompt);
    if (!recognised) {
      throw new RequestError(
        400,
        'The simulated LLM does not understand this prompt: it answers only the prompts of the tasks it simulates.',
      );
    }
    const maxTokens = body.max_completion_tokens ?? body.max_tokens;
    const n = body.n ?? 1;
    const faulted = fault ? (fault.choice ?? 0) % n : -1;
    const schema = requestedSchema(body);
    const choices = Array.from({ length: n }, (_, index) => {
      const side = seededRandom(hashSeed(seed, body.seed ?? 0, prompt, index, 'side'));
      const text = recognised.answer(seededRandom(hashSeed(seed, body.seed ?? 0, prompt, index)), { settings: { ...settings }, side });
      // Asked for a schema, the same answer comes as its JSON (decision 65); what does not fit stays text.
      const tokens = encode((schema && inSchema(text, schema)) ?? text);
      const truncated = maxTokens !== undefined && tokens.length > maxTokens;
      const kept = truncated ? tokens.slice(0, maxTokens) : tokens;
      const choice: SimChoice = {
        index,
        message: { role: 'assistant', content: decode(kept), refusal: null },
        logprobs: null,
        finish_reason: truncated ? 'length' : 'stop',
      };
      return index === faulted ? applyAnswerFault(fault!, choice, kept, decode, encode) : { choice, tokens: kept.length };
    });
    const completionTokens = choices.reduce((sum, c) => sum + c.tokens, 0);
    const usage = { prompt_tokens: o.promptTokens, completion_tokens: completionTokens };
    const answerAt = arrivedAt + latencyMs + jitter() * jitterMs + perTokenMs * completionTokens;
    if (!(await waitUnlessGone(res, Math.max(0, answerAt - Date.now())))) return undefined;
    if (fault) countFault(fault);
    stats.completions += choices.length;
    stats.byKind[recognised.kind] = (stats.byKind[recognised.kind] ?? 0) + 1;
    return {
      id: `chatcmpl-sim-${hashSeed(seed, body.seed ?? 0, prompt).toString(16)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? SIM_MODEL,
      choices: choices.map((c) => c.choice),
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    };
  }

  /**
   * Charges the limits for a request; a 429 when it does not fit. Returns how to settle the
   * reservation once its real usage is known (on the buckets it was taken from, even if replaced since).
   */
  function charge(record: SimRequestRecord, requested: number): (used: number) => void {
    const from = buckets;
    if (!from) return () => undefined;
    const now = Date.now();
    if (from.tryTake(requested, now)) return (used) => from.settle(requested, used);
    const refusal = quotaRefusal(from, requested, now);
    stats.rateLimited++;
    record.limited = true;
    // A fault drawn for this request was never applied: the quota refused it first.
    delete record.fault;
    throw new RequestError(429, refusal.message, refusal.type, refusal.headers, 'rate_limit_exceeded');
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: SIM_MODEL, object: 'model', created: 0, owned_by: 'durable-got' }] });
    }
    if (req.method === 'GET' && path === '/stats') return sendJson(res, 200, snapshot());
    // Every request's arrival and end, for benchmarks that place a run's calls on a time line.
    if (req.method === 'GET' && path === '/requests') return sendJson(res, 200, log);
    // A simulator in a process of its own turns its random faults on or off between batches (the cluster bench's busy provider).
    if (req.method === 'POST' && path === '/faults') {
      const o = JSON.parse(await readBody(req)) as { rates?: SimFaultRates; seed?: number } & SimFaultRateOptions;
      try {
        plan.setRates(o.rates, o.seed, o);
      } catch (e) {
        throw new RequestError(400, e instanceof Error ? e.message : String(e));
      }
      return sendJson(res, 200, { rates: o.rates ?? {} });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      throw new RequestError(404, `Unknown endpoint ${req.method} ${path}.`);
    }
    stats.requests++;
    const record: SimRequestRecord = { at: Date.now() };
    const authorization = req.headers.authorization;
    if (authorization) record.authorizationSha256 = createHash('sha256').update(authorization).digest('hex');
    log.push(record);
    const fault = plan.next();
    if (fault) record.fault = faultLabel(fault);
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    let settle: ((used: number) => void) | undefined;
    let used = 0;
    try {
      const raw = await readBody(req);
      // Work on an answer only once every request already at the socket has been stamped: a remote
      // model serves a fan-out in parallel, so one answer's compute must not delay the next arrival.
      await new Promise((resolve) => setImmediate(resolve));
      noteRequest(record, raw);
      // HTTP-level faults come before any answer: nothing is computed, nothing counts as answered.
      if (fault && isStatusFault(fault)) {
        countFault(fault);
        record.outcome = 'status';
        const { error } = errorBody(fault);
        throw new RequestError(
          fault.status,
          error.message,
          error.type,
          fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
          error.code,
        );
      }
      if (fault?.kind === 'reset') {
        countFault(fault);
        record.outcome = 'reset';
        res.socket?.destroy();
        return;
      }
      if (fault?.kind === 'garbage') {
        countFault(fault);
        record.outcome = 'garbage';
        res.writeHead(200, { 'content-type': fault.contentType ?? 'application/json' });
        res.end(fault.body ?? DEFAULT_GARBAGE);
        return;
      }
      const body = parseBody(raw);
      if (opts.maxChoices !== undefined && (body.n ?? 1) > opts.maxChoices)
        throw new RequestError(400, `'n' above ${opts.maxChoices} is not supported by this model.`, 'invalid_request_error', {}, null, 'n');
      const { encode } = await loadTokenizer();
      const prompt = promptTokens(body.messages, encode);
      settle = charge(record, prompt + (body.n ?? 1) * (body.max_completion_tokens ?? body.max_tokens ?? prompt));
      used = prompt; // what a request costs that ends unanswered: its prompt was read
      let arrivedAt = record.at;
      if (fault?.kind === 'slow') {
        countFault(fault);
        if (!(await waitUnlessGone(res, fault.delayMs ?? DEFAULT_SLOW_MS))) {
          record.outcome = 'abandoned';
          return;
        }
        arrivedAt = Date.now(); // a slow answer takes its delay on top of the usual latency
      }
      const completion = await complete(body, res, {
        fault: fault && isAnswerFault(fault) ? fault : undefined,
        arrivedAt,
        promptTokens: prompt,
      });
      record.outcome = completion ? 'answered' : 'abandoned';
      if (completion) {
        used = completion.usage.total_tokens;
        record.tokens = used;
        stats.tokensServed += used;
        sendJson(res, 200, completion);
      }
    } catch (e) {
      if (e instanceof RequestError) record.outcome ??= 'status';
      throw e;
    } finally {
      settle?.(used);
      inFlight--;
      record.endedAt = Date.now();
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof RequestError ? err.status : 500;
      const type = err instanceof RequestError ? err.type : 'server_error';
      const headers = err instanceof RequestError ? err.headers : {};
      const code = err instanceof RequestError ? err.code : null;
      const param = err instanceof RequestError ? err.param : null;
      if (!res.headersSent && !res.destroyed)
        sendJson(res, status, { error: { message: String((err as Error)?.message ?? err), type, param, code } }, headers);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    stats: snapshot,
    resetStats: () => {
      stats = fresh();
      log = [];
    },
    injectFaults: (more) => plan.script(more),
    setFaultRates: (rates, faultSeed, options) => plan.setRates(rates, faultSeed, options),
    clearFaults: () => plan.clear(),
    setLimits: (limits) => {
      buckets = bucketsFor(limits);
    },
    pendingFaults: () => plan.pending,
    requestLog: () => log.map((r) => ({ ...r })),
    setInventShare: (share) => {
      settings.inventShare = checkedShare(share);
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
