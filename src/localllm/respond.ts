/**
 * The local server's answers in OpenAI's shapes: a whole chat completion's usage, a streamed one as
 * server-sent events, JSON bodies, and the request body read within a size limit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ChatRequest, OpenAiError } from './request';

/** One generated choice of a request. */
export interface Choice {
  text: string;
  finishReason: 'stop' | 'length';
  completionTokens: number;
}

/** Hears a request's choices as they are generated: each piece of text, then the finished choice. */
export interface ChoiceListener {
  text(index: number, text: string): void;
  done(index: number, choice: Choice): void;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** OpenAI's usage, with the prompt tokens taken from the prefix cache as `prompt_tokens_details.cached_tokens` (as OpenAI reports its own prompt caching). */
export function usageOf(promptTokens: number, cachedTokens: number, choices: Choice[]) {
  const completionTokens = choices.reduce((sum, c) => sum + c.completionTokens, 0);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  };
}

/** How long a streamed answer stays silent at most while the model reads its prompt or waits for a sequence. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Answers as server-sent events in OpenAI's chunk format: per choice a role chunk, its text as it
 * comes and a closing chunk with the finish reason, the choices interleaved as they decode together
 * (each chunk names its index); then, if asked, one chunk with the usage.
 */
export async function streamCompletion(
  res: ServerResponse,
  head: { id: string; created: number; model: string },
  req: ChatRequest,
  usage: (choices: Choice[]) => unknown,
  generate: (listener: ChoiceListener) => Promise<Choice[]>,
  firstToken: { withinMs?: number; came?: (ms: number) => void } = {},
): Promise<void> {
  const askedAt = Date.now();
  let firstTokenAt: number | undefined;
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) => {
    if (!res.headersSent)
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(
      `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, ...(req.includeUsage && { usage: null }), ...extra })}\n\n`,
    );
  };
  const delta = (index: number, d: Record<string, unknown>, finishReason: string | null = null) => ({
    index,
    delta: d,
    logprobs: null,
    finish_reason: finishReason,
  });
  let started = -1;
  let lastSent = Date.now();
  const startChoice = (index: number) => {
    for (; started < index; ) send([delta(++started, { role: 'assistant', content: '' })]);
  };
  // Reading a long prompt on a CPU takes minutes before the first token (four NDAs on Qwen-1.5B: over 60 s), and a
  // request may wait for a free sequence: a chunk without choices now and then tells the client the answer is coming,
  // so its stall detector (`llm.stallSeconds`) gives up on a silent server, not on a busy one. Only until the first
  // token, and not past what the prompt's size at the measured pace allows (decision 90): then the tokens are the
  // progress, and a model that stops producing them falls silent, so the client ends the call and asks again.
  startChoice(0);
  const keepAlive = setInterval(() => {
    const reading = firstTokenAt === undefined && (firstToken.withinMs === undefined || Date.now() - askedAt < firstToken.withinMs);
    if (reading && Date.now() - lastSent >= KEEP_ALIVE_MS) send([]);
  }, KEEP_ALIVE_MS / 3);
  const sent = (f: () => void) => {
    f();
    lastSent = Date.now();
  };
  let choices: Choice[];
  try {
    choices = await generate({
      text(index, text) {
        if (firstTokenAt === undefined) {
          firstTokenAt = Date.now();
          firstToken.came?.(firstTokenAt - askedAt);
        }
        sent(() => {
          startChoice(index);
          send([delta(index, { content: text })]);
        });
      },
      done(index, choice) {
        sent(() => {
          startChoice(index);
          send([delta(index, {}, choice.finishReason)]);
        });
      },
    });
  } finally {
    clearInterval(keepAlive);
  }
  if (req.includeUsage) send([], { usage: usage(choices) });
  res.end('data: [DONE]\n\n');
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new OpenAiError(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
