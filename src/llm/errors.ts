import OpenAI from 'openai';

/**
 * How a failed LLM call should be treated. Classified on openai's typed errors, never on message
 * text: rate limits, server faults and broken connections are worth retrying; a rejected key or a
 * malformed request will fail the same way every time.
 */
export type LlmFault =
  | { retryable: true; kind: 'rate-limited' | 'server-error' | 'connection' | 'timeout'; message: string; retryAfterMs?: number }
  | { retryable: false; kind: 'rejected'; status: number; message: string };

const REJECTION_CAUSES: Record<number, string> = {
  400: 'request rejected as invalid',
  401: 'API key rejected',
  403: 'access forbidden (API key lacks permission)',
  404: 'model or endpoint not found',
  422: 'request rejected as unprocessable',
};

export function classifyLlmError(error: unknown, baseURL: string): LlmFault {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { retryable: true, kind: 'timeout', message: `LLM request to ${baseURL} timed out` };
  if (error instanceof OpenAI.APIConnectionError) return { retryable: true, kind: 'connection', message: `could not reach ${baseURL}: ${error.message}` };
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const detail = error.message;
    if (error.status === 429) {
      return { retryable: true, kind: 'rate-limited', message: `rate limited by ${baseURL}: ${detail}`, retryAfterMs: retryAfterMs(error.headers) };
    }
    if (error.status === 408 || error.status === 409 || error.status >= 500) {
      return { retryable: true, kind: 'server-error', message: `${baseURL} answered ${error.status}: ${detail}` };
    }
    const cause = REJECTION_CAUSES[error.status] ?? `request refused with status ${error.status}`;
    return { retryable: false, kind: 'rejected', status: error.status, message: `${cause} by ${baseURL} (${error.status}): ${detail}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { retryable: true, kind: 'connection', message: `LLM call to ${baseURL} failed: ${message}` };
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
