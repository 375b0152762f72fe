import OpenAI from 'openai';

/**
 * How a failed LLM call should be treated. Classified on openai's typed errors and on the error
 * types of the HTTP stack, never on message text: rate limits, server faults, broken connections,
 * timeouts and garbled responses are worth retrying; a rejected key or a malformed request will
 * fail the same way every time, so it fails at once, naming the cause and the endpoint.
 */
export type LlmFault =
  | { retryable: true; kind: RetryableKind; message: string; retryAfterMs?: number }
  | { retryable: false; kind: 'rejected'; status: number; message: string };

export type RetryableKind =
  /** 429: the wait honours the endpoint's Retry-After. */
  | 'rate-limited'
  /** 5xx, 408, 409. */
  | 'server-error'
  /** Refused, reset or dropped connections, before or during the response. */
  | 'connection'
  | 'timeout'
  /** A 200 whose body is not a chat completion (not JSON, or JSON of another shape). */
  | 'malformed'
  /** Anything else: retried within the bounded policy, since it cannot be shown to be permanent. */
  | 'unexpected';

/** Thrown by `LlmClient` when a streamed answer stops arriving: retried like a timeout. */
export class LlmStalledError extends Error {
  override readonly name = 'LlmStalledError';
}

/** Thrown by `LlmClient` when an endpoint answers 200 with something that is not a usable chat completion. */
export class LlmResponseError extends Error {
  override readonly name = 'LlmResponseError';
}

const REJECTION_CAUSES: Record<number, string> = {
  400: 'request rejected as invalid',
  401: 'API key rejected',
  403: 'access forbidden (API key lacks permission)',
  404: 'model or endpoint not found',
  413: 'request rejected as too large',
  422: 'request rejected as unprocessable',
};

/** A provider asking for a longer pause than this is waited this long; the attempts stay bounded by the retry policy. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Node's and undici's codes for a connection that could not be made or broke mid-way. */
const CONNECTION_CODES =
  /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR_\w+)$/;

export function classifyLlmError(error: unknown, baseURL: string): LlmFault {
  if (error instanceof OpenAI.APIConnectionTimeoutError)
    return { retryable: true, kind: 'timeout', message: `LLM request to ${baseURL} timed out` };
  if (error instanceof OpenAI.APIConnectionError) {
    return { retryable: true, kind: 'connection', message: `could not reach ${baseURL}: ${error.message}${causeDetail(error)}` };
  }
  if (error instanceof OpenAI.APIUserAbortError)
    return { retryable: true, kind: 'connection', message: `LLM request to ${baseURL} was aborted` };
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    // openai prefixes its messages with the status ("401 Incorrect API key"); the status is named separately here.
    const detail = error.message.replace(new RegExp(`^${error.status} `), '');
    if (error.status === 429) {
      return withRetryAfter(
        { retryable: true, kind: 'rate-limited', message: `rate limited by ${baseURL} (429): ${detail}` },
        error.headers,
      );
    }
    if (error.status === 408 || error.status === 409 || error.status >= 500) {
      // Overloaded servers (503) send Retry-After too; it is honoured the same way.
      return withRetryAfter(
        { retryable: true, kind: 'server-error', message: `${baseURL} answered ${error.status}: ${detail}` },
        error.headers,
      );
    }
    const cause = REJECTION_CAUSES[error.status] ?? `request refused with status ${error.status}`;
    return { retryable: false, kind: 'rejected', status: error.status, message: `${cause} by ${baseURL} (${error.status}): ${detail}` };
  }
  if (error instanceof LlmStalledError)
    return { retryable: true, kind: 'timeout', message: `LLM answer from ${baseURL} stalled: ${error.message}` };
  if (error instanceof LlmResponseError)
    return { retryable: true, kind: 'malformed', message: `malformed response from ${baseURL}: ${error.message}` };
  // openai parses a 200's JSON body itself: a body that is not JSON surfaces as the parser's SyntaxError.
  if (error instanceof SyntaxError)
    return { retryable: true, kind: 'malformed', message: `malformed response from ${baseURL} (not JSON): ${error.message}` };
  // A connection that breaks while the body is read surfaces as undici's TypeError("terminated") with a socket error as its cause.
  const code = connectionCode(error);
  if (code)
    return { retryable: true, kind: 'connection', message: `connection to ${baseURL} failed: ${messageOf(error)}${causeDetail(error)}` };
  return { retryable: true, kind: 'unexpected', message: `LLM call to ${baseURL} failed: ${messageOf(error)}${causeDetail(error)}` };
}

type RetryableFault = Extract<LlmFault, { retryable: true }>;

function withRetryAfter(fault: RetryableFault, headers: Headers | undefined): RetryableFault {
  const ms = retryAfterMs(headers);
  return ms === undefined ? fault : { ...fault, retryAfterMs: Math.min(ms, MAX_RETRY_AFTER_MS) };
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The chain of causes below an error, as `e.cause`, `e.cause.cause`... */
function* causes(error: unknown): Generator<unknown> {
  let current = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    yield current;
    current = current instanceof Error ? current.cause : undefined;
  }
}

function connectionCode(error: unknown): string | undefined {
  for (const e of [error, ...causes(error)]) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && CONNECTION_CODES.test(code)) return code;
  }
  return undefined;
}

/** " (other side closed, UND_ERR_SOCKET)": what the HTTP stack said below the wrapper's message. */
function causeDetail(error: unknown): string {
  const parts: string[] = [];
  for (const e of causes(error)) {
    const message = messageOf(e);
    if (message && !parts.includes(message)) parts.push(message);
  }
  const code = connectionCode(error);
  if (code && !parts.some((p) => p.includes(code))) parts.push(code);
  return parts.length ? ` (${parts.join(': ')})` : '';
}
