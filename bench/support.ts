import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { type DevServerHandle, startDevServer } from '../src/devserver/dev-server';
import { freePort } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { SimLlmOptions, SimLlmStats, SimRequestRecord } from '../src/simllm/server';
import { bundleGotWorkflows, createGotWorker } from '../worker/create';

export interface BenchWorker {
  taskQueue: string;
  worker: Worker;
  stop(): Promise<void>;
}

/** The simulated LLM in its own process: like a remote endpoint, its work does not block the worker's event loop. */
export interface RemoteLlm {
  baseURL: string;
  requests(): Promise<number>;
  /** The simulator's counters (`GET /stats`): requests, refusals by its limits, tokens served... */
  stats(): Promise<SimLlmStats>;
  /** Every request so far: when it arrived and when it ended (ms since epoch). */
  requestLog(): Promise<SimRequestRecord[]>;
  close(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Starts one of the project's commands in a process of its own; resolves once it prints `ready`. */
async function spawnUntil(args: string[], ready: string, env: NodeJS.ProcessEnv = process.env): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const watch = (chunk: Buffer) => {
      seen += chunk.toString();
      if (!seen.includes(ready)) return;
      // From here on its output is only drained, so a chatty process never blocks on a full pipe.
      for (const out of [child.stdout!, child.stderr!]) out.off('data', watch).resume();
      resolve();
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${seen}`)));
  });
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  await exited;
}

function rssMiB(pid: number | undefined): number | undefined {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Math.round(Number(kib) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** The `got sim-llm` flags of a provider's per-minute quota (none when `limits` is unset). */
function limitFlags(limits: SimLlmOptions['limits']): string[] {
  const { requestsPerMinute: rpm, tokensPerMinute: tpm, burstSeconds } = limits ?? {};
  return [
    ...(rpm === undefined ? [] : ['--rpm', String(rpm)]),
    ...(tpm === undefined ? [] : ['--tpm', String(tpm)]),
    ...(burstSeconds === undefined ? [] : ['--limit-burst-seconds', String(burstSeconds)]),
  ];
}

/** The `got sim-llm` flags of random faults and a one-choice endpoint. */
function faultFlags(o: SimLlmOptions): string[] {
  const rates = Object.entries(o.faults?.rates ?? {}).map(([name, share]) => `${name}=${share}`);
  const after = o.faults?.retryAfterSeconds;
  return [
    ...(rates.length ? ['--faults', rates.join(','), '--fault-seed', String(o.faults?.seed ?? 0)] : []),
    ...(after === undefined ? [] : ['--retry-after', Array.isArray(after) ? after.join('-') : String(after)]),
    ...(o.maxChoices ? ['--max-choices', String(o.maxChoices)] : []),
  ];
}

export async function startRemoteLlm(o: SimLlmOptions): Promise<RemoteLlm> {
  const port = await freePort();
  const child = await spawnUntil(
    [
      'src/cli/main.ts',
      'sim-llm',
      '--port',
      String(port),
      '--latency',
      String(o.latencyMs ?? 0),
      ...limitFlags(o.limits),
      ...faultFlags(o),
    ],
    'Simulated LLM at',
  );
  const baseURL = `http://127.0.0.1:${port}/v1`;
  const stats = async () => (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as SimLlmStats;
  return {
    baseURL,
    requests: async () => (await stats()).requests,
    stats,
    requestLog: async () => (await (await fetch(`http://127.0.0.1:${port}/requests`)).json()) as SimRequestRecord[],
    close: () => stopProcess(child),
  };
}

export interface WorkerProcess {
  pid: number;
  /** The process's resident memory now, in MiB (Linux; undefined elsewhere). */
  rssMiB(): number | undefined;
  stop(): Promise<void>;
}

export interface BenchEnv {
  client: Client;
  llm: RemoteLlm;
  server: DevServerHandle;
  /** Starts a worker on a fresh task queue; stop it with the returned function. */
  worker(o?: { maxConcurrentActivities?: number; cacheDir?: string }): Promise<BenchWorker>;
  /** A worker in a process of its own (`npm run worker`), as a deployment runs them: scale-out on one machine; `env` adds settings. */
  workerProcess(taskQueue: string, env?: Record<string, string>): Promise<WorkerProcess>;
  close(): Promise<void>;
}

/** A private dev server (in memory), a simulated LLM and workers on demand: one benchmark's world. */
export async function startBenchEnv(llmOptions: SimLlmOptions = {}, dataConverter?: DataConverter): Promise<BenchEnv> {
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = await startDevServer({ binary: await ensureTemporalCli(), port: await freePort(), ui: false });
  const llm = await startRemoteLlm(llmOptions);
  const connection = await Connection.connect({ address: server.address });
  const bundle = await bundleGotWorkflows();
  const natives: NativeConnection[] = [];
  const env: BenchEnv = {
    client: new Client({ connection, ...(dataConverter ? { dataConverter } : {}) }),
    llm,
    server,
    async worker(o = {}) {
      const taskQueue = `bench-${randomUUID()}`;
      const native = await NativeConnection.connect({ address: server.address });
      natives.push(native);
      const worker = await createGotWorker({
        connection: native,
        taskQueue,
        llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true },
        workflowBundle: bundle,
        ...(dataConverter ? { dataConverter } : {}),
        ...(o.maxConcurrentActivities ? { maxConcurrentActivities: o.maxConcurrentActivities } : {}),
        ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
      });
      const running = worker.run();
      return {
        taskQueue,
        worker,
        async stop() {
          worker.shutdown();
          await running;
        },
      };
    },
    async workerProcess(taskQueue, extra = {}) {
      // The bench sets the worker up itself: settings from the shell (a codec key, rate limits) would
      // make it differ from the in-process workers, or leave the bench's plain client unable to read its runs.
      const env = {
        ...shellFreeEnv(),
        TEMPORAL_ADDRESS: server.address,
        GOT_TASK_QUEUE: taskQueue,
        OPENAI_BASE_URL: llm.baseURL,
        OPENAI_API_KEY: 'sim',
        ...extra,
      };
      const child = await spawnUntil(['worker/main.ts'], 'worker polling', env);
      return { pid: child.pid!, rssMiB: () => rssMiB(child.pid), stop: () => stopProcess(child) };
    },
    async close() {
      for (const n of natives) await n.close();
      await connection.close();
      await llm.close();
      await server.stop();
    },
  };
  return env;
}

/**
 * This process's environment without the project's own settings (GOT_*, TEMPORAL_*, OPENAI_*):
 * nothing from the shell (a codec key, an endpoint, a rate limit) may change what a bench measures.
 */
export function shellFreeEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('GOT_') && !name.startsWith('TEMPORAL_') && !name.startsWith('OPENAI_'),
    ),
  );
}

/** When the server recorded a history event, in ms since the epoch. */
export const eventMs = (e: temporal.api.history.v1.IHistoryEvent): number =>
  Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

export function machine(): string {
  // Node 20 has no `navigator`: the OS's count is the one every Node version gives.
  return `${process.platform} ${process.arch}, ${availableParallelism()} cores, Node ${process.version}`;
}

/** CPU seconds a process has used so far (/proc): which worker worked most, or what a side of a bench cost. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
