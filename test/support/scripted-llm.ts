import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of a chat completion: its text and why the model stopped. */
export interface ScriptedChoice {
  content: string;
  finishReason?: 'stop' | 'length' | 'content_filter';
}

/** What the endpoint answers to the next request. */
export type ScriptedReply =
  | {
      choices: ScriptedChoice[];
      usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
    }
  | { status: number; message: string; headers?: Record<string, string> }
  /** No answer until `release()`: for what happens while a call is in flight. */
  | { hold: true; choices: ScriptedChoice[] };

/** A request as the endpoint received it. */
export interface ScriptedRequest {
  body: {
    model: string;
    messages: { role: string; content: string }[];
    n?: number;
    seed?: number;
    temperature?: number;
    max_tokens?: number;
  };
  /** The client hung up before the answer was sent. */
  abandoned: boolean;
}

/** An OpenAI-compatible endpoint that answers each request with the next scripted reply. */
export interface ScriptedLlm {
  baseURL: string;
  /** Queues replies for the next requests, in order. */
  reply(...replies: ScriptedReply[]): void;
  /** Answers the held request, if any. */
  release(): void;
  /** Every request received, in arrival order. */
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

function sendCompletion(
  res: ServerResponse,
  body: ScriptedRequest['body'],
  reply: {
    choices: ScriptedChoice[];
    usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  },
) {
  const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'chatcmpl-scripted',
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: reply.choices.map((c, index) => ({
        index,
        message: { role: 'assistant', content: c.content, refusal: null },
        logprobs: null,
        finish_reason: c.finishReason ?? 'stop',
      })),
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    }),
  );
}

/** Starts the endpoint on a free loopback port; a request with no reply queued gets a 500. */
export async function startScriptedLlm(): Promise<ScriptedLlm> {
  const queue: ScriptedReply[] = [];
  const requests: ScriptedRequest[] = [];
  let held: (() => void) | undefined;

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const record: ScriptedRequest = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), abandoned: false };
    requests.push(record);
    res.once('close', () => {
      if (!res.writableFinished) record.abandoned = true;
    });
    const reply = queue.shift();
    if (!reply) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'no scripted reply left', type: 'server_error', param: null, code: null } }));
    } else if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify({ error: { message: reply.message, type: 'invalid_request_error', param: null, code: null } }));
    } else if ('hold' in reply) {
      held = () => {
        if (!res.destroyed) sendCompletion(res, record.body, reply);
      };
    } else {
      sendCompletion(res, record.body, reply);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    reply: (...replies) => queue.push(...replies),
    release: () => {
      held?.();
      held = undefined;
    },
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections of the client would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
