import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../activities';
import { LlmClient, type LlmEndpoint } from '../src/llm/client';
import { FileResponseCache } from '../src/llm/cache';
import type { RateLimits } from '../src/llm/rate-limit';

/** Shared by every worker of this user on the machine (and by workers sharing the folder elsewhere). */
export const defaultCacheDir = () => process.env.GOT_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'got-temporal', 'responses');

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface GotWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  llm: LlmEndpoint;
  maxConcurrentActivities?: number;
  /** Requests and tokens per minute this worker may send to the LLM. */
  rateLimits?: RateLimits;
  /** Activities per second for the whole task queue (all workers): a provider's request quota shared by a fleet. */
  taskQueueActivitiesPerSecond?: number;
  /** The response cache's folder (runs opt in with `llm.cache`); default: the user-level cache. */
  cacheDir?: string;
  /** A pre-built bundle saves the few seconds of bundling when many workers start (tests, benchmarks). */
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Must match the clients' (e.g. `dataConverterFromEnv()` for encrypted payloads); default: plain payloads. */
  dataConverter?: DataConverter;
}

/** Bundles the Controller workflow once, for reuse by several workers. */
export function bundleGotWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
}

/** The composition root of a worker: the Controller workflow plus the activities wired to one LLM endpoint. */
export async function createGotWorker(o: GotWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace ?? 'default',
    taskQueue: o.taskQueue,
    ...(o.workflowBundle ? { workflowBundle: o.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({
      // Failure messages stay plain under encryption: then they quote nothing an endpoint sent back.
      llm: new LlmClient(o.llm, o.rateLimits, { quoteBodies: !o.dataConverter?.payloadCodecs?.length }),
      cache: new FileResponseCache(o.cacheDir ?? defaultCacheDir()),
    }),
    // A cluster-wide request rate for this task queue, enforced by the server across all workers.
    ...(o.taskQueueActivitiesPerSecond ? { maxTaskQueueActivitiesPerSecond: o.taskQueueActivitiesPerSecond } : {}),
    ...(o.dataConverter ? { dataConverter: o.dataConverter } : {}),
    maxConcurrentActivityTaskExecutions: o.maxConcurrentActivities ?? 200,
    maxConcurrentLocalActivityExecutions: 200,
    maxConcurrentWorkflowTaskExecutions: 50,
    // A fan-out's calls start on this worker straight from the workflow task's completion (eager
    // execution) instead of a round trip through the task queue; the default reserves only 3.
    maxEagerActivityReservationsPerWorkflowTask: 100,
    // Heartbeats reach the server at least every 2 s, so a cancelled run stops its LLM calls within seconds.
    maxHeartbeatThrottleInterval: '2s',
    // A run whose worker died moves to another worker after 5 s instead of Temporal's default 10 s.
    stickyQueueScheduleToStartTimeout: '5s',
    // The Controller reports GRS facts only while replaying, for `inspect`; an ordinary worker ignores them.
    sinks: { grsReplay: { fact: { fn: () => undefined, callDuringReplay: false } } },
  });
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
