import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, type Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { inject } from 'vitest';
import type { RateLimits } from '../../src/llm/rate-limit';
import type { LimitScope } from '../../src/run/wire';
import { type SimLlmOptions, type SimulatedLlm, startSimulatedLlm } from '../../src/simllm/server';
import { bundleGotWorkflows, createGotWorker } from '../../worker/create';
import { type ProviderProxy, startProviderProxy } from './provider-proxy';

export interface Harness {
  client: Client;
  llm: SimulatedLlm;
  taskQueue: string;
  worker: Worker;
  /** Every worker polling the task queue (`worker` first). */
  workers: Worker[];
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
    /** Whose calls `rateLimits` hold (default: each worker's own). */
    limitScope?: LimitScope;
    /** Workers polling the task queue, each with its own client and limiter, as separate processes would be (default 1). */
    workers?: number;
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
  // One connection per worker: the SDK allows a task queue's worker once per connection, as once per process.
  const nativeConnections = await Promise.all(Array.from({ length: o.workers ?? 1 }, () => NativeConnection.connect({ address })));
  const connection = await Connection.connect({ address });
  const taskQueue = `test-${randomUUID()}`;
  const workflowBundle = await bundle;
  const createWorker = (nativeConnection: NativeConnection) =>
    createGotWorker({
      connection: nativeConnection,
      ...(o.namespace ? { namespace: o.namespace } : {}),
      taskQueue,
      llm: {
        baseURL: o.endpoint ? o.endpoint(llm.baseURL) : llm.baseURL,
        apiKey: o.apiKey ?? 'sim',
        supportsN: true,
        ...(o.stream ? { stream: true } : {}),
      },
      workflowBundle,
      ...(o.maxConcurrentActivities ? { maxConcurrentActivities: o.maxConcurrentActivities } : {}),
      ...(o.dataConverter ? { dataConverter: o.dataConverter } : {}),
      ...(o.rateLimits ? { rateLimits: o.rateLimits } : {}),
      ...(o.limitScope ? { limitScope: o.limitScope } : {}),
      // Each test file gets its own response cache, unless it shares one on purpose.
      cacheDir: o.cacheDir ?? mkdtempSync(join(tmpdir(), 'got-cache-')),
    });
  const workers = await Promise.all(nativeConnections.map(createWorker));
  const worker = workers[0]!;
  const running = Promise.all(workers.map((w) => w.run()));
  return {
    client: new Client({
      connection,
      ...(o.namespace ? { namespace: o.namespace } : {}),
      ...(o.dataConverter ? { dataConverter: o.dataConverter } : {}),
    }),
    llm,
    taskQueue,
    worker,
    workers,
    async close() {
      for (const w of workers) w.shutdown();
      await running;
      for (const c of nativeConnections) await c.close();
      await connection.close();
      await llm.close();
    },
  };
}

/**
 * A harness whose worker sends its LLM requests through a proxy that keeps every body: what a run
 * asked, and with which prompt (`proxy.bodies`).
 */
export async function startHarnessBehindProxy(
  o: Omit<Parameters<typeof startHarness>[0] & object, 'endpoint'> = {},
): Promise<{ h: Harness; proxy: ProviderProxy }> {
  let simulator = '';
  const proxy = await startProviderProxy(() => simulator, {});
  const h = await startHarness({
    ...o,
    endpoint: (base) => {
      simulator = base;
      return proxy.baseURL;
    },
  });
  return { h, proxy };
}
