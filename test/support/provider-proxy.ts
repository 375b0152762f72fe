import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Ways real providers differ from the OpenAI API the engine speaks, each one switchable. */
export interface ProviderQuirks {
  /** 400 for `max_tokens`, as OpenAI's reasoning models answer; `max_completion_tokens` is taken instead. */
  refuseMaxTokens?: boolean;
  /** 400 for any temperature but the default (1). */
  refuseTemperature?: boolean;
  /** 400 for `n` above 1. */
  refuseN?: boolean;
  /** No `usage` in the response. */
  dropUsage?: boolean;
  /** Each answer opens with a `<think>` block. */
  thinkBlocks?: boolean;
  /** Each answer's reasoning in a separate `reasoning_content` field. */
  reasoningField?: boolean;
}

/** What the proxy saw: every request body it was sent and what it refused. */
export interface ProviderProxy {
  baseURL: string;
  bodies: Record<string, unknown>[];
  refused: string[];
  close(): Promise<void>;
}

const THINKING = 'The user wants the list handled carefully. I will check every element twice before answering.';

const refusal = (param: string, message: string) => ({
  error: { message, type: 'invalid_request_error', param, code: 'unsupported_parameter' },
});

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/**
 * A provider-shaped proxy in front of an OpenAI-compatible endpoint (the simulator in the tests; its
 * address may be known only later, hence a function):
 * it refuses and reshapes what hosted providers refuse and reshape, so the engine's adaptations are
 * tested against behaviour it did not produce itself.
 */
export async function startProviderProxy(upstream: string | (() => string), quirks: ProviderQuirks): Promise<ProviderProxy> {
  const bodies: Record<string, unknown>[] = [];
  const refused: string[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      bodies.push(body);
      const refuse = (param: string, message: string) => {
        refused.push(param);
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify(refusal(param, message)));
      };
      if (quirks.refuseMaxTokens && 'max_tokens' in body)
        return refuse(
          'max_tokens',
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        );
      if (quirks.refuseTemperature && body.temperature !== undefined && body.temperature !== 1)
        return refuse(
          'temperature',
          "Unsupported value: 'temperature' does not support this value with this model. Only the default (1) value is supported.",
        );
      if (quirks.refuseN && typeof body.n === 'number' && body.n > 1)
        return refuse('n', "Unsupported value: 'n' must be 1 for this model.");
      const forwarded = { ...body };
      if ('max_completion_tokens' in forwarded) {
        forwarded.max_tokens = forwarded.max_completion_tokens;
        delete forwarded.max_completion_tokens;
      }
      const upstreamRes = await fetch(`${typeof upstream === 'string' ? upstream : upstream()}${req.url!.replace(/^\/v1/, '')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(forwarded),
      });
      const text = await upstreamRes.text();
      if (!upstreamRes.ok) {
        res.writeHead(upstreamRes.status, { 'content-type': 'application/json' });
        return res.end(text);
      }
      const completion = JSON.parse(text) as { usage?: unknown; choices: { message: { content: string; reasoning_content?: string } }[] };
      if (quirks.dropUsage) delete completion.usage;
      for (const choice of completion.choices) {
        if (quirks.thinkBlocks) choice.message.content = `<think>\n${THINKING}\n</think>\n\n${choice.message.content}`;
        if (quirks.reasoningField) choice.message.reasoning_content = THINKING;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion));
    })().catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, bodies, refused, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
