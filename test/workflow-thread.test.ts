import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import workerThreads from 'node:worker_threads';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createGotWorker } from '../worker/create';
import { installQuietRuntime } from '../worker/logging';
import { withoutWorkflowStackTraces } from '../worker/stack-traces';
import { busyLoop } from './fixtures/busy-workflow';

/**
 * `got run`'s worker runs the workflow code on its own thread (decision 78): no workflow thread is
 * started, and the deadlock limit a workflow thread has still fails a task that never yields.
 */

const NO_LLM = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'none', supportsN: true };
let native: NativeConnection;
let connection: Connection;
let client: Client;
let bundle: WorkflowBundleWithSourceMap;
/** Threads started since the counter was installed. */
let threadsStarted = 0;

beforeAll(async () => {
  installQuietRuntime('ERROR'); // the deadlocked task is logged with its stack otherwise
  const address = inject('temporalAddress');
  native = await NativeConnection.connect({ address });
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  bundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./fixtures/busy-workflow.ts', import.meta.url)),
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  });
  // Our own wrapper first (it replaces the constructor once), then a counter around it.
  withoutWorkflowStackTraces();
  const Started = workerThreads.Worker;
  workerThreads.Worker = class extends Started {
    constructor(...args: ConstructorParameters<typeof Started>) {
      super(...args);
      threadsStarted++;
    }
  };
}, 60_000);

afterAll(async () => {
  await native?.close();
  await connection?.close();
});

/** A worker for one test: created, run, and shut down when the body is done. */
async function withWorker<T>(workflowsInThisThread: boolean, body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `thread-${randomUUID()}`;
  const worker = await createGotWorker({ connection: native, taskQueue, llm: NO_LLM, workflowBundle: bundle, workflowsInThisThread });
  const running = worker.run();
  try {
    return await body(taskQueue);
  } finally {
    worker.shutdown();
    await running;
  }
}

describe("got run's worker runs the workflow code on its own thread", () => {
  it('starts no workflow thread, where a long-lived worker starts one', async () => {
    const before = threadsStarted;
    const here = await withWorker(true, async (taskQueue) =>
      client.workflow.execute(busyLoop, { taskQueue, workflowId: `thread-${randomUUID()}`, args: [1000] }),
    );
    expect(here).toBe(await busyLoop(1000));
    expect(threadsStarted - before).toBe(0);
    await withWorker(false, async () => undefined);
    expect(threadsStarted - before).toBe(1);
  });

  it('keeps the deadlock limit: a task that never yields fails, and the run is left to be ended', async () => {
    // Rounds for ~30 s on this machine, measured here with the same loop: well past the 5 s limit even if
    // the machine gets faster meanwhile (the limit ends the task at 5 s whatever the rounds).
    const started = performance.now();
    await busyLoop(20_000_000);
    const rounds = Math.ceil((20_000_000 * 30_000) / Math.max(1, performance.now() - started));
    await withWorker(true, async (taskQueue) => {
      const handle = await client.workflow.start(busyLoop, { taskQueue, workflowId: `deadlock-${randomUUID()}`, args: [rounds] });
      try {
        let failure: string | undefined;
        for (let i = 0; i < 60 && failure === undefined; i++) {
          const { events } = await handle.fetchHistory();
          const failed = events?.find((e) => e.workflowTaskFailedEventAttributes);
          failure = failed?.workflowTaskFailedEventAttributes?.failure?.message ?? undefined;
          if (failure === undefined) await new Promise((resolve) => setTimeout(resolve, 500));
        }
        expect(failure).toMatch(/timed out after 5000 ?ms/); // the workflow thread's limit (5 s), not none
      } finally {
        await handle.terminate('test over');
      }
    });
  }, 90_000);
});
