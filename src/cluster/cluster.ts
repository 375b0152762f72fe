/**
 * `got cluster up/down/status`: the deployed shape of docker-compose.yml (Temporal on PostgreSQL,
 * the Web UI, the codec server, MinIO as the payload store, several workers) run on this machine
 * without Docker, from the same configuration files (decision 44). Every part is a process of its
 * own, started detached and recorded in the state folder's cluster.json, so `down` stops exactly
 * what `up` started; `up` on a running cluster starts only what is missing (a killed worker, a
 * stopped database) and waits until every part is ready again.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { CODEC_KEYS_ENV, generateCodecKey, parseCodecKeys } from '../codec/keys';
import { isServerHealthy } from '../devserver/dev-server';
import { ensureMinio, isMinioLive, MINIO_DEFAULT_BUCKET, MINIO_DEV_CREDENTIALS, startMinio } from '../devserver/minio';
import { isPortFree, LOOPBACK, startTimeOf } from '../devserver/process';
import { ValidationError } from '../goo/validate';
import { DEFAULT_TASK_QUEUE } from '../run/wire';
import { DEFAULT_S3_REGION, s3Client } from '../store/s3-store';
import { PLAINTEXT_PROFILE } from '../temporal/connection';
import { freshness, readManifest } from '../util/build-manifest';
import { REPO_ROOT, type SharedSettings, sharedSettings } from './deploy-files';
import {
  isCodecReady,
  isSimLlmReady,
  isWorkerPolling,
  METRICS_ADDRESS_ENV,
  simLlmUrl,
  startCodecServer,
  startSimLlm,
  startWorker,
} from './node-services';
import { type ClusterPorts, clusterPorts, DEFAULT_PORT_BASE, MAX_WORKERS, portsInUse } from './ports';
import { ensurePostgres, initPostgres, isPostgresReady, postgresAccount, postgresDataDir, startPostgres, stopPostgres } from './postgres';
import { isRunning, type ProcessRecord, stopProcess, waitUntilReady } from './processes';
import { type ClusterLlm, type ClusterState, logDir, readCodecKeys, readState, withClusterLock, writeCodecKeys, writeState } from './state';
import { ensureNamespace, frontendAddress, setupSchema, startTemporalServer } from './temporal-server';
import { ensureClusterTools, TEMPORAL_SERVER_VERSION } from './tools';
import { codecUrl, isUiReady, startUiServer, webUiUrl } from './ui-server';

/** Workers a cluster runs unless told otherwise. */
export const DEFAULT_WORKERS = 2;

/** The payload store of a cluster's clients and workers: the prefix docker-compose.yml uses too. */
export const CLUSTER_STORE = `s3://${MINIO_DEFAULT_BUCKET}/runs`;

/** What `got cluster up` is asked for; unset settings keep the running cluster's (or the defaults). */
export interface ClusterUpOptions {
  stateDir: string;
  /** The frontend's port; every other port follows from it (src/cluster/ports.ts). */
  portBase?: number;
  workers?: number;
  /** Serve the workers' LLM calls with `got sim-llm` instead of OPENAI_BASE_URL. */
  simulated?: boolean;
  /** The simulated LLM's latency per call. */
  latencyMs?: number;
  log: (line: string) => void;
}

/** A running cluster: where each part answers and what a client needs. */
export interface ClusterInfo {
  stateDir: string;
  ports: ClusterPorts;
  frontend: string;
  webUi: string;
  codec: string;
  minio: string;
  llm: string;
  /** Each worker's pid and metrics address. */
  workers: { pid: number; metrics: string }[];
  /** The environment of a client (the CLI, a script) of this cluster. */
  env: Record<string, string>;
  logs: string;
  /** The processes by part name. */
  processes: Record<string, ProcessRecord>;
}

/** The order parts are stopped in: those that use others first. */
const STOP_ORDER = ['ui', 'codec', 'temporal', 'sim-llm', 'minio', 'postgres'];
const workerName = (k: number) => `worker-${k}`;
const isWorkerPart = (name: string) => name.startsWith('worker-');

