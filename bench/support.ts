import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { freePort, startDevServer, type DevServerHandle } from '../src/devserver/dev-server';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import { startSimulatedLlm, type SimLlmOptions, type SimulatedLlm } from '../src/simllm/server';
import { bundleGotWorkflows, createGotWorker } from '../worker/create';

export interface BenchWorker {
  taskQueue: string;
  worker: Worker;
  stop(): Promise<void>;
}

export interface BenchEnv {
  client: Client;
  llm: SimulatedLlm;
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
  const llm = await startSimulatedLlm(llmOptions);
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
