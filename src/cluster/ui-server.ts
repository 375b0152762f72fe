import { join } from 'node:path';
import { LOOPBACK } from '../devserver/process';
import { DEPLOY_FILES, REPO_ROOT, type SharedSettings, uiServerArgs } from './deploy-files';
import type { ClusterPorts } from './ports';
import { httpOk, type ProcessRecord, spawnDetached, waitUntilReady } from './processes';

/** The Web UI's address. */
export const webUiUrl = (ports: ClusterPorts) => `http://${LOOPBACK}:${ports.webUi}`;

/** The codec server's address, as the browser (and any client) reaches it. */
export const codecUrl = (ports: ClusterPorts) => `http://${LOOPBACK}:${ports.codec}`;

/** The origins a browser shows the cluster's Web UI under (the codec server allows them). */
export const webUiOrigins = (ports: ClusterPorts) => [webUiUrl(ports), `http://localhost:${ports.webUi}`];

/** The environment the shared UI configuration (deploy/ui-server/got.yaml) is rendered with on this machine. */
export function uiServerEnv(ports: ClusterPorts, shared: SharedSettings): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: `${LOOPBACK}:${ports.frontend}`,
    TEMPORAL_UI_HOST: LOOPBACK,
    TEMPORAL_UI_PORT: String(ports.webUi),
    TEMPORAL_NAMESPACE: shared.TEMPORAL_NAMESPACE,
    TEMPORAL_CORS_ORIGINS: webUiOrigins(ports).join(','),
    TEMPORAL_CODEC_ENDPOINT: codecUrl(ports),
  };
}

/** Starts the Web UI server detached; resolves once it serves the UI. */
export async function startUiServer(o: {
  binary: string;
  ports: ClusterPorts;
  shared: SharedSettings;
  logFile: string;
  timeoutMs?: number;
}): Promise<ProcessRecord> {
  const record = spawnDetached(o.binary, uiServerArgs(join(REPO_ROOT, DEPLOY_FILES.uiConfigDir)), {
    logFile: o.logFile,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', ...uiServerEnv(o.ports, o.shared) },
    cwd: REPO_ROOT,
  });
  await waitUntilReady('The Web UI server', () => isUiReady(o.ports), { timeoutMs: o.timeoutMs ?? 60_000, process: record });
  return record;
}

/** True when the Web UI answers its page with 200. */
export const isUiReady = (ports: ClusterPorts) => httpOk(`${webUiUrl(ports)}/`);