/** The environment of a client of the cluster, and the base of its workers' and codec server's. */
export function clusterClientEnv(ports: ClusterPorts, shared: SharedSettings, codecKeys: string): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: frontendAddress(ports),
    TEMPORAL_NAMESPACE: shared.TEMPORAL_NAMESPACE,
    TEMPORAL_UI_URL: webUiUrl(ports),
    GOT_TASK_QUEUE: DEFAULT_TASK_QUEUE,
    GOT_STORE: CLUSTER_STORE,
    GOT_S3_ENDPOINT: minioUrl(ports),
    AWS_ACCESS_KEY_ID: MINIO_DEV_CREDENTIALS.accessKey,
    AWS_SECRET_ACCESS_KEY: MINIO_DEV_CREDENTIALS.secretKey,
    [CODEC_KEYS_ENV]: codecKeys,
  };
}

const minioUrl = (ports: ClusterPorts) => `http://${LOOPBACK}:${ports.minio}`;
const llmUrl = (llm: ClusterLlm, ports: ClusterPorts) => (llm.simulated ? simLlmUrl(ports) : llm.baseURL);

/** Brings the cluster up, or completes a partly running one; resolves once every part is ready. */
export function clusterUp(o: ClusterUpOptions): Promise<ClusterInfo> {
  return withClusterLock(o.stateDir, () => up(o), o.log).catch((error: unknown) => {
    // A bad option started nothing: no logs to read, nothing to stop.
    if (error instanceof ValidationError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\nLogs: ${logDir(o.stateDir)}. \`got cluster down\` stops the parts that did start.`);
  });
}

