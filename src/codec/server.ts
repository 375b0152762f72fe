/**
 * A Temporal codec server: lets the Web UI (and `temporal --codec-endpoint`) show encrypted
 * payloads in plain text to someone who holds the keys, without the Temporal server ever seeing
 * them, and resolves payloads kept in the payload store (`GOT_STORE`) so the UI shows them instead
 * of their references. The protocol is Temporal's: `POST <endpoint>/decode` and `POST <endpoint>/encode` with a
 * JSON body `{ "payloads": [{ "metadata": { "<key>": "<base64>" }, "data": "<base64>" }] }`,
 * answered in the same shape. The UI sends the namespace in `X-Namespace` (one keyring serves all
 * namespaces here) and, when configured to, the user's `Authorization` header.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExternalStorage, Payload, PayloadCodec } from '@temporalio/common';
import { ExternalStorageRunner } from '@temporalio/common/lib/internal-non-workflow';
import proto from '@temporalio/proto';
import { HttpError, readBody, sameSecret } from '../util/http';
import { codecFromEnv, dataConverterFromEnv } from './data-converter';
import { CODEC_KEYS_ENV } from './keys';

const Payloads = proto.temporal.api.common.v1.Payloads;

/** Origins of the Web UIs allowed to call the codec server from a browser (comma-separated; `*` for any). */
export const CODEC_CORS_ORIGINS_ENV = 'GOT_CODEC_CORS_ORIGINS';
/** When set, requests must carry exactly this `Authorization` header (e.g. `Bearer <token>`). */
export const CODEC_AUTH_ENV = 'GOT_CODEC_AUTH';
/** The Web UIs of the local dev server and of docker-compose. */
export const DEFAULT_CORS_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233', 'http://localhost:8080', 'http://127.0.0.1:8080'];
/** Request bodies above this are refused (a history page of payloads is far smaller). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface CodecServerOptions {
  /** Decrypts (and encrypts) payloads; absent when payloads are not encrypted. */
  codec?: PayloadCodec | undefined;
  /** Where payloads kept out of the history are read from on decode; absent when there is no store. */
  externalStorage?: ExternalStorage | undefined;
  /** Default 8888; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1; `0.0.0.0` in a container. */
  host?: string;
  /** Browser origins allowed by CORS (the Web UI's), or `['*']`. */
  corsOrigins?: string[];
  /** When set, every encode/decode request must carry exactly this `Authorization` header. */
  authorization?: string;
  /** One line per failed request (never payload contents). */
  log?: (line: string) => void;
}

export interface CodecServer {
  /** `http://host:port`: the value for the Web UI's codec endpoint and `temporal --codec-endpoint`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The codec server's options from the environment: keys from GOT_CODEC_KEYS, the store from GOT_STORE (one of them needed), GOT_CODEC_CORS_ORIGINS, GOT_CODEC_AUTH. */
export function codecServerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Omit<CodecServerOptions, 'port' | 'host' | 'log'> {
  const codec = codecFromEnv(env);
  const externalStorage = dataConverterFromEnv(env)?.externalStorage;
  if (!codec && !externalStorage)
    throw new Error(
      `${CODEC_KEYS_ENV} is not set and GOT_STORE is off: the codec server needs the keys the payloads were encrypted with, or the store they are kept in`,
    );
  const origins = env[CODEC_CORS_ORIGINS_ENV]
    ?.split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const authorization = env[CODEC_AUTH_ENV]?.trim();
  return {
    codec,
    externalStorage,
    corsOrigins: origins?.length ? origins : DEFAULT_CORS_ORIGINS,
    ...(authorization ? { authorization } : {}),
  };
}

function parsePayloads(raw: string): Payload[] {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'the body is not JSON; expected {"payloads": [...]}');
  }
  if (!body || typeof body !== 'object' || !Array.isArray((body as { payloads?: unknown }).payloads)) {
    throw new HttpError(400, 'expected a JSON body {"payloads": [{"metadata": {...}, "data": "<base64>"}]}');
  }
  try {
    return Payloads.fromObject(body).payloads;
  } catch (e) {
    throw new HttpError(400, `malformed payloads: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Starts the codec server; `codecServerOptionsFromEnv()` gives the options of a deployment. */
export async function startCodecServer(o: CodecServerOptions): Promise<CodecServer> {
  const origins = o.corsOrigins ?? DEFAULT_CORS_ORIGINS;
  const log = o.log ?? (() => undefined);
  const stored = o.externalStorage ? new ExternalStorageRunner(o.externalStorage) : undefined;
  // Encoded as the TS client's converter does: the codecs, then payloads over the threshold kept in the store,
  // so a client in another language sending documents through this server keeps them out of the history (decision 60).
  const encode = async (payloads: Payload[]) => {
    const encoded = o.codec ? await o.codec.encode(payloads) : payloads;
    if (!stored) return encoded;
    // The reference's size note (`externalPayloads`, Temporal's newer protos) is for metrics only; SDKs on older
    // protos (Python 1.20) refuse a field they do not know, and the reference itself is all a reader needs.
    return (await stored.store(encoded)).map(({ externalPayloads: _size, ...reference }) => reference);
  };
  // References are resolved first: what the store holds was encoded (encrypted) before it was stored.
  const decode = async (payloads: Payload[]) => {
    const resolved = stored ? await stored.retrieve(payloads) : payloads;
    return o.codec ? o.codec.decode(resolved) : resolved;
  };

  function cors(req: IncomingMessage, res: ServerResponse) {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    if (!origins.includes('*') && !origins.includes(origin)) return;
    // The origin itself, never "*": the UI may send credentials, and browsers refuse "*" with them.
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
    res.setHeader('Access-Control-Max-Age', '600');
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    cors(req, res);
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    // The UI and the CLI append /encode or /decode to the configured endpoint, which may carry a prefix (e.g. /<namespace>).
    const action = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && (path === '' || path === '/health')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (!action) throw new HttpError(404, `unknown endpoint ${req.method} ${path || '/'}: POST /encode or /decode`);
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} ${path}: use POST`);
    if (o.authorization !== undefined && !sameSecret(req.headers.authorization, o.authorization)) {
      throw new HttpError(401, 'missing or wrong Authorization header');
    }
    const payloads = parsePayloads(await readBody(req, MAX_BODY_BYTES));
    let out: Payload[];
    try {
      out = action === 'encode' ? await encode(payloads) : await decode(payloads);
    } catch (e) {
      throw new HttpError(400, e instanceof Error ? e.message : String(e));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(Payloads.toObject(Payloads.create({ payloads: out }), { bytes: String })));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      log(`codec server: ${req.method} ${req.url} -> ${status} ${message}`);
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(`${message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 8888, o.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host === undefined || o.host === '0.0.0.0' ? '127.0.0.1' : o.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
