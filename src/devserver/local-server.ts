import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureSearchAttributes } from '../run/register-search-attributes';
import { ensureRetention } from '../temporal/namespace-retention';
import { localRetentionSeconds, retentionInWords, SERVER_RETENTION_ENV } from '../temporal/retention';
import { DEV_SERVER_DEFAULTS, type DevServerHandle, isServerHealthy, startDevServer } from './dev-server';
import {
  codecAnswers,
  codecPortBeside,
  codecSettingsOf,
  isLocalCodecRunning,
  type LocalCodecRecord,
  startLocalCodec,
  stopLocalCodec,
} from './local-codec';
import { commandLineOf, isAlive, isPortFree, terminate } from './process';
import { ensureTemporalCli } from './temporal-cli';

// The long-lived local server of the demo and the CLI: started detached on first use, kept running
// between commands, and tracked in <stateDir>/server.json so a later command can reuse or stop it.
// A codec server runs beside it (local-codec.ts), so its Web UI shows stored documents.

/** Where the local server keeps its state, and on which ports it runs. */
export interface LocalServerOptions {
  /** Directory for server.json, the SQLite database and the server log (e.g. <repo>/.got). */
  stateDir: string;
  port?: number;
  uiPort?: number;
  /** The codec server's port, default the one next to the Web UI's ({@link codecPortBeside}). */
  codecPort?: number;
  /** The environment whose payload store and keys the codec server serves, default this process's. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** The local server a command talks to. */
export interface LocalServerInfo {
  address: string;
  uiUrl: string;
  /** The codec server its Web UI calls; absent when it has none (a server started without one, or a foreign one). */
  codecUrl?: string;
  /** False when an already running server was reused. */
  started: boolean;
}

interface ServerState {
  pid: number;
  address: string;
  uiUrl: string;
  dbFile: string;
  logFile: string;
  startedAt: string;
  /** The codec endpoint the server's Web UI calls; absent when it was started without one (e.g. by an older version). */
  uiCodecEndpoint?: string;
  /** The codec server serving that endpoint, as last started. */
  codec?: LocalCodecRecord;
  /** The retention last set on its namespace, in seconds; absent for a server started before decision 84. */
  retentionSeconds?: number;
}

const stateFile = (stateDir: string) => join(stateDir, 'server.json');
const codecLogFile = (stateDir: string) => join(stateDir, 'codec-server.log');
const { ip, namespace } = DEV_SERVER_DEFAULTS;

/** What the Web UI shows when its server runs without a codec endpoint, and how to get one. */
const NO_CODEC_HINT =
  'its Web UI shows stored documents as references (it was started without a codec server); ' +
  'stop it (npm run server:stop) and the next command starts it with one';

/** Reuses the recorded or an already listening server, or starts one detached and records it. */
export async function ensureLocalServer(opts: LocalServerOptions): Promise<LocalServerInfo> {
  const log = opts.log ?? (() => {});
  const env = opts.env ?? process.env;
  const port = opts.port ?? DEV_SERVER_DEFAULTS.port;
  const uiPort = opts.uiPort ?? DEV_SERVER_DEFAULTS.uiPort;
  const codecPort = opts.codecPort ?? codecPortBeside(uiPort);
  const address = `${ip}:${port}`;
  const uiUrl = `http://${ip}:${uiPort}`;
  // Checked before anything starts: a bad value names the variable.
  const retention = localRetentionSeconds(env);

  const recorded = await readState(opts.stateDir);
  if (recorded && isAlive(recorded.pid) && looksLikeTemporal(recorded.pid)) {
    const reused = await reuseRecordedServer(opts.stateDir, recorded, env, log);
    // Asked of the server only when the setting differs from what it was last given (one round trip less per command).
    if (recorded.retentionSeconds !== retention) {
      await keepRuns(reused.address, retention, log);
      await writeState(opts.stateDir, { ...((await readState(opts.stateDir)) ?? recorded), retentionSeconds: retention });
    }
    return reused;
  }
  if (recorded) {
    // The server is gone; its codec server must not outlive it unrecorded.
    await stopLocalCodec(recorded.codec);
    await rm(stateFile(opts.stateDir), { force: true });
  }

  if (await isServerHealthy(address)) return reuseForeignServer(address, uiUrl, log);

  const binary = await ensureTemporalCli({ log });
  const dbFile = join(opts.stateDir, 'temporal.sqlite');
  const logFile = join(opts.stateDir, 'temporal-server.log');
  log(`Starting Temporal dev server at ${address} (state in ${dbFile}, log in ${logFile}).`);

  // The codec server starts while the Temporal server does; the UI is pointed at it only when its port is free.
  const codecUrl = `http://${ip}:${codecPort}`;
  const codecPortFree = await isPortFree(ip, codecPort);
  if (!codecPortFree) log(`Port ${codecPort} is in use, so no codec server: the Web UI will show stored documents as references.`);
  const codecStart = codecPortFree
    ? startLocalCodec({ port: codecPort, uiUrl, env, logFile: codecLogFile(opts.stateDir) }).catch((err: unknown) => {
        log(`The codec server did not start (${err instanceof Error ? err.message : String(err)}); the next command tries again.`);
        return undefined;
      })
    : undefined;

  let handle: DevServerHandle;
  try {
    handle = await startDevServer({
      binary,
      port,
      uiPort,
      ui: true,
      dbFile,
      logFile,
      detached: true,
      ...(codecPortFree ? { uiCodecEndpoint: codecUrl } : {}),
    });
  } catch (err) {
    await stopLocalCodec(await codecStart);
    // Another process may have won a race to start the same server.
    if (await isServerHealthy(address)) return reuseForeignServer(address, uiUrl, log);
    throw err;
  }
  const codec = await codecStart;
  await keepRuns(handle.address, retention, log);

  const state: ServerState = {
    pid: handle.pid,
    address: handle.address,
    uiUrl: handle.uiUrl ?? uiUrl,
    dbFile,
    logFile,
    startedAt: new Date().toISOString(),
    retentionSeconds: retention,
    ...(codecPortFree ? { uiCodecEndpoint: codecUrl } : {}),
    ...(codec ? { codec } : {}),
  };
  await writeState(opts.stateDir, state);
  log(`Temporal dev server running (pid ${state.pid}); Web UI at ${state.uiUrl}${codec ? `, its codec server at ${codec.url}` : ''}.`);
  return { address: state.address, uiUrl: state.uiUrl, ...(codec ? { codecUrl: codec.url } : {}), started: true };
}

/**
 * The local server keeps closed runs for `seconds` (the dev server's own default is a day, after
 * which `got inspect` and the Web UI no longer find them); says so when it changes it. A foreign
 * server is left as its owner configured it.
 */
async function keepRuns(address: string, seconds: number, log: (line: string) => void): Promise<void> {
  const change = await ensureRetention(address, namespace, seconds);
  if (!change.changed) return;
  const was = change.from === undefined ? '' : ` (it kept them ${retentionInWords(change.from)})`;
  log(`The local server now keeps finished runs for ${retentionInWords(seconds)}${was}; ${SERVER_RETENTION_ENV} sets how long.`);
}

async function reuseRecordedServer(
  stateDir: string,
  recorded: ServerState,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<LocalServerInfo> {
  // It may still be starting up (e.g. launched a moment ago by another command).
  const deadline = Date.now() + 30_000;
  while (!(await isServerHealthy(recorded.address))) {
    if (Date.now() > deadline || !isAlive(recorded.pid)) {
      throw new Error(
        `The Temporal dev server recorded in server.json (pid ${recorded.pid}) is not answering at ` +
          `${recorded.address}. See ${recorded.logFile}, then stop it (npm run server:stop) and retry.`,
      );
    }
    await sleep(500);
  }
  await ensureSearchAttributes({ address: recorded.address }, namespace);
  // A server from an older version has no codec endpoint: it is left running (runs work), with a hint.
  if (!recorded.uiCodecEndpoint) {
    log(`Reusing Temporal dev server (pid ${recorded.pid}) at ${recorded.address}; Web UI at ${recorded.uiUrl}: ${NO_CODEC_HINT}.`);
    return { address: recorded.address, uiUrl: recorded.uiUrl, started: false };
  }
  const codec = await keepCodecServing(stateDir, recorded, env, log);
  log(`Reusing Temporal dev server (pid ${recorded.pid}) at ${recorded.address}; Web UI at ${recorded.uiUrl}.`);
  return { address: recorded.address, uiUrl: recorded.uiUrl, ...(codec ? { codecUrl: codec.url } : {}), started: false };
}

/**
 * The recorded server's codec server, restarted when it died or when this command's store or keys
 * differ from the ones it serves (the endpoint stays the same, so the Temporal server needs no restart).
 */
async function keepCodecServing(
  stateDir: string,
  recorded: ServerState,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<LocalCodecRecord | undefined> {
  const endpoint = recorded.uiCodecEndpoint!;
  const running = isLocalCodecRunning(recorded.codec);
  if (running && recorded.codec!.settings === codecSettingsOf(env)) return recorded.codec;
  if (running) log(`Restarting the codec server at ${endpoint} for this command's payload store and keys.`);
  await stopLocalCodec(recorded.codec);
  try {
    const codec = await startLocalCodec({
      port: Number(new URL(endpoint).port),
      uiUrl: recorded.uiUrl,
      env,
      logFile: codecLogFile(stateDir),
    });
    await writeState(stateDir, { ...recorded, codec });
    return codec;
  } catch (err) {
    // Another command may have restarted it a moment ago.
    if (await codecAnswers(endpoint)) return undefined;
    log(
      `The codec server did not start (${err instanceof Error ? err.message : String(err)}); the Web UI shows stored documents as references.`,
    );
    return undefined;
  }
}

async function reuseForeignServer(address: string, uiUrl: string, log: (line: string) => void): Promise<LocalServerInfo> {
  await ensureSearchAttributes({ address }, namespace);
  log(`Reusing the Temporal server already listening at ${address}.`);
  return { address, uiUrl, started: false };
}

/** What {@link stopLocalServer} stopped. */
export interface StoppedLocalServer {
  server: boolean;
  codec: boolean;
}

/** Stops the server recorded in <stateDir>/server.json and its codec server. */
export async function stopLocalServer(stateDir: string): Promise<StoppedLocalServer> {
  const state = await readState(stateDir);
  if (!state) return { server: false, codec: false };
  const codec = await stopLocalCodec(state.codec);
  const running = isAlive(state.pid) && looksLikeTemporal(state.pid);
  if (running) await terminate(state.pid);
  await rm(stateFile(stateDir), { force: true });
  return { server: running, codec };
}

async function readState(stateDir: string): Promise<ServerState | undefined> {
  try {
    const state = JSON.parse(await readFile(stateFile(stateDir), 'utf8')) as Partial<ServerState>;
    if (typeof state.pid === 'number' && typeof state.address === 'string') return state as ServerState;
  } catch {
    // Missing or corrupt: treat as no recorded server.
  }
  return undefined;
}

/** The codec server of the local server, as `got doctor` reports it. */
export type LocalCodecStatus =
  /** No local server is recorded: the codec server starts with it, at `url`. */
  | { state: 'not started'; url: string }
  /** The recorded server was started without a codec endpoint (e.g. by an older version). */
  | { state: 'server without codec'; serverPid: number }
  /** The server's codec endpoint, whether it answers, and whether it serves this environment's store and keys. */
  | { state: 'recorded'; url: string; answers: boolean; current: boolean; logFile: string };

/** What the local server's record says of its codec server, and whether it answers; starts nothing. */
export async function localCodecStatus(o: { stateDir: string; uiPort?: number; env?: NodeJS.ProcessEnv }): Promise<LocalCodecStatus> {
  const recorded = await readState(o.stateDir);
  if (!recorded || !isAlive(recorded.pid) || !looksLikeTemporal(recorded.pid))
    return { state: 'not started', url: `http://${ip}:${codecPortBeside(o.uiPort ?? DEV_SERVER_DEFAULTS.uiPort)}` };
  if (!recorded.uiCodecEndpoint) return { state: 'server without codec', serverPid: recorded.pid };
  return {
    state: 'recorded',
    url: recorded.uiCodecEndpoint,
    answers: isLocalCodecRunning(recorded.codec) && (await codecAnswers(recorded.uiCodecEndpoint)),
    current: recorded.codec?.settings === codecSettingsOf(o.env ?? process.env),
    logFile: recorded.codec?.logFile ?? codecLogFile(o.stateDir),
  };
}

/** Replaces server.json whole: a command reading it at the same moment never sees half of it. */
async function writeState(stateDir: string, state: ServerState): Promise<void> {
  const partial = `${stateFile(stateDir)}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(state, null, 2)}\n`);
  await rename(partial, stateFile(stateDir));
}

/** Guards against signalling an unrelated process that reused a stale pid. */
function looksLikeTemporal(pid: number): boolean {
  // No procfs (macOS): trust the recorded pid.
  return commandLineOf(pid)?.includes('start-dev') ?? true;
}