async function up(o: ClusterUpOptions): Promise<ClusterInfo> {
  const { stateDir, log } = o;
  const recorded = await readState(stateDir);
  const running = Object.entries(recorded?.processes ?? {}).filter(([, p]) => isRunning(p));
  const state = settle(o, recorded, running.length > 0);
  const ports = clusterPorts(state.portBase);
  const shared = sharedSettings();
  await mkdir(logDir(stateDir), { recursive: true });
  const logOf = (name: string) => join(logDir(stateDir), `${name}.log`);
  const codecKeys = await settleCodecKeys(stateDir);

  // Stale records (processes that died) are dropped; what is still running is kept and checked below.
  state.processes = Object.fromEntries(running);
  let saving = Promise.resolve();
  const save = () => {
    saving = saving.then(() => writeState(stateDir, state));
    return saving;
  };
  const started = async (name: string, record: ProcessRecord) => {
    state.processes[name] = record;
    await save();
    return record;
  };
  await save();

  await assertPortsFree(ports, state);
  const [pgBin, tools, minioBinary] = await Promise.all([ensurePostgres(log), ensureClusterTools(log), ensureMinio({ log })]);
  await ensureDistCurrent();

  const env = clusterClientEnv(ports, shared, codecKeys);
  const account = await postgresAccount();
  state.postgresDataDir ||= postgresDataDir(stateDir, account);
  const pg = {
    binDir: pgBin,
    dataDir: state.postgresDataDir,
    port: ports.postgres,
    user: shared.POSTGRES_USER,
    password: shared.POSTGRES_PASSWORD,
    account,
    logFile: logOf('postgres'),
  };

  // Each part: reused when its recorded process runs (and answers), else started.
  const part = async (name: string, ready: () => Promise<boolean>, start: () => Promise<ProcessRecord>) => {
    const record = state.processes[name];
    if (isRunning(record)) {
      await waitUntilReady(name, ready, { timeoutMs: 60_000, process: record });
      return record;
    }
    log(`Starting ${name}...`);
    const since = Date.now();
    const fresh = await started(name, await start());
    log(`${name} ready in ${((Date.now() - since) / 1000).toFixed(1)} s (pid ${fresh.pid}).`);
    return fresh;
  };

  const temporal = (async () => {
    if (await initPostgres(pg)) {
      log(`Created the PostgreSQL data folder ${pg.dataDir}.`);
      delete state.schemaVersion;
    }
    await part(
      'postgres',
      () => isPostgresReady(pgBin, ports.postgres),
      () => startPostgres(pg),
    );
    // Idempotent, but a second or so: done again only for a new database or another server version.
    if (state.schemaVersion !== TEMPORAL_SERVER_VERSION) {
      await setupSchema({ sqlTool: tools.sqlTool, ports, shared, logFile: logOf('schema') });
      state.schemaVersion = TEMPORAL_SERVER_VERSION;
      await save();
    }
    await part(
      'temporal',
      () => isServerHealthy(frontendAddress(ports)),
      () => startTemporalServer({ binary: tools.server, ports, shared, logFile: logOf('temporal') }),
    );
    await ensureNamespace({ ports, shared });
    await part(
      'ui',
      () => isUiReady(ports),
      () => startUiServer({ binary: tools.uiServer, ports, shared, logFile: logOf('ui') }),
    );
  })();
  const store = (async () => {
    await part(
      'minio',
      () => isMinioLive(minioUrl(ports)).then((live) => live && bucketExists(ports)),
      async () => {
        const minio = await startMinio({
          binary: minioBinary,
          dataDir: join(stateDir, 'minio'),
          port: ports.minio,
          logFile: logOf('minio'),
          detached: true,
        });
        return { pid: minio.pid, startTime: startTimeOf(minio.pid), log: logOf('minio') };
      },
    );
    await part(
      'codec',
      () => isCodecReady(ports),
      () => startCodecServer({ ports, env, logFile: logOf('codec') }),
    );
  })();
  const llm = (async () => {
    const { llm } = state;
    if (llm.simulated)
      await part(
        'sim-llm',
        () => isSimLlmReady(ports),
        () => startSimLlm({ ports, latencyMs: llm.latencyMs, logFile: logOf('sim-llm') }),
      );
  })();
  // All three run to the end, so that a failure leaves every started process recorded for `down`.
  const settled = await Promise.allSettled([temporal, store, llm]);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;

  // Workers last: they need the namespace, the store and the LLM.
  for (const [name, record] of Object.entries(state.processes)) {
    if (isWorkerPart(name) && Number(name.slice('worker-'.length)) >= state.workers) {
      log(`Stopping ${name} (the cluster now runs ${state.workers} workers)...`);
      await stopProcess(record);
      delete state.processes[name];
      await save();
    }
  }
  const address = frontendAddress(ports);
  // The cluster speaks plaintext: its workers read this profile, not the user's (which may be Temporal Cloud's).
  const profileFile = join(stateDir, 'temporal-client.toml');
  await writeFile(profileFile, PLAINTEXT_PROFILE);
  const workerEnv = (k: number) => ({
    ...env,
    OPENAI_BASE_URL: llmUrl(state.llm, ports),
    ...(state.llm.simulated ? { OPENAI_API_KEY: 'sim' } : {}),
    GOT_CACHE_DIR: join(stateDir, 'responses'),
    [METRICS_ADDRESS_ENV]: `${LOOPBACK}:${ports.workerMetrics(k)}`,
  });
  const workers = await Promise.allSettled(
    Array.from({ length: state.workers }, (_, k) =>
      part(
        workerName(k),
        () => isWorkerPolling(address, shared.TEMPORAL_NAMESPACE, state.processes[workerName(k)]!.pid),
        () => startWorker({ address, namespace: shared.TEMPORAL_NAMESPACE, env: workerEnv(k), profileFile, logFile: logOf(workerName(k)) }),
      ),
    ),
  );
  const workerFailure = workers.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (workerFailure) throw workerFailure.reason;
  await save();
  return infoOf(stateDir, state, ports, env);
}

