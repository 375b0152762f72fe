import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { GOT_SEARCH_ATTRIBUTES } from '../run/search-attributes';
import { ensureTemporalCli } from './temporal-cli';

// The CLI's and the operator API's names of the SDK's search attribute types.
const TYPE_NAMES = { KEYWORD: 'Keyword', DOUBLE: 'Double', TEXT: 'Text', INT: 'Int', BOOL: 'Bool', DATETIME: 'Datetime', KEYWORD_LIST: 'KeywordList' } as const;

/** Custom search attributes the engine writes (see src/run/search-attributes.ts); registered on every server we start. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, SearchAttributeType>> = Object.fromEntries(
  Object.values(GOT_SEARCH_ATTRIBUTES).map((key) => [key.name, TYPE_NAMES[key.type]]),
);

export type SearchAttributeType = (typeof TYPE_NAMES)[keyof typeof TYPE_NAMES];

// Numeric values of temporal.api.enums.v1.IndexedValueType (avoids a direct @temporalio/proto dependency).
const INDEXED_VALUE_TYPES = ['Unspecified', 'Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'];

export interface DevServerOptions {
  binary: string;
  /** Default 127.0.0.1. */
  ip?: string;
  /** gRPC frontend port, default 7233. */
  port?: number;
  /** Web UI port, default 8233. */
  uiPort?: number;
  /** Serve the Web UI, default true. */
  ui?: boolean;
  /** SQLite file; undefined = in-memory (state is lost when the server stops). */
  dbFile?: string;
  /** Default 'default'. */
  namespace?: string;
  logFile?: string;
  /** Keep the server running after this Node process exits. */
  detached?: boolean;
  /** How long to wait for the server to become healthy, default 60s. */
  startupTimeoutMs?: number;
}

export interface DevServerHandle {
  /** host:port of the gRPC frontend. */
  address: string;
  uiUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

const DEFAULT_IP = '127.0.0.1';
const DEFAULT_PORT = 7233;
const DEFAULT_UI_PORT = 8233;
const DEFAULT_NAMESPACE = 'default';

export async function startDevServer(opts: DevServerOptions): Promise<DevServerHandle> {
  const ip = opts.ip ?? DEFAULT_IP;
  const port = opts.port ?? DEFAULT_PORT;
  const uiPort = opts.uiPort ?? DEFAULT_UI_PORT;
  const ui = opts.ui ?? true;
  const namespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const address = `${ip}:${port}`;

  await assertPortFree(ip, port, 'gRPC frontend');
  if (ui) await assertPortFree(ip, uiPort, 'Web UI');
  if (opts.dbFile) await mkdir(dirname(opts.dbFile), { recursive: true });
  if (opts.logFile) await mkdir(dirname(opts.logFile), { recursive: true });

  const server = spawnServer(opts.binary, devServerArgs({ ...opts, ip, port, uiPort, ui, namespace }), opts);
  try {
    await waitUntilHealthy(address, namespace, server, opts.startupTimeoutMs ?? 60_000);
    await ensureSearchAttributes(address, namespace);
  } catch (err) {
    server.dispose();
    if (server.child.pid) await terminate(server.child.pid);
    throw err;
  }

  return {
    address,
    uiUrl: ui ? `http://${ip}:${uiPort}` : undefined,
    pid: server.child.pid!,
    stop: async () => {
      server.dispose();
      await terminate(server.child.pid!);
    },
  };
}

type ResolvedOptions = DevServerOptions & { ip: string; port: number; uiPort: number; ui: boolean; namespace: string };

function devServerArgs(o: ResolvedOptions): string[] {
  const args = ['server', 'start-dev', '--ip', o.ip, '--port', String(o.port), '--log-level', 'warn'];
  args.push(...(o.ui ? ['--ui-port', String(o.uiPort)] : ['--headless']));
  if (o.dbFile) args.push('--db-filename', o.dbFile);
  // "default" is always created; passing it again would try to register it twice.
  if (o.namespace !== DEFAULT_NAMESPACE) args.push('--namespace', o.namespace);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  // An activity scheduled by a workflow task goes straight back to the worker that completed it,
  // skipping a round trip through the task queue: the next LLM call starts sooner.
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // One partition per task queue: with the default four, a task and an idle poller can sit in different
  // partitions and wait for the server to forward one to the other. One machine needs no more.
  args.push('--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1');
  args.push('--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1');
  return args;
}

interface SpawnedServer {
  child: ChildProcess;
  exited: () => boolean;
  logTail: () => Promise<string>;
  /** Detach our bookkeeping (exit hook) once the server is stopped deliberately. */
  dispose: () => void;
}

function spawnServer(binary: string, args: string[], opts: DevServerOptions): SpawnedServer {
  const recent: string[] = [];
  const logFd = opts.logFile ? openSync(opts.logFile, 'a') : undefined;
  const output = logFd ?? (opts.detached ? 'ignore' : 'pipe');

  const child = spawn(binary, args, { detached: opts.detached ?? false, stdio: ['ignore', output, output] });
  if (logFd !== undefined) closeSync(logFd);

  let hasExited = false;
  child.once('exit', () => (hasExited = true));
  child.once('error', (err) => {
    hasExited = true;
    recent.push(`spawn failed: ${err.message}`);
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => remember(recent, line));
  }

  // An attached server must not outlive us, even if the caller forgets stop().
  const killOnExit = () => child.kill('SIGKILL');
  if (opts.detached) child.unref();
  else process.once('exit', killOnExit);

  return {
    child,
    exited: () => hasExited,
    logTail: async () => (opts.logFile ? tailFile(opts.logFile) : recent.join('\n')),
    dispose: () => process.off('exit', killOnExit),
  };
}

function remember(lines: string[], line: string): void {
  lines.push(line);
  if (lines.length > 40) lines.shift();
}

async function tailFile(file: string, count = 40): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

async function waitUntilHealthy(address: string, namespace: string, server: SpawnedServer, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exited()) {
      throw new Error(`temporal server start-dev exited before becoming healthy. Last output:\n${await server.logTail()}`);
    }
    if (await isServerHealthy(address, namespace)) return;
    await sleep(250);
  }
  throw new Error(
    `temporal server start-dev did not become healthy at ${address} within ${timeoutMs / 1000}s. ` +
      `Last output:\n${await server.logTail()}`,
  );
}

