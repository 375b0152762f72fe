import { Readable } from 'node:stream';
import { Agent, request } from 'undici';

/** Statuses whose responses have no body by definition (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` the openai client is given: undici's request API, with keep-alive, behind the fetch
 * signature. Node's built-in fetch spends about twice the CPU per call on its web streams, and a
 * worker starts a whole fan-out's calls on one thread: the last call of the fan-out waits for the
 * others' CPU (measured in docs/decisions.md, "Where a run's time goes").
 */
export function createLlmFetch(): typeof fetch {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const response = await request(url, {
      method: (init.method ?? 'GET') as 'GET',
      headers,
      body: init.body as string | Uint8Array | null | undefined,
      signal: init.signal ?? undefined,
      dispatcher,
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) out.append(name, v);
    }
    // A streamed answer is handed on as it arrives (each token is progress); any other body is read whole.
    const streamed = out.get('content-type')?.startsWith('text/event-stream');
    const body = NULL_BODY.has(response.statusCode)
      ? null
      : streamed
        ? (Readable.toWeb(response.body) as ReadableStream<Uint8Array>)
        : await response.body.arrayBuffer();
    return new Response(body, { status: response.statusCode, headers: out });
  };
}
