import { hostname } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import type { WorkerConfig } from '../../worker/config';
import { LOOPBACK } from '../devserver/process';
import { DEFAULT_TASK_QUEUE } from '../run/wire';
import { plaintextTemporalEnv } from '../temporal/connection';
import { REPO_ROOT } from './deploy-files';
import type { ClusterPorts } from './ports';
import { httpOk, type ProcessRecord, spawnDetached, waitUntilReady } from './processes';
import { codecUrl, webUiOrigins } from './ui-server';

// The cluster's own programs, run as a deployment runs them (docker-compose.yml's commands): the
// compiled `got codec-server`, `got sim-llm` and `got-worker`, each a process of its own.

/** Environment variable through which a worker serves its metrics (host:port; off when unset). */
export const METRICS_ADDRESS_ENV = 'GOT_METRICS_ADDRESS' satisfies keyof WorkerConfig;

const node = process.execPath;
const bin = (name: string) => join(REPO_ROOT, 'bin', name);

/** The simulated LLM's OpenAI-compatible base URL. */
export const simLlmUrl = (ports: ClusterPorts) => `http://${LOOPBACK}:${ports.simLlm}/v1`;

/** Starts `got codec-server` detached with the deployment's keys and store; resolves once it answers. */
export async function startCodecServer(o: { ports: ClusterPorts; env: Record<string, string>; logFile: string }): Promise<ProcessRecord> {
  const record = spawnDetached(node, [bin('got.js'), 'codec-server', '--host', LOOPBACK, '--port', String(o.ports.codec)], {
    logFile: o.logFile,
    // The browser calls it from the Web UI's pages, so their origins must be allowed.
    env: { ...process.env, ...o.env, GOT_CODEC_CORS_ORIGINS: webUiOrigins(o.ports).join(',') },
    cwd: REPO_ROOT,
  });
  await waitUntilReady('The codec server', () => isCodecReady(o.ports), { timeoutMs: 60_000, process: record });
  return record;
}

/** True when the codec server answers its health check. */
export const isCodecReady = (ports: ClusterPorts) => httpOk(`${codecUrl(ports)}/health`);

/** Starts `got sim-llm` detached; resolves once it lists its model. */
export async function startSimLlm(o: { ports: ClusterPorts; latencyMs: number; logFile: string }): Promise<ProcessRecord> {
  const args = [bin('got.js'), 'sim-llm', '--host', LOOPBACK, '--port', String(o.ports.simLlm), '--latency', String(o.latencyMs)];
  const record = spawnDetached(node, args, { logFile: o.logFile, env: process.env, cwd: REPO_ROOT });
  await waitUntilReady('The simulated LLM', () => isSimLlmReady(o.ports), { timeoutMs: 60_000, process: record });
  return record;
}

/** True when the simulated LLM answers. */
export const isSimLlmReady = (ports: ClusterPorts) => httpOk(`${simLlmUrl(ports)}/models`);

/** Starts one `got-worker` detached; resolves once the server sees it poll both its workflow and activity tasks. */
export async function startWorker(o: {
  address: string;
  namespace: string;
  env: Record<string, string>;
  /** A client profile file for {@link plaintextTemporalEnv}: the worker ignores a shell's Temporal Cloud settings. */
  profileFile: string;
  logFile: string;
  timeoutMs?: number;
}): Promise<ProcessRecord> {
  const env = plaintextTemporalEnv({ ...process.env, ...o.env }, o.profileFile);
  const record = spawnDetached(node, [bin('got-worker.js')], { logFile: o.logFile, env, cwd: REPO_ROOT });
  await waitUntilReady(`The worker (pid ${record.pid})`, () => isWorkerPolling(o.address, o.namespace, record.pid), {
    timeoutMs: o.timeoutMs ?? 120_000,
    process: record,
    intervalMs: 500,
  });
  return record;
}

/** True when the server lists the worker process `pid` among the pollers of the task queue's workflow and activity tasks. */
export async function isWorkerPolling(address: string, namespace: string, pid: number, taskQueue = DEFAULT_TASK_QUEUE): Promise<boolean> {
  // The SDK's default identity: what the server records for each poller.
  const identity = `${pid}@${hostname()}`;
  const connection = Connection.lazy({ address, interceptors: [] });
  try {
    return await connection.withDeadline(Date.now() + 3_000, async () => {
      for (const taskQueueType of [1, 2]) {
        // 1: workflow tasks, 2: activity tasks (temporal.api.enums.v1.TaskQueueType).
        const { pollers } = await connection.workflowService.describeTaskQueue({
          namespace,
          taskQueue: { name: taskQueue },
          taskQueueType,
        });
        if (!pollers.some((p) => p.identity === identity)) return false;
      }
      return true;
    });
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}