/** True when a Temporal frontend answers at `address` (and knows `namespace`, if given). */
export async function isServerHealthy(address: string, namespace?: string): Promise<boolean> {
  // Lazy + no retry interceptors: a probe must fail fast instead of retrying for seconds.
  const connection = Connection.lazy({ address, interceptors: [] });
  try {
    await connection.withDeadline(Date.now() + 2_000, async () => {
      await connection.workflowService.getSystemInfo({});
      if (namespace) await connection.workflowService.describeNamespace({ namespace });
    });
    return true;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

/**
 * Registers any of SEARCH_ATTRIBUTES the namespace lacks (e.g. a server we did not start, or a
 * SQLite file created before an attribute existed), and fails if one exists with another type.
 */
export async function ensureSearchAttributes(address: string, namespace = DEFAULT_NAMESPACE): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const missing: Record<string, number> = {};
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
      const existing = customAttributes[name];
      if (existing === undefined) missing[name] = INDEXED_VALUE_TYPES.indexOf(type);
      else if (INDEXED_VALUE_TYPES[existing] !== type) {
        throw new Error(
          `Search attribute ${name} is registered as ${INDEXED_VALUE_TYPES[existing]} in namespace "${namespace}" ` +
            `at ${address}, but this project needs ${type}. Use a fresh server/database.`,
        );
      }
    }
    if (Object.keys(missing).length > 0) {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
    }
  } finally {
    await connection.close();
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, DEFAULT_IP, resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function isPortFree(ip: string, port: number): Promise<boolean> {
  const server = createServer();
  const free = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, ip, () => resolve(true));
  });
  if (free) await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}

async function assertPortFree(ip: string, port: number, what: string): Promise<void> {
  if (await isPortFree(ip, port)) return;
  const healthy = what === 'gRPC frontend' && (await isServerHealthy(`${ip}:${port}`));
  throw new Error(
    healthy
      ? `A Temporal server is already listening on ${ip}:${port}; stop it or choose another port.`
      : `Port ${port} on ${ip} (needed for the Temporal ${what}) is in use by something that is not a ` +
          'Temporal server. Stop that program or choose another port.',
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited child of a non-reaping init (common in containers) lingers as a zombie.
  return !procState(pid)?.startsWith('Z');
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).trim();
  } catch {
    return undefined;
  }
}

async function terminate(pid: number, graceMs = 20_000): Promise<void> {
  signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  signal(pid, 'SIGKILL');
}

function signal(pid: number, sig: NodeJS.Signals): void {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, sig);
  } catch {
    // Exited between the check and the signal.
  }
}

// ---------------------------------------------------------------------------------------------
// Long-lived local server for the demo/CLI, tracked in <stateDir>/server.json.

export interface LocalServerOptions {
  /** Directory for server.json, the SQLite database and the server log (e.g. <repo>/.got). */
  stateDir: string;
  port?: number;
  uiPort?: number;
  log?: (line: string) => void;
}

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

export async function ensureLocalServer(opts: LocalServerOptions): Promise<LocalServerInfo> {
  const log = opts.log ?? (() => {});
  const port = opts.port ?? DEFAULT_PORT;
  const uiPort = opts.uiPort ?? DEFAULT_UI_PORT;
  const address = `${DEFAULT_IP}:${port}`;
  const uiUrl = `http://${DEFAULT_IP}:${uiPort}`;

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
  await writeFile(stateFile(opts.stateDir), JSON.stringify(state, null, 2) + '\n');
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
  await ensureSearchAttributes(recorded.address);
  log(`Reusing Temporal dev server (pid ${recorded.pid}) at ${recorded.address}; Web UI at ${recorded.uiUrl}.`);
  return { address: recorded.address, uiUrl: recorded.uiUrl, started: false };
}

async function reuseForeignServer(address: string, uiUrl: string, log: (line: string) => void): Promise<LocalServerInfo> {
  await ensureSearchAttributes(address);
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
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev');
  } catch {
    return true; // No procfs (macOS): trust the recorded pid.
  }
}
