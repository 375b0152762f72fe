import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureSearchAttributes } from '../run/register-search-attributes';
import { DEV_SERVER_DEFAULTS, type DevServerHandle, isServerHealthy, startDevServer } from './dev-server';
import { commandLineOf, isAlive, terminate } from './process';
import { ensureTemporalCli } from './temporal-cli';

// The long-lived local server of the demo and the CLI: started detached on first use, kept running
// between commands, and tracked in <stateDir>/server.json so a later command can reuse or stop it.

/** Where the local server keeps its state, and on which ports it runs. */
export interface LocalServerOptions {
  /** Directory for server.json, the SQLite database and the server log (e.g. <repo>/.got). */
  stateDir: string;
  port?: number;
  uiPort?: number;
  log?: (line: string) => void;
}

/** The local server a command talks to. */
export interface LocalServerInfo {
  address: string;
  uiUrl: string;
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
}

const stateFile = (stateDir: string) => join(stateDir, 'server.json');
const { ip, namespace } = DEV_SERVER_DEFAULTS;

/** Reuses the recorded or an already listening server, or starts one detached and records it. */
export async function ensureLocalServer(opts: LocalServerOptions): Promise<LocalServerInfo> {
  const log = opts.log ?? (() => {});
  const port = opts.port ?? DEV_SERVER_DEFAULTS.port;
  const uiPort = opts.uiPort ?? DEV_SERVER_DEFAULTS.uiPort;
  const address = `${ip}:${port}`;
  const uiUrl = `http://${ip}:${uiPort}`;

  const recorded = await readState(opts.stateDir);
  if (recorded && isAlive(recorded.pid) && looksLikeTemporal(recorded.pid)) {
    return reuseRecordedServer(recorded, log);
  }
  if (recorded) await rm(stateFile(opts.stateDir), { force: true });

  if (await isServerHealthy(address)) return reuseForeignServer(address, uiUrl, log);

  const binary = await ensureTemporalCli({ log });
  const dbFile = join(opts.stateDir, 'temporal.sqlite');
  const logFile = join(opts.stateDir, 'temporal-server.log');
  log(`Starting Temporal dev server at ${address} (state in ${dbFile}, log in ${logFile}).`);

  let handle: DevServerHandle;
  try {
    handle = await startDevServer({ binary, port, uiPort, ui: true, dbFile, logFile, detached: true });
  } catch (err) {
    // Another process may have won a race to start the same server.
    if (await isServerHealthy(address)) return reuseForeignServer(address, uiUrl, log);
    throw err;
  }

  const state: ServerState = {
    pid: handle.pid,
    address: handle.address,
    uiUrl: handle.uiUrl ?? uiUrl,
    dbFile,
    logFile,
    startedAt: new Date().toISOString(),
  };
  await writeFile(stateFile(opts.stateDir), `${JSON.stringify(state, null, 2)}\n`);
  log(`Temporal dev server running (pid ${state.pid}); Web UI at ${state.uiUrl}.`);
  return { address: state.address, uiUrl: state.uiUrl, started: true };
}

async function reuseRecordedServer(recorded: ServerState, log: (line: string) => void): Promise<LocalServerInfo> {
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
  log(`Reusing Temporal dev server (pid ${recorded.pid}) at ${recorded.address}; Web UI at ${recorded.uiUrl}.`);
  return { address: recorded.address, uiUrl: recorded.uiUrl, started: false };
}

async function reuseForeignServer(address: string, uiUrl: string, log: (line: string) => void): Promise<LocalServerInfo> {
  await ensureSearchAttributes({ address }, namespace);
  log(`Reusing the Temporal server already listening at ${address}.`);
  return { address, uiUrl, started: false };
}

/** Stops the server recorded in <stateDir>/server.json. Returns false if none was running. */
export async function stopLocalServer(stateDir: string): Promise<boolean> {
  const state = await readState(stateDir);
  if (!state) return false;
  const running = isAlive(state.pid) && looksLikeTemporal(state.pid);
  if (running) await terminate(state.pid);
  await rm(stateFile(stateDir), { force: true });
  return running;
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

/** Guards against signalling an unrelated process that reused a stale pid. */
function looksLikeTemporal(pid: number): boolean {
  // No procfs (macOS): trust the recorded pid.
  return commandLineOf(pid)?.includes('start-dev') ?? true;
}
