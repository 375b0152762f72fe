import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createTuneActivities } from '../activities/tune';
import { payloadStoreOf } from '../src/codec/data-converter';
import { isLimited } from '../src/limits/buckets';
import { SharedRateLimiter } from '../src/limits/shared-limiter';
import { FileResponseCache } from '../src/llm/cache';
import { LlmClient, type LlmEndpoint } from '../src/llm/client';
import type { RateLimits } from '../src/llm/rate-limit';
import type { LimitScope } from '../src/run/wire';
import type { Tracing } from '../src/telemetry/traces';
import { WORKFLOWS_PATH, workflowCodeOption } from './bundle';

export { bundleGotWorkflows } from './bundle';

import { withoutWorkflowStackTraces } from './stack-traces';

export { WORKFLOWS_PATH };

/** How long one activation of workflow code may run before its task fails as deadlocked (the SDK's default in its workflow threads). */
export const WORKFLOW_DEADLOCK_LIMIT = '5s';

/** Shared by every worker of this user on the machine (and by workers sharing the folder elsewhere). */
export const defaultCacheDir = () =>
  process.env.GOT_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'got-temporal', 'responses');

export interface GotWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  llm: LlmEndpoint;
  maxConcurrentActivities?: number;
  /** The provider's requests and tokens per minute. */
  rateLimits?: RateLimits;
  /** Whose calls `rateLimits` hold: every worker's on this endpoint and key together (`shared`), or this worker's (default here: `worker`). */
  limitScope?: LimitScope;
  /** Activities per second for the whole task queue (all workers): a provider's request quota shared by a fleet. */
  taskQueueActivitiesPerSecond?: number;
  /** The response cache's folder (runs opt in with `llm.cache`); default: the user-level cache. */
  cacheDir?: string;
  /** The workflow code for many workers at once (tests, benchmarks); default: `npm run build`'s bundle when current, else the sources. */
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Must match the clients' (e.g. `dataConverterFromEnv()` for encrypted payloads); default: plain payloads. */
  dataConverter?: DataConverter;
  /**
   * Traces of the runs (`GOT_OTEL_TRACES`, `startTracing`). The workflow code is then bundled at
   * start with the tracing interceptors, so a prebuilt `workflowBundle` cannot be given too.
   */
  tracing?: Pick<Tracing, 'workerPlugin'>;
  /**
   * Run the workflow code on this thread instead of a workflow thread of its own. For a process that
   * runs one run and exits (`got run`): the thread's start loads the SDK a second time, 0.3–0.45 s
   * the run waits for (decision 78). A long-lived worker keeps the thread, so workflow tasks and
   * activities use two cores.
   */
  workflowsInThisThread?: boolean;
}

/** The composition root of a worker: the Controller and study workflows plus the activities wired to one LLM endpoint. */
export async function createGotWorker(o: GotWorkerOptions): Promise<Worker> {
  // The store the data converter keeps large payloads in also holds large problems, read by reference.
  const store = payloadStoreOf(o.dataConverter);
  if (o.tracing && o.workflowBundle)
    throw new Error('a prebuilt workflow bundle has no tracing interceptors: give tracing or workflowBundle, not both');
  withoutWorkflowStackTraces();
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace ?? 'default',
    taskQueue: o.taskQueue,
    // Traced workers bundle the workflows with the interceptors; everyone else keeps the prebuilt bundle as it is (decision 54).
    ...(o.tracing
      ? { workflowsPath: WORKFLOWS_PATH, plugins: [o.tracing.workerPlugin] }
      : o.workflowBundle
        ? { workflowBundle: o.workflowBundle }
        : workflowCodeOption()),
    activities: {
      ...createActivities({
        // Failure messages stay plain under encryption: then they quote nothing an endpoint sent back.
        llm: new LlmClient(o.llm, limiterOf(o), { quoteBodies: !o.dataConverter?.payloadCodecs?.length }),
        cache: new FileResponseCache(o.cacheDir ?? defaultCacheDir()),
        store,
      }),
      // Studies (`got tune`) run on the same workers: their trials' runs are ordinary Controller runs.
      ...createTuneActivities({ store }),
    },
    // A cluster-wide request rate for this task queue, enforced by the server across all workers.
    ...(o.taskQueueActivitiesPerSecond ? { maxTaskQueueActivitiesPerSecond: o.taskQueueActivitiesPerSecond } : {}),
    ...(o.dataConverter ? { dataConverter: o.dataConverter } : {}),
    // The SDK calls running workflows in the calling thread its debug mode, which also lifts the
    // deadlock limit: the limit of a workflow thread is kept.
    ...(o.workflowsInThisThread ? { debugMode: true, isolateExecutionTimeout: WORKFLOW_DEADLOCK_LIMIT } : {}),
    maxConcurrentActivityTaskExecutions: o.maxConcurrentActivities ?? 200,
    maxConcurrentLocalActivityExecutions: 200,
    maxConcurrentWorkflowTaskExecutions: 50,
    // A fan-out's calls start on this worker straight from the workflow task's completion (eager
    // execution) instead of a round trip through the task queue; the default reserves only 3.
    maxEagerActivityReservationsPerWorkflowTask: 100,
    // Heartbeats reach the server at least every 2 s, so a cancelled run stops its LLM calls within seconds.
    maxHeartbeatThrottleInterval: '2s',
    // A run whose worker died moves to another worker after this. Not sooner: a busy worker picked up its
    // runs' next tasks 4-5 s late, and a run that moves is replayed whole on a worker that lacks it,
    // which with long children cost more than the wait (decision 72).
    stickyQueueScheduleToStartTimeout: '20s',
    // The Controller reports GRS facts only while replaying, for `inspect`; an ordinary worker ignores them.
    sinks: { grsReplay: { fact: { fn: () => undefined, callDuringReplay: false } } },
  });
}

/** The worker's limits as its client holds them: alone, or through the endpoint's shared limit workflow. */
function limiterOf(o: GotWorkerOptions): RateLimits | SharedRateLimiter {
  const limits = o.rateLimits ?? {};
  if (o.limitScope !== 'shared' || !isLimited(limits)) return limits;
  return new SharedRateLimiter({ endpoint: o.llm, limits, taskQueue: o.taskQueue });
}
