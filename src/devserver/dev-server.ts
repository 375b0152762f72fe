import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { ensureSearchAttributes } from '../run/register-search-attributes';
import { SEARCH_ATTRIBUTES } from '../run/search-attributes';
import { isPortFree, LOOPBACK, spawnTracked, type TrackedProcess, terminate } from './process';

/** Where and how a Temporal dev server is started. */
/** Events a running workflow task may have buffered behind it (Temporal's default is 100). */
export const BUFFERED_EVENTS = 2000;
/**
 * Updates a workflow may have in flight: every worker sharing a provider limit keeps one ask open on
 * its workflow (decision 70); Temporal's default of 10 would turn an eleventh worker's asks away.
 */
export const IN_FLIGHT_UPDATES = 100;

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
  /** A codec server the Web UI's pages call to show stored or encrypted payloads (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
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

/** A running dev server. */
export interface DevServerHandle {
  /** host:port of the gRPC frontend. */
  address: string;
  uiUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

/** The defaults of `temporal server start-dev`, which the local server of the CLI also uses. */
export const DEV_SERVER_DEFAULTS = { ip: LOOPBACK, port: 7233, uiPort: 8233, namespace: 'default' } as const;

/** Starts `temporal server start-dev`, waits until it is healthy and has the GoT search attributes. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServerHandle> {
  const ip = opts.ip ?? DEV_SERVER_DEFAULTS.ip;
  const port = opts.port ?? DEV_SERVER_DEFAULTS.port;
  const uiPort = opts.uiPort ?? DEV_SERVER_DEFAULTS.uiPort;
  const ui = opts.ui ?? true;
  const namespace = opts.namespace ?? DEV_SERVER_DEFAULTS.namespace;
  const address = `${ip}:${port}`;

  await assertPortFree(ip, port, 'gRPC frontend');
  if (ui) await assertPortFree(ip, uiPort, 'Web UI');
  if (opts.dbFile) await mkdir(dirname(opts.dbFile), { recursive: true });
  if (opts.logFile) await mkdir(dirname(opts.logFile), { recursive: true });

  const server = spawnTracked(opts.binary, devServerArgs({ ...opts, ip, port, uiPort, ui, namespace }), opts);
  try {
    await waitUntilHealthy(address, namespace, server, opts.startupTimeoutMs ?? 60_000);
    await ensureSearchAttributes({ address }, namespace);
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
  if (o.ui && o.uiCodecEndpoint) args.push('--ui-codec-endpoint', o.uiCodecEndpoint);
  if (o.dbFile) args.push('--db-filename', o.dbFile);
  // "default" is always created; passing it again would try to register it twice.
  if (o.namespace !== DEV_SERVER_DEFAULTS.namespace) args.push('--namespace', o.namespace);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  // An activity scheduled by a workflow task goes straight back to the worker that completed it,
  // skipping a round trip through the task queue: the next LLM call starts sooner.
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // One partition per task queue: with the default four, a task and an idle poller can sit in different
  // partitions and wait for the server to forward one to the other. One machine needs no more.
  args.push('--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1');
  args.push('--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1');
  // A wide fan-out (a data room merged by sections) can finish more than 100 calls while one workflow
  // task runs; past that the server throws the task's work away and the worker replays the whole run.
  // A bigger buffer lets the next task take them all (decision 37).
  args.push('--dynamic-config-value', `history.maximumBufferedEventsBatch=${BUFFERED_EVENTS}`);
  args.push('--dynamic-config-value', `history.maxInFlightUpdates=${IN_FLIGHT_UPDATES}`);
  return args;
}

async function waitUntilHealthy(address: string, namespace: string, server: TrackedProcess, timeoutMs: number) {
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
