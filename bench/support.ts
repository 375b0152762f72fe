import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { freePort, startDevServer, type DevServerHandle } from '../src/devserver/dev-server';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { SimLlmOptions } from '../src/simllm/server';
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
  close(): Promise<void>;
}

async function startRemoteLlm(o: SimLlmOptions): Promise<RemoteLlm> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sim-llm', '--port', String(port), '--latency', String(o.latencyMs ?? 0)], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Simulated LLM at')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the simulated LLM exited (${code}): ${seen}`)));
  });
  const baseURL = `http://127.0.0.1:${port}/v1`;
  return {
    baseURL,
    requests: async () => ((await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { requests: number }).requests,
    close: async () => {
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

export interface BenchEnv {
  client: Client;
  llm: RemoteLlm;
  server: DevServerHandle;
  /** Starts a worker on a fresh task queue; stop it with the returned function. */
  worker(o?: { maxConcurrentActivities?: number }): Promise<BenchWorker>;
  /** Another worker polling an existing task queue (scale-out on one machine). */
  workerOn(taskQueue: string, o?: { maxConcurrentActivities?: number }): Promise<BenchWorker>;
  close(): Promise<void>;
}

/** A private dev server (in memory), a simulated LLM and workers on demand: one benchmark's world. */
export async function startBenchEnv(llmOptions: SimLlmOptions = {}): Promise<BenchEnv> {
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = await startDevServer({ binary: await ensureTemporalCli(), port: await freePort(), ui: false });
  const llm = await startRemoteLlm(llmOptions);
  const connection = await Connection.connect({ address: server.address });
  const bundle = await bundleGotWorkflows();
  const natives: NativeConnection[] = [];
  const env: BenchEnv = {
    client: new Client({ connection }),
    llm,
    server,
    worker(o = {}) {
      return env.workerOn(`bench-${randomUUID()}`, o);
    },
    async workerOn(taskQueue, o = {}) {
      const native = await NativeConnection.connect({ address: server.address });
      natives.push(native);
      const worker = await createGotWorker({
        connection: native,
        taskQueue,
        llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true },
        workflowBundle: bundle,
        ...(o.maxConcurrentActivities ? { maxConcurrentActivities: o.maxConcurrentActivities } : {}),
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
    async close() {
      for (const n of natives) await n.close();
      await connection.close();
      await llm.close();
      await server.stop();
    },
  };
  return env;
}

export function machine(): string {
  return `${process.platform} ${process.arch}, ${(globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? '?'} cores, Node ${process.version}`;
}
