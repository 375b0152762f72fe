import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CODEC_KEYS_ENV } from '../codec/keys';
import { CODEC_AUTH_ENV, CODEC_CORS_ORIGINS_ENV } from '../codec/server';
import { blobStoreFromEnv, STORE_ENV } from '../store/config';
import { packageRoot } from '../util/build-manifest';
import { isAlive, LOOPBACK, spawnTracked, startTimeOf, terminate } from './process';

// The codec server that runs beside the CLI's local dev server, so that its Web UI shows the
// documents a run keeps in the payload store (and decrypts them, with GOT_CODEC_KEYS) instead of
// their references. It is `got codec-server`, the program a deployment runs, started detached.

/** The codec server listens next to the Web UI: 8234 beside the dev server's 8233. */
export const codecPortBeside = (uiPort: number) => uiPort + 1;

/** The codec server the local server's record (server.json) keeps. */
export interface LocalCodecRecord {
  pid: number;
  /** Clock ticks since boot: tells the process from a later one that reused its pid. */
  startTime?: number;
  url: string;
  logFile: string;
  /** A digest of the store and keys it serves ({@link codecSettingsOf}), never the keys. */
  settings: string;
}

const GOT_BIN = join(packageRoot(import.meta.url), 'bin', 'got.js');

/**
 * The environment the codec server runs with: the command's store and keys, CORS for the Web UI's
 * origins, no Authorization (the dev server's UI cannot send one; like the dev server itself, the
 * codec listens on the loopback address only).
 */
function codecEnvOf(env: NodeJS.ProcessEnv, uiUrl: string): NodeJS.ProcessEnv {
  const { [CODEC_AUTH_ENV]: _auth, [STORE_ENV]: store, ...rest } = env;
  const { port } = new URL(uiUrl);
  return {
    ...rest,
    // With the store off, runs made earlier still hold references to the default store: read that one.
    ...(store !== undefined && store.trim() !== 'off' ? { [STORE_ENV]: store } : {}),
    [CODEC_CORS_ORIGINS_ENV]: [`http://${LOOPBACK}:${port}`, `http://localhost:${port}`].join(','),
  };
}

/** Which store and keys a codec server started with `env` serves, as a digest: a change means it must be restarted. */
export function codecSettingsOf(env: NodeJS.ProcessEnv): string {
  let store: string;
  try {
    store = blobStoreFromEnv(codecEnvOf(env, 'http://x'))?.description ?? 'off';
  } catch {
    // A malformed GOT_STORE: the command reports it; the codec cannot start with it either.
    store = env[STORE_ENV] ?? '';
  }
  return createHash('sha256')
    .update(JSON.stringify([store, env[CODEC_KEYS_ENV]?.trim() ?? '']))
    .digest('hex')
    .slice(0, 16);
}

/** True when a codec server answers its health check at `url`. */
export async function codecAnswers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

/** Starts `got codec-server` detached on the loopback address; resolves once it answers. */
export async function startLocalCodec(o: {
  port: number;
  /** The Web UI whose pages call it (their origin is allowed by CORS). */
  uiUrl: string;
  /** The command's environment: its GOT_STORE and GOT_CODEC_KEYS are served. */
  env: NodeJS.ProcessEnv;
  logFile: string;
  timeoutMs?: number;
}): Promise<LocalCodecRecord> {
  await mkdir(dirname(o.logFile), { recursive: true });
  const url = `http://${LOOPBACK}:${o.port}`;
  const args = [GOT_BIN, 'codec-server', '--host', LOOPBACK, '--port', String(o.port)];
  const codec = spawnTracked(process.execPath, args, { logFile: o.logFile, detached: true, env: codecEnvOf(o.env, o.uiUrl) });
  const { pid } = codec.child;
  // The first start after a source change rebuilds dist/ first (bin/compiled.js): allow for it.
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  while (!(await codecAnswers(url))) {
    if (pid === undefined || codec.exited())
      throw new Error(`the codec server exited before answering at ${url}. Last output:\n${await codec.logTail()}`);
    if (Date.now() > deadline) {
      await terminate(pid, 5_000);
      throw new Error(`the codec server did not answer at ${url} within ${(o.timeoutMs ?? 60_000) / 1000}s; see ${o.logFile}`);
    }
    await sleep(200);
  }
  return { pid: pid!, startTime: startTimeOf(pid!), url, logFile: o.logFile, settings: codecSettingsOf(o.env) };
}

/** Whether the recorded codec server is still the process that was started. */
export function isLocalCodecRunning(record: LocalCodecRecord | undefined): boolean {
  if (!record || !isAlive(record.pid)) return false;
  // Without procfs there is no start time to compare: trust the pid.
  const startTime = startTimeOf(record.pid);
  return record.startTime === undefined || startTime === undefined || startTime === record.startTime;
}

/** Stops the recorded codec server; false when it was not running. */
export async function stopLocalCodec(record: LocalCodecRecord | undefined): Promise<boolean> {
  if (!record || !isLocalCodecRunning(record)) return false;
  await terminate(record.pid, 5_000);
  return true;
}
