import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, type Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { inject } from 'vitest';
import type { RateLimits } from '../../src/llm/rate-limit';
import { type SimLlmOptions, type SimulatedLlm, startSimulatedLlm } from '../../src/simllm/server';
import { bundleGotWorkflows, createGotWorker } from '../../worker/create';

export interface Harness {
  client: Client;
  llm: SimulatedLlm;
  taskQueue: string;
  worker: Worker;
  close(): Promise<void>;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/**
 * A worker on its own task queue against the shared test server, with a simulated LLM: every test
 * file gets an isolated Controller on real Temporal. The workflow bundle is built once per file.
 */
export async function startHarness(
  o: {
    llm?: SimLlmOptions;
    maxConcurrentActivities?: number;
    /** Used by both the client and the worker (e.g. an encryption codec); default: plain payloads. */
    dataConverter?: DataConverter;
    /** The API key the worker sends to the LLM endpoint (default 'sim'). */
    apiKey?: string;
    rateLimits?: RateLimits;
    /** The worker's response cache folder (default: a fresh temporary one). */
    cacheDir?: string;
    /** Where the worker sends its LLM calls instead of the simulator itself (e.g. a proxy in front of it). */
    endpoint?: (simulatorBaseURL: string) => string;
    /** The endpoint streams its answers (the worker heartbeats on tokens). */
    stream?: boolean;
    /** A namespace of the test server other than `default` (it must exist, with the search attributes). */
    namespace?: string;
  } = {},
): Promise<Harness> {
  const address = inject('temporalAddress');
  // A test file may install its own Runtime (e.g. a logger that records lines) before the first harness.
  if (!Runtime._instance) {
    // Tests fail runs on purpose; the worker's per-run INFO/WARN lines would drown the report.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  }
  bundle ??= bundleGotWorkflows();
  const llm = await startSimulatedLlm(o.llm);
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const taskQueue = `test-${randomUUID()}`;
  const worker = await createGotWorker({
    connection: nativeConnection,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    taskQueue,
    llm: {
      baseURL: o.endpoint ? o.endpoint(llm.baseURL) : llm.baseURL,
      apiKey: o.apiKey ?? 'sim',
      supportsN: true,
      ...(o.stream ? { stream: true } : {}),
    },
    workflowBundle: await bundle,
    ...(o.maxConcurrentActivities ? { maxConcurrentActivities: o.maxConcurrentActivities } : {}),
    ...(o.dataConverter ? { dataConverter: o.dataConverter } : {}),
    ...(o.rateLimits ? { rateLimits: o.rateLimits } : {}),
    // Each test file gets its own response cache, unless it shares one on purpose.
    cacheDir: o.cacheDir ?? mkdtempSync(join(tmpdir(), 'got-cache-')),
  });
  const running = worker.run();
  return {
    client: new Client({
      connection,
      ...(o.namespace ? { namespace: o.namespace } : {}),
      ...(o.dataConverter ? { dataConverter: o.dataConverter } : {}),
    }),
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
