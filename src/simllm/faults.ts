/**
 * Faults of the simulated LLM: what real endpoints do wrong, scripted request by request or drawn
 * at seeded random rates, so retries, timeouts and invalid answers can be exercised reproducibly.
 *
 * HTTP-level faults happen before any answer is computed: an error status (with an OpenAI-style
 * error body and, for 429/503, a Retry-After), a connection reset, an answer slower than any
 * sensible timeout, or a 200 whose body is not JSON. Answer-level faults let the request succeed
 * but replace one of its answers: empty, truncated at max tokens, text without an answer in it, or
 * a content-filter refusal.
 */
import { hashSeed, type Random, seededRandom } from '../util/random';

/** An HTTP error status, answered with an OpenAI-style `{ error: { message, type, code } }` body. */
export interface StatusFault {
  kind?: 'status';
  status: number;
  message?: string;
  /** Sent as the Retry-After header (seconds). */
  retryAfterSeconds?: number;
}
/** The connection is destroyed once the request has been read: no status, no body. */
export interface ResetFault {
  kind: 'reset';
}
/** The answer comes only after `delayMs` (default 60 s), or never if the client gives up first. */
export interface SlowFault {
  kind: 'slow';
  delayMs?: number;
}
/** A 200 whose body is not a chat completion (default: a JSON body cut off mid-way). */
export interface GarbageFault {
  kind: 'garbage';
  body?: string;
  contentType?: string;
}
export type AnswerFaultKind = 'empty' | 'truncated' | 'unparseable' | 'contentFilter';
/** Replaces one answer of an otherwise normal completion. */
export interface AnswerFault {
  kind: AnswerFaultKind;
  /** Which choice, modulo the number of choices asked for; default 0. */
  choice?: number;
  /** For `unparseable`: the text answered instead (default: a polite non-answer). */
  content?: string;
}
export type HttpFault = StatusFault | ResetFault | SlowFault | GarbageFault;
export type SimFault = HttpFault | AnswerFault;

export const ANSWER_FAULT_KINDS: readonly AnswerFaultKind[] = ['empty', 'truncated', 'unparseable', 'contentFilter'];

export const isAnswerFault = (f: SimFault): f is AnswerFault => ANSWER_FAULT_KINDS.includes(f.kind as AnswerFaultKind);
export const isStatusFault = (f: SimFault): f is StatusFault => f.kind === undefined || f.kind === 'status';

/** How a fault is counted in the stats: the status code for HTTP errors ("429"), the kind otherwise ("reset"). */
export const faultLabel = (f: SimFault): string => (isStatusFault(f) ? String(f.status) : f.kind);

/** The text of an `unparseable` answer: no list, no set, no counts, no document. */
export const NON_ANSWER = "I'm sorry, but I can't help with that request.";

