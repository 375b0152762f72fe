import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository root (where `worker/main.ts` and the tsx loader live). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WorkerProcessEnv {
  TEMPORAL_ADDRESS: string;
  GOT_TASK_QUEUE: string;
  OPENAI_BASE_URL: string;
  OPENAI_API_KEY?: string;
  TEMPORAL_NAMESPACE?: string;
  /** A TLS-secured frontend: TLS on, and the CA its certificate is signed by. */
  TEMPORAL_TLS?: string;
  TEMPORAL_TLS_SERVER_CA_CERT_PATH?: string;
  GOT_STORE?: string;
  GOT_STORE_THRESHOLD_BYTES?: string;
  /** The worker's response cache folder (default: the user's). */
  GOT_CACHE_DIR?: string;
  /** Where the worker serves Prometheus metrics, and where its traces go (with the OTEL_* settings of the exporter). */
  GOT_METRICS_ADDRESS?: string;
  GOT_OTEL_TRACES?: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_BSP_SCHEDULE_DELAY?: string;
}

export interface WorkerProcess {
  /** The pid of the node process running the worker itself (no npx/sh wrapper in between). */
  pid: number;
  /** The last lines the worker printed (stdout and stderr), for failure messages. */
  output(): string;
  /** True once the process has exited (or been killed). */
  exited(): boolean;
  /** Resolves when the process exits, with its exit code or the signal that ended it. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Abrupt death: the worker gets no chance to report anything to the server. */
  kill(): Promise<void>;
  /** Graceful shutdown (SIGTERM; the worker drains), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
// A worker must not outlive the test process, whatever happens to the test.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts `worker/main.ts` (the production entry point) as a separate OS process and waits until
 * it polls its task queue. `process.execPath --import tsx` runs the worker in this very process
 * id, so killing `pid` kills the worker and not a wrapper.
 */
export async function startWorkerProcess(env: WorkerProcessEnv, o: { readyTimeoutMs?: number } = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, OPENAI_API_KEY: 'sim', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const lines: string[] = [];
  let hasExited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      hasExited = true;
      live.delete(child);
      resolve({ code, signal });
    });
  });
  let polling = false;
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > 60) lines.shift();
      if (/worker polling task queue/.test(line)) polling = true;
    });
  }
  const output = () => lines.join('\n');

  const handle: WorkerProcess = {
    pid: child.pid!,
    output,
    exited: () => hasExited,
    exit,
    async kill() {
      if (hasExited) return;
      process.kill(child.pid!, 'SIGKILL');
      await exit;
    },
    async stop(graceMs = 15_000) {
      if (hasExited) return;
      child.kill('SIGTERM');
      const done = await Promise.race([exit.then(() => true), sleep(graceMs).then(() => false)]);
      if (!done) await handle.kill();
    },
  };

  const deadline = Date.now() + (o.readyTimeoutMs ?? 120_000);
  while (!polling) {
    if (hasExited) throw new Error(`the worker process exited before polling (${JSON.stringify(await exit)}). Output:\n${output()}`);
    if (Date.now() > deadline) {
      await handle.kill();
      throw new Error(`the worker process did not start polling within ${(o.readyTimeoutMs ?? 120_000) / 1000}s. Output:\n${output()}`);
    }
    await sleep(50);
  }
  return handle;
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined/false. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  o: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${(o.timeoutMs ?? 60_000) / 1000}s waiting for ${what}`);
    await sleep(o.intervalMs ?? 50);
  }
}
