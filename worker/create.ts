import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../activities';
import { LlmClient, type LlmEndpoint } from '../src/llm/client';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface GotWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  llm: LlmEndpoint;
  maxConcurrentActivities?: number;
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
    activities: createActivities({ llm: new LlmClient(o.llm) }),
    ...(o.dataConverter ? { dataConverter: o.dataConverter } : {}),
    maxConcurrentActivityTaskExecutions: o.maxConcurrentActivities ?? 200,
    maxConcurrentLocalActivityExecutions: 200,
    maxConcurrentWorkflowTaskExecutions: 50,
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