/** The settings of this `up`: the recorded cluster's, changed only where asked and only while nothing runs (the worker count always). */
function settle(o: ClusterUpOptions, recorded: ClusterState | undefined, anyRunning: boolean): ClusterState {
  const workers = o.workers ?? recorded?.workers ?? DEFAULT_WORKERS;
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS)
    throw badOption('--workers', `must be a whole number from 1 to ${MAX_WORKERS}`);
  const portBase = o.portBase ?? recorded?.portBase ?? DEFAULT_PORT_BASE;
  try {
    clusterPorts(portBase);
  } catch (error) {
    throw badOption('--port-base', (error as Error).message);
  }
  const llm = settleLlm(o, recorded?.llm);
  if (recorded && anyRunning) {
    const changed = [
      portBase !== recorded.portBase && `port base ${recorded.portBase} (asked: ${portBase})`,
      JSON.stringify(llm) !== JSON.stringify(recorded.llm) && `LLM ${describeLlm(recorded.llm)} (asked: ${describeLlm(llm)})`,
    ].filter(Boolean);
    if (changed.length)
      throw new Error(
        `the cluster in ${o.stateDir} is running with ${changed.join(' and ')}; run \`got cluster down\` first to change that`,
      );
  }
  return {
    version: 1,
    portBase,
    workers,
    llm,
    postgresDataDir: recorded?.postgresDataDir ?? '',
    ...(recorded?.schemaVersion ? { schemaVersion: recorded.schemaVersion } : {}),
    processes: recorded?.processes ?? {},
  };
}

/** An option of `got cluster up` that cannot be used, named (the CLI exits 2, as for any bad input). */
const badOption = (name: string, message: string) => new ValidationError('got cluster up options', [{ path: name, message }]);

function settleLlm(o: ClusterUpOptions, recorded: ClusterLlm | undefined): ClusterLlm {
  if (o.simulated) return { simulated: true, latencyMs: o.latencyMs ?? (recorded?.simulated ? recorded.latencyMs : 0) };
  if (o.latencyMs !== undefined && !recorded?.simulated) throw badOption('--latency', 'applies to the simulated LLM: add --simulated');
  if (recorded) return recorded.simulated && o.latencyMs !== undefined ? { simulated: true, latencyMs: o.latencyMs } : recorded;
  const baseURL = process.env.OPENAI_BASE_URL;
  if (!baseURL)
    throw badOption(
      'OPENAI_BASE_URL',
      "not set, and the cluster's workers need an LLM: set it (and OPENAI_API_KEY) to an OpenAI-compatible endpoint, or pass --simulated",
    );
  return { simulated: false, baseURL };
}

const describeLlm = (llm: ClusterLlm) => (llm.simulated ? `simulated (${llm.latencyMs} ms per call)` : llm.baseURL);

/** The cluster's codec keys: kept in its state folder from the first `up` (GOT_CODEC_KEYS's, or new ones). */
async function settleCodecKeys(stateDir: string): Promise<string> {
  const kept = await readCodecKeys(stateDir);
  const given = process.env[CODEC_KEYS_ENV]?.trim();
  if (kept && given && given !== kept)
    throw new Error(
      `${CODEC_KEYS_ENV} differs from the keys the cluster in ${stateDir} encrypts with (its codec-keys file); unset it, or change that file and restart the cluster`,
    );
  const keys = kept ?? given ?? generateCodecKey('k1');
  parseCodecKeys(keys);
  if (!kept) await writeCodecKeys(stateDir, keys);
  return keys;
}

/** Fails before anything starts when a port a missing part needs is taken (by something that is not this cluster). */
async function assertPortsFree(ports: ClusterPorts, state: ClusterState): Promise<void> {
  // Only a cluster with nothing running claims all its ports at once; a partly running one reuses its own.
  if (Object.keys(state.processes).length > 0) return;
  for (const { port, what } of portsInUse(ports, state.workers)) {
    if (!(await isPortFree(LOOPBACK, port)))
      throw new Error(`port ${port} (the cluster's ${what}) is in use by another program; choose another --port-base`);
  }
}

