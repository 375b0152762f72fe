import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../devserver/process';
import type { ProcessRecord } from './processes';

// A cluster's state folder holds cluster.json (its settings and the processes it started), its codec
// keys, one log per process, MinIO's objects and (unless we are root) PostgreSQL's data.

/** Names the state folder of `got cluster` when `--state-dir` does not. */
export const CLUSTER_DIR_ENV = 'GOT_CLUSTER_DIR';

/** The default state folder: `$XDG_DATA_HOME/got-temporal/cluster` (~/.local/share/got-temporal/cluster). */
export const defaultClusterDir = (env: NodeJS.ProcessEnv = process.env) =>
  resolve(env[CLUSTER_DIR_ENV] || join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'got-temporal', 'cluster'));

/** Where the LLM calls of the cluster's workers go. */
export type ClusterLlm = { simulated: true; latencyMs: number } | { simulated: false; baseURL: string };

/** What cluster.json records. */
export interface ClusterState {
  version: 1;
  portBase: number;
  workers: number;
  llm: ClusterLlm;
  /** PostgreSQL's data folder (outside the state folder when we are root). */
  postgresDataDir: string;
  /** The server version whose schemas the database has (set up again only for another version or a new database). */
  schemaVersion?: string;
  /** Running processes by part name (`postgres`, `temporal`, `worker-0`...). */
  processes: Record<string, ProcessRecord>;
}

const stateFile = (dir: string) => join(dir, 'cluster.json');

/** Log files live here, one per process. */
export const logDir = (dir: string) => join(dir, 'logs');

/** The cluster.json of `dir`, or undefined when there is none (never brought up, or purged). */
export async function readState(dir: string): Promise<ClusterState | undefined> {
  const text = await readFile(stateFile(dir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const state = JSON.parse(text) as ClusterState;
  if (state.version !== 1)
    throw new Error(`${stateFile(dir)} is of another version (${String(state.version)}); run \`got cluster down --purge\``);
  return state;
}

/** Writes cluster.json whole (never half-written: written aside, then renamed). */
export async function writeState(dir: string, state: ClusterState): Promise<void> {
  const tmp = `${stateFile(dir)}.${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`);
  await rename(tmp, stateFile(dir));
}

/** The codec keys of the cluster (`GOT_CODEC_KEYS` syntax), kept readable by this user only. */
export const codecKeysFile = (dir: string) => join(dir, 'codec-keys');

/** Reads the cluster's codec keys, if it has some yet. */
export async function readCodecKeys(dir: string): Promise<string | undefined> {
  return (await readFile(codecKeysFile(dir), 'utf8').catch(() => undefined))?.trim() || undefined;
}

/** Keeps the cluster's codec keys. */
export async function writeCodecKeys(dir: string, keys: string): Promise<void> {
  await writeFile(codecKeysFile(dir), `${keys}\n`, { mode: 0o600 });
}

/**
 * Runs `fn` holding the state folder's lock, so two `up`s (or an `up` and a `down`) never act on the
 * same cluster at once; a lock whose holder died is taken over.
 */
export async function withClusterLock<T>(dir: string, fn: () => Promise<T>, log: (line: string) => void): Promise<T> {
  await mkdir(dir, { recursive: true });
  const lock = join(dir, '.lock');
  let said = false;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''), 10);
    // A holder that died, or one that never wrote its pid (it died right after taking the lock).
    const lockAgeMs = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
    if (Number.isInteger(holder) ? !isAlive(holder) : lockAgeMs > 10_000) {
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    if (!said) log(`Another got cluster command (pid ${Number.isInteger(holder) ? holder : '?'}) is working on ${dir}; waiting for it.`);
    said = true;
    await sleep(500);
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
