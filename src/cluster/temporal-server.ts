import { execFile } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { isServerHealthy } from '../devserver/dev-server';
import { LOOPBACK } from '../devserver/process';
import { ensureSearchAttributes } from '../run/register-search-attributes';
import { DEPLOY_FILES, REPO_ROOT, retentionSeconds, type SharedSettings, temporalServerArgs } from './deploy-files';
import type { ClusterPorts } from './ports';
import { type ProcessRecord, spawnDetached, waitUntilReady } from './processes';

const exec = promisify(execFile);

/**
 * The environment the shared server configuration (deploy/temporal/got.yaml) is rendered with on
 * this machine: every variable it reads, filled in from the cluster's ports and deploy/temporal.env.
 */
export function temporalServerEnv(ports: ClusterPorts, shared: SharedSettings, root = REPO_ROOT): Record<string, string> {
  return {
    POSTGRES_HOST: LOOPBACK,
    POSTGRES_PORT: String(ports.postgres),
    POSTGRES_USER: shared.POSTGRES_USER,
    POSTGRES_PASSWORD: shared.POSTGRES_PASSWORD,
    TEMPORAL_DB_NAME: shared.TEMPORAL_DB_NAME,
    TEMPORAL_VISIBILITY_DB_NAME: shared.TEMPORAL_VISIBILITY_DB_NAME,
    TEMPORAL_HISTORY_SHARDS: shared.TEMPORAL_HISTORY_SHARDS,
    TEMPORAL_LOG_LEVEL: 'warn',
    TEMPORAL_BIND_IP: LOOPBACK,
    TEMPORAL_FRONTEND_PORT: String(ports.frontend),
    TEMPORAL_FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    TEMPORAL_HISTORY_PORT: String(ports.history),
    TEMPORAL_MATCHING_PORT: String(ports.matching),
    TEMPORAL_WORKER_PORT: String(ports.temporalWorker),
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    TEMPORAL_HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    TEMPORAL_MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    TEMPORAL_WORKER_MEMBERSHIP_PORT: String(ports.temporalWorkerMembership),
    TEMPORAL_DYNAMIC_CONFIG_FILE: join(root, DEPLOY_FILES.dynamicConfig),
  };
}

const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' });

/** Runs deploy/temporal-setup.sh: creates both databases and brings their schemas up to date (idempotent). */
export async function setupSchema(o: { sqlTool: string; ports: ClusterPorts; shared: SharedSettings; logFile: string }): Promise<void> {
  const env = { ...baseEnv(), ...temporalServerEnv(o.ports, o.shared), TEMPORAL_SQL_TOOL: o.sqlTool };
  try {
    const { stdout, stderr } = await exec('sh', [join(REPO_ROOT, DEPLOY_FILES.schemaSetup)], { env, maxBuffer: 16 * 1024 * 1024 });
    await appendFile(o.logFile, stdout + stderr);
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    await appendFile(o.logFile, (e.stdout ?? '') + (e.stderr ?? ''));
    throw new Error(
      `${DEPLOY_FILES.schemaSetup} failed (log: ${o.logFile}): ${e.message.split('\n')[0]}\n${(e.stderr || e.stdout || '').split('\n').slice(-20).join('\n')}`,
    );
  }
}

/** Starts the Temporal server detached on the shared configuration; resolves once its frontend answers. */
export async function startTemporalServer(o: {
  binary: string;
  ports: ClusterPorts;
  shared: SharedSettings;
  logFile: string;
  timeoutMs?: number;
}): Promise<ProcessRecord> {
  const env = { ...baseEnv(), ...temporalServerEnv(o.ports, o.shared) };
  const record = spawnDetached(o.binary, temporalServerArgs(join(REPO_ROOT, DEPLOY_FILES.temporalConfigDir)), {
    logFile: o.logFile,
    env,
    cwd: REPO_ROOT,
  });
  await waitUntilReady('The Temporal server', () => isServerHealthy(frontendAddress(o.ports)), {
    timeoutMs: o.timeoutMs ?? 90_000,
    process: record,
  });
  return record;
}

/** host:port of the cluster's frontend. */
export const frontendAddress = (ports: ClusterPorts) => `${LOOPBACK}:${ports.frontend}`;

/**
 * Registers the namespace (a bare server has only its system namespace; compose's temporal-namespace
 * service does the same) and the GoT search attributes, then waits until the frontend serves it.
 */
export async function ensureNamespace(o: { ports: ClusterPorts; shared: SharedSettings; timeoutMs?: number }): Promise<void> {
  const address = frontendAddress(o.ports);
  const namespace = o.shared.TEMPORAL_NAMESPACE;
  const connection = await Connection.connect({ address });
  try {
    const known = await connection.workflowService.describeNamespace({ namespace }).then(
      () => true,
      () => false,
    );
    if (!known) {
      await connection.workflowService
        .registerNamespace({
          namespace,
          workflowExecutionRetentionPeriod: msToTs(retentionSeconds(o.shared.TEMPORAL_NAMESPACE_RETENTION) * 1000),
        })
        .catch((error: unknown) => {
          // Another `up` may have registered it meanwhile.
          if (!/already exists/i.test(String((error as Error).message))) throw error;
        });
    }
  } finally {
    await connection.close();
  }
  // The services learn of a new namespace from their caches, refreshed every few seconds: until then
  // it is "not found" to the operator service.
  await waitUntilReady(
    `Namespace "${namespace}"`,
    () =>
      ensureSearchAttributes({ address }, namespace).then(
        () => true,
        (error: unknown) => {
          if (/not.?found/i.test(String((error as Error).message))) return false;
          throw error;
        },
      ),
    { timeoutMs: o.timeoutMs ?? 60_000, intervalMs: 500 },
  );
}
