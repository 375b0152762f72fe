/**
 * The part of OpenAI's chat completions request the local server honours, as a zod schema: a
 * request it cannot serve faithfully is refused with a 400 naming the field, never half-served.
 */
import { z } from 'zod';

/** An error answered in OpenAI's error shape: `{ error: { message, type, param, code } }`. */
export class OpenAiError extends Error {
  override readonly name = 'OpenAiError';
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = status >= 500 ? 'server_error' : 'invalid_request_error',
  ) {
    super(message);
  }

  /** The response body. */
  body() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const message = z.object({
  // `developer` is OpenAI's newer name for `system`.
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(textPart)]),
});
const tokens = z.number().int().min(1);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a name of letters, digits, _ and -, at most 64'),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      // Accepted and needs nothing: the grammar holds every answer to the schema, strict or not.
      strict: z.boolean().nullish(),
    }),
  }),
]);

const chatRequest = z.object({
  model: z.string().optional(),
  messages: z.array(message).min(1),
  n: z.number().int().min(1).max(128).optional(),
  seed: z.number().int().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: tokens.nullish(),
  max_completion_tokens: tokens.nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  response_format: responseFormat.nullish(),
});

/**
 * The shape an answer must have: free text, any JSON object, or JSON following a schema. The server
 * generates under a grammar for the last two, so the text always parses (unless cut at `max_tokens`).
 */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown> };

/** A chat message with its content flattened to text. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A validated chat completion request, with OpenAI's defaults filled in. */
export interface ChatRequest {
  model?: string;
  messages: ChatMessage[];
  n: number;
  seed?: number;
  temperature: number;
  topP?: number;
  /** Undefined: as many as the context leaves room for. */
  maxTokens?: number;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
  responseFormat: ResponseFormat;
}

/** OpenAI samples at temperature 1 when a request names none (llama.cpp would be greedy). */
export const DEFAULT_TEMPERATURE = 1;

/** Parses a request body; throws an {@link OpenAiError} (400, with the offending field as `param`) for anything it cannot serve. */
export function parseChatRequest(raw: string): ChatRequest {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new OpenAiError(400, 'The request body is not valid JSON.');
  }
  const parsed = chatRequest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('') || null;
    throw new OpenAiError(400, `Invalid value for '${param ?? 'body'}': ${issue.message}`, param);
  }
  const b = parsed.data;
  const stop = b.stop == null ? [] : typeof b.stop === 'string' ? [b.stop] : b.stop;
  return {
    ...(b.model !== undefined && { model: b.model }),
    messages: b.messages.map((m) => ({
      role: m.role === 'developer' ? 'system' : m.role,
      content: typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join(''),
    })),
    n: b.n ?? 1,
    ...(b.seed !== undefined && { seed: b.seed }),
    temperature: b.temperature ?? DEFAULT_TEMPERATURE,
    ...(b.top_p !== undefined && { topP: b.top_p }),
    ...((b.max_completion_tokens ?? b.max_tokens) != null && { maxTokens: (b.max_completion_tokens ?? b.max_tokens)! }),
    stop: stop.filter((s) => s.length > 0),
    stream: b.stream ?? false,
    includeUsage: b.stream_options?.include_usage ?? false,
    responseFormat: responseFormatOf(b.response_format),
  };
}

function responseFormatOf(format: z.infer<typeof responseFormat> | null | undefined): ResponseFormat {
  if (!format || format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  // A json_schema without a schema constrains nothing beyond being JSON: served as json_object.
  const { name, schema } = format.json_schema;
  return schema ? { type: 'json_schema', name, schema } : { type: 'json_object' };
}