/** What providers answer for each status, so clients see realistic bodies. */
const STATUS_BODIES: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: "Invalid value for 'messages': the request could not be processed.", type: 'invalid_request_error', code: null },
  401: {
    message: 'Incorrect API key provided: sim-****. You can find your API key at https://platform.openai.com/account/api-keys.',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
  403: { message: 'Your API key does not have access to this model.', type: 'invalid_request_error', code: 'model_not_allowed' },
  404: { message: 'The model does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' },
  422: { message: 'The request could not be processed.', type: 'invalid_request_error', code: null },
  429: { message: 'Rate limit reached for requests. Please try again later.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  502: { message: 'Bad gateway.', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null },
};

export function errorBody(fault: StatusFault): { error: { message: string; type: string; param: null; code: string | null } } {
  const known = STATUS_BODIES[fault.status] ?? {
    message: `simulated fault ${fault.status}`,
    type: fault.status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
  };
  return { error: { message: fault.message ?? known.message, type: known.type, param: null, code: known.code } };
}

export const DEFAULT_GARBAGE = '{"id":"chatcmpl-sim","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis';
export const DEFAULT_SLOW_MS = 60_000;

/** Probabilities per request, summing to at most 1; answer-level rates replace one answer of the request. */
export interface SimFaultRates {
  /** 429 with Retry-After. */
  rateLimited?: number;
  /** 500, 502 or 503. */
  serverError?: number;
  reset?: number;
  slow?: number;
  garbage?: number;
  empty?: number;
  truncated?: number;
  unparseable?: number;
  contentFilter?: number;
}

export interface SimFaultRateOptions {
  /** Retry-After of a random 429, in seconds (default 1); a pair draws it uniformly from that range, to the tenth of a second. */
  retryAfterSeconds?: number | [number, number];
  /** Delay of a random slow answer (default 60 s). */
  slowMs?: number;
  /** Statuses a random server error picks from (default 500, 502, 503). */
  serverErrorStatuses?: number[];
}

const RATE_ORDER = [
  'rateLimited',
  'serverError',
  'reset',
  'slow',
  'garbage',
  'empty',
  'truncated',
  'unparseable',
  'contentFilter',
] as const;

/**
 * Which fault, if any, the next request gets: the scripted ones first, in order ('pass' answers
 * normally), then a draw at the random rates from the plan's own seeded stream, so the same seed
 * gives the same sequence of faults over the requests as they arrive.
 */
export class FaultPlan {
  private readonly scripted: (SimFault | 'pass')[] = [];
  private rates: SimFaultRates = {};
  private options: SimFaultRateOptions = {};
  private random: Random = seededRandom(0);

  script(faults: (SimFault | 'pass')[]): void {
    for (const f of faults) if (f !== 'pass') checkFault(f);
    this.scripted.push(...faults);
  }

  setRates(rates: SimFaultRates | undefined, seed = 0, options: SimFaultRateOptions = {}): void {
    const r = rates ?? {};
    let sum = 0;
    for (const name of RATE_ORDER) {
      const p = r[name] ?? 0;
      if (!(p >= 0 && p <= 1)) throw new RangeError(`fault rate ${name} must be in [0, 1], got ${p}`);
      sum += p;
    }
    if (sum > 1 + 1e-9) throw new RangeError(`fault rates sum to ${sum}, more than 1`);
    if (options.serverErrorStatuses?.length === 0) throw new RangeError('serverErrorStatuses must not be empty');
    this.rates = { ...r };
    this.options = { ...options };
    this.random = seededRandom(hashSeed(seed, 'faults'));
  }

  /** Forgets scripted faults not yet used and the random rates. */
  clear(): void {
    this.scripted.length = 0;
    this.setRates(undefined);
  }

  get pending(): number {
    return this.scripted.length;
  }

  next(): SimFault | undefined {
    if (this.scripted.length) {
      const f = this.scripted.shift()!;
      return f === 'pass' ? undefined : f;
    }
    if (!RATE_ORDER.some((name) => (this.rates[name] ?? 0) > 0)) return undefined;
    const draw = this.random();
    let edge = 0;
    for (const name of RATE_ORDER) {
      edge += this.rates[name] ?? 0;
      if (draw < edge) return this.make(name);
    }
    return undefined;
  }

  private make(name: (typeof RATE_ORDER)[number]): SimFault {
    switch (name) {
      case 'rateLimited': {
        const after = this.options.retryAfterSeconds ?? 1;
        if (typeof after === 'number') return { status: 429, retryAfterSeconds: after };
        return { status: 429, retryAfterSeconds: Math.round((after[0] + this.random() * (after[1] - after[0])) * 10) / 10 };
      }
      case 'serverError': {
        const statuses = this.options.serverErrorStatuses ?? [500, 502, 503];
        return { status: statuses[Math.floor(this.random() * statuses.length)]! };
      }
      case 'reset':
        return { kind: 'reset' };
      case 'slow':
        return { kind: 'slow', delayMs: this.options.slowMs ?? DEFAULT_SLOW_MS };
      case 'garbage':
        return { kind: 'garbage' };
      default:
        return { kind: name, choice: Math.floor(this.random() * 1024) };
    }
  }
}

/**
 * Fault rates from their text, `name=share` pairs separated by commas (`rateLimited=0.1,serverError=0.05`),
 * as `got sim-llm --faults` takes them; an unknown name or a share outside [0, 1] is refused, naming it.
 */
export function parseFaultRates(text: string): SimFaultRates {
  const rates: SimFaultRates = {};
  for (const pair of text.split(',').filter((p) => p.trim())) {
    const [name, value, ...rest] = pair.split('=').map((p) => p.trim());
    if (!RATE_ORDER.includes(name as (typeof RATE_ORDER)[number]) || rest.length)
      throw new RangeError(`unknown fault "${name}": one of ${RATE_ORDER.join(', ')}, as name=share`);
    const share = Number(value);
    if (value === undefined || value === '' || !(share >= 0 && share <= 1)) throw new RangeError(`fault ${name} needs a share from 0 to 1`);
    rates[name as (typeof RATE_ORDER)[number]] = share;
  }
  return rates;
}

/** A Retry-After from its text: seconds (`1`), or a range drawn from per refusal (`1-2`). */
export function parseRetryAfter(text: string): number | [number, number] {
  const [low, high, ...rest] = text.split('-').map((p) => Number(p.trim()));
  if (rest.length || !(low! >= 0) || (high !== undefined && !(high >= low!)))
    throw new RangeError(`a Retry-After is seconds or a range of seconds (1-2), got "${text}"`);
  return high === undefined ? low! : [low!, high];
}

function checkFault(f: SimFault): void {
  if (isStatusFault(f) && !(Number.isInteger(f.status) && f.status >= 400 && f.status <= 599))
    throw new RangeError(`a status fault needs an HTTP error status (400-599), got ${f.status}`);
  if (!isStatusFault(f) && !['reset', 'slow', 'garbage', ...ANSWER_FAULT_KINDS].includes(f.kind))
    throw new RangeError(`unknown fault kind ${String(f.kind)}`);
}

/** One choice of a completion, as the server sends it. */
export interface SimChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; refusal: string | null };
  logprobs: null;
  finish_reason: string;
}

/**
 * Applies an answer-level fault to one choice: `tokens` are the choice's answer tokens, `decode`
 * turns tokens back into text. Returns the faulted choice and the completion tokens it used.
 */
export function applyAnswerFault(
  fault: AnswerFault,
  choice: SimChoice,
  tokens: number[],
  decode: (tokens: number[]) => string,
  encode: (text: string) => number[],
): { choice: SimChoice; tokens: number } {
  switch (fault.kind) {
    case 'empty':
      return { choice: { ...choice, message: { ...choice.message, content: '' }, finish_reason: 'stop' }, tokens: 0 };
    case 'truncated': {
      // Cut well before the end, as a max_tokens limit would: the answer's closing bracket is gone.
      const kept = tokens.slice(0, Math.max(1, Math.floor(tokens.length / 2)));
      return { choice: { ...choice, message: { ...choice.message, content: decode(kept) }, finish_reason: 'length' }, tokens: kept.length };
    }
    case 'unparseable': {
      const content = fault.content ?? NON_ANSWER;
      return { choice: { ...choice, message: { ...choice.message, content }, finish_reason: 'stop' }, tokens: encode(content).length };
    }
    case 'contentFilter':
      return { choice: { ...choice, message: { ...choice.message, content: null }, finish_reason: 'content_filter' }, tokens: 0 };
  }
}
