import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { inject } from 'vitest';
import { startSimulatedLlm, type SimLlmOptions, type SimulatedLlm } from '../../src/simllm/server';
import { bundleGotWorkflows, createGotWorker } from '../../worker/create';

export interface Harness {
  client: Client;
  llm: SimulatedLlm;
  taskQueue: string;
  worker: Worker;
  close(): Promise<void>;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
let runtimeInstalled = false;

/**
 * A worker on its own task queue against the shared test server, with a simulated LLM: every test
 * file gets an isolated Controller on real Temporal. The workflow bundle is built once per file.
 */
export async function startHarness(o: { llm?: SimLlmOptions; maxConcurrentActivities?: number } = {}): Promise<Harness> {
  const address = inject('temporalAddress');
  if (!runtimeInstalled) {
    // Tests fail runs on purpose; the worker's per-run INFO/WARN lines would drown the report.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    runtimeInstalled = true;
  }
  bundle ??= bundleGotWorkflows();
  const llm = await startSimulatedLlm(o.llm);
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const taskQueue = `test-${randomUUID()}`;
  const worker = await createGotWorker({
    connection: nativeConnection,
    taskQueue,
    llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true },
    workflowBundle: await bundle,
    ...(o.maxConcurrentActivities ? { maxConcurrentActivities: o.maxConcurrentActivities } : {}),
  });
  const running = worker.run();
  return {
    client: new Client({ connection }),
    llm,
    taskQueue,
    worker,
    async close() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await llm.close();
    },
  };
}
