import { connect as tlsConnect } from 'node:tls';
import { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { TemporalConnectionOptions } from './connection';

/** A Temporal frontend could not be reached with the configured settings; the message says why, as far as a TLS handshake tells. */
export class TemporalConnectError extends Error {
  override readonly name = 'TemporalConnectError';
}

/** `Connection.connect` (the client's), with a failure explained. */
export async function connectClient(options: TemporalConnectionOptions): Promise<Connection> {
  try {
    return await Connection.connect(options);
  } catch (error) {
    throw await explainConnectFailure(options, error);
  }
}

/** `NativeConnection.connect` (a worker's), with a failure explained; the worker package is loaded only here. */
export async function connectNative(options: TemporalConnectionOptions): Promise<NativeConnection> {
  const { NativeConnection } = await import('@temporalio/worker');
  try {
    return await NativeConnection.connect(options);
  } catch (error) {
    throw await explainConnectFailure(options, error);
  }
}

/** How long the diagnosing handshake may take. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * The client's own failure is often just "Failed to connect before the deadline": a TLS handshake
 * of our own to the same address, with the same CA and certificate, tells what went wrong.
 */
export async function explainConnectFailure(options: TemporalConnectionOptions, error: unknown): Promise<TemporalConnectError> {
  const cause = error instanceof Error ? error.message : String(error);
  const tls = options.tls ? (typeof options.tls === 'object' ? options.tls : {}) : undefined;
  const found = await handshake(options.address, tls);
  const reason = tls
    ? tlsReason(found)
    : found.ok
      ? 'the server speaks TLS: set TEMPORAL_TLS=true (and its CA if it has its own)'
      : plainReason(found);
  return new TemporalConnectError(
    `cannot connect to Temporal at ${options.address} (${tls ? 'TLS' : 'plaintext'}): ${reason ?? cause}${reason ? ` (${cause})` : ''}`,
    { cause: error },
  );
}

type Handshake = { ok: true } | { ok: false; code?: string; message: string };

/** What the server's first answer to a TLS hello says; with `tls` absent, any certificate is accepted (we only ask whether it speaks TLS). */
function handshake(address: string, tls: Exclude<TemporalConnectionOptions['tls'], boolean | undefined> | undefined): Promise<Handshake> {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const servername = tls?.serverNameOverride ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host,
      port: Number(address.slice(colon + 1)),
      ALPNProtocols: ['h2'],
      rejectUnauthorized: tls !== undefined,
      ...(servername ? { servername } : {}),
      ...(tls?.serverRootCACertificate ? { ca: Buffer.from(tls.serverRootCACertificate) } : {}),
      ...(tls?.clientCertPair ? { cert: Buffer.from(tls.clientCertPair.crt), key: Buffer.from(tls.clientCertPair.key) } : {}),
    });
    const done = (result: Handshake) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done({ ok: false, code: 'ETIMEDOUT', message: 'no answer' }));
    // A server that wants a client certificate refuses it only after the handshake, on the first read.
    socket.once('secureConnect', () => setTimeout(() => done({ ok: true }), 200));
    socket.once('error', (e: NodeJS.ErrnoException) => done({ ok: false, ...(e.code ? { code: e.code } : {}), message: e.message }));
  });
}

/** Why a TLS connection failed, in the settings' words; undefined when the handshake succeeded (the cause is elsewhere). */
function tlsReason(h: Handshake): string | undefined {
  if (h.ok) return undefined;
  const code = h.code ?? '';
  const message = opensslReason(h.message);
  // An alert is the server's complaint about us: checked before our complaints about its certificate.
  if (/alert (certificate required|bad certificate|unknown ca|certificate unknown|handshake failure)/i.test(message))
    return `the server refused this client's certificate or wants one (${message}): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH to a pair its CA signed`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the server's certificate is for another name (${message}): set TEMPORAL_TLS_SERVER_NAME to a name it carries`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code))
    return `the server's certificate is not signed by a CA this process trusts (${message}): set TEMPORAL_TLS_SERVER_CA_CERT_PATH to the CA that signed it`;
  if (/wrong version number|packet length too long/i.test(message))
    return 'the server does not speak TLS: unset TEMPORAL_TLS or set it to false';
  return plainReason(h);
}

/** OpenSSL's words without its location (`...:SSL routines:<function>:<reason>:<file>:...`). */
const opensslReason = (message: string) => /SSL routines:[^:]*:([^:]+):/.exec(message)?.[1] ?? message.trim();

/** Why nothing answered at all. */
function plainReason(h: Handshake): string | undefined {
  if (h.ok) return undefined;
  if (h.code === 'ECONNREFUSED') return 'nothing listens there';
  if (h.code === 'ENOTFOUND' || h.code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (h.code === 'ETIMEDOUT') return 'no answer within 5 s';
  return undefined;
}