async function bucketExists(ports: ClusterPorts): Promise<boolean> {
  const client = s3Client({
    endpoint: minioUrl(ports),
    region: DEFAULT_S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: MINIO_DEV_CREDENTIALS.accessKey, secretAccessKey: MINIO_DEV_CREDENTIALS.secretKey },
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: MINIO_DEFAULT_BUCKET }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

/**
 * The node parts run the compiled programs, which rebuild dist/ first when a source changed: do that
 * once here (as bin/compiled.js would), rather than in each of them at once.
 */
async function ensureDistCurrent(): Promise<void> {
  const manifests = ['build.json', 'workflows/manifest.json'].map((path) => readManifest(join(REPO_ROOT, 'dist', path)));
  if (manifests.every((manifest) => manifest && freshness(manifest, REPO_ROOT) !== 'stale')) return;
  const { buildDist } = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'build.mjs')).href)) as {
    buildDist: (o: { ifStale: boolean; log: (line: string) => void }) => Promise<unknown>;
  };
  await buildDist({ ifStale: true, log: () => undefined });
}

function infoOf(stateDir: string, state: ClusterState, ports: ClusterPorts, env: Record<string, string>): ClusterInfo {
  const workers = Array.from({ length: state.workers }, (_, k) => state.processes[workerName(k)])
    .map((record, k) => (record ? { pid: record.pid, metrics: `${LOOPBACK}:${ports.workerMetrics(k)}` } : undefined))
    .filter((w): w is { pid: number; metrics: string } => w !== undefined);
  return {
    stateDir,
    ports,
    frontend: frontendAddress(ports),
    webUi: webUiUrl(ports),
    codec: codecUrl(ports),
    minio: minioUrl(ports),
    llm: llmUrl(state.llm, ports),
    workers,
    env,
    logs: logDir(stateDir),
    processes: state.processes,
  };
}

/** What `got cluster status` reports. */
export interface ClusterStatus {
  stateDir: string;
  /** False when the folder holds no cluster (never brought up, or purged). */
  exists: boolean;
  /** Each recorded part and whether its process runs. */
  parts: { name: string; pid: number; running: boolean; log: string }[];
  info?: ClusterInfo;
}

/** The recorded parts of the cluster in `stateDir` and whether each still runs. */
export async function clusterStatus(stateDir: string): Promise<ClusterStatus> {
  const state = await readState(stateDir);
  if (!state) return { stateDir, exists: false, parts: [] };
  const ports = clusterPorts(state.portBase);
  const keys = (await readCodecKeys(stateDir)) ?? '';
  return {
    stateDir,
    exists: true,
    parts: Object.entries(state.processes).map(([name, p]) => ({ name, pid: p.pid, running: isRunning(p), log: p.log })),
    info: infoOf(stateDir, state, ports, clusterClientEnv(ports, sharedSettings(), keys)),
  };
}

/** Stops every process the cluster started, workers first; with `purge`, deletes its data too. Returns the names of the parts stopped. */
export async function clusterDown(o: { stateDir: string; purge?: boolean; log: (line: string) => void }): Promise<string[]> {
  // Nothing to stop, and no folder to create for the lock; a purge still removes a database kept elsewhere (as root).
  if (!existsSync(o.stateDir) && !o.purge) return [];
  return withClusterLock(o.stateDir, () => down(o), o.log).then(async (stopped) => {
    // The lock lived in the state folder: remove the folder only once the lock is released.
    if (o.purge) await rm(o.stateDir, { recursive: true, force: true });
    return stopped;
  });
}

async function down(o: { stateDir: string; purge?: boolean; log: (line: string) => void }): Promise<string[]> {
  const state = await readState(o.stateDir);
  const stopped: string[] = [];
  if (state) {
    const names = Object.keys(state.processes);
    const order = [...names.filter(isWorkerPart), ...STOP_ORDER.filter((n) => names.includes(n))];
    for (const name of order) {
      const record = state.processes[name];
      if (record && isRunning(record)) {
        o.log(`Stopping ${name} (pid ${record.pid})...`);
        await (name === 'postgres' ? stopPostgres(record) : stopProcess(record));
        stopped.push(name);
      }
      delete state.processes[name];
      await writeState(o.stateDir, state);
    }
  }
  if (o.purge) {
    const dataDir = state?.postgresDataDir || postgresDataDir(o.stateDir, await postgresAccount());
    // As root the database lives outside the state folder.
    if (!dataDir.startsWith(o.stateDir)) await rm(dataDir, { recursive: true, force: true });
  }
  return stopped;
}
