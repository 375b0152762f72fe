import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { type DevServerHandle, startDevServer } from '../../src/devserver/dev-server';
import { freePort } from '../../src/devserver/process';
import { ensureTemporalCli } from '../../src/devserver/temporal-cli';
import { type SimLlmOptions, type SimulatedLlm, startSimulatedLlm } from '../../src/simllm/server';
import { bundleGotWorkflows, createGotWorker } from '../../worker/create';

export interface UiStack {
  server: DevServerHandle;
  /** The dev server's Web UI, e.g. http://127.0.0.1:PORT */
  uiUrl: string;
  client: Client;
  llm: SimulatedLlm;
  taskQueue: string;
  worker: Worker;
  close(): Promise<void>;
}

/**
 * A dev server of its own with the Web UI on (the shared test server is headless), plus a worker
 * and a simulated LLM: for tests that look at runs in the Web UI. The caller must have installed
 * the Temporal Runtime first if it wants a quiet logger (startHarness does).
 */
export async function startUiStack(o: { llm?: SimLlmOptions } = {}): Promise<UiStack> {
  const binary = await ensureTemporalCli();
  const server = await startDevServer({ binary, port: await freePort(), uiPort: await freePort(), ui: true });
  const closers: (() => Promise<unknown>)[] = [() => server.stop()];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    if (!server.uiUrl) throw new Error('startDevServer({ ui: true }) returned no uiUrl');
    const llm = await startSimulatedLlm(o.llm);
    closers.push(() => llm.close());
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    closers.push(() => nativeConnection.close());
    const connection = await Connection.connect({ address: server.address });
    closers.push(() => connection.close());
    const taskQueue = `web-ui-${randomUUID()}`;
    const worker = await createGotWorker({
      connection: nativeConnection,
      taskQueue,
      llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true },
      workflowBundle: await bundleGotWorkflows(),
    });
    const running = worker.run();
    closers.push(async () => {
      worker.shutdown();
      await running;
    });
    return { server, uiUrl: server.uiUrl, client: new Client({ connection }), llm, taskQueue, worker, close };
  } catch (err) {
    await close();
    throw err;
  }
}
