import { join } from 'node:path';
import { ensureGoTool, toolCacheRoot } from '../devserver/go-install';

// The Temporal server of the cluster is the version the Temporal CLI we build embeds in its dev
// server (src/devserver/temporal-cli.ts), so a run behaves the same on both; the Web UI server is the
// version docker-compose.yml deploys. Each is built once per machine from its Go module, like the CLI.

/** The Temporal server version (and of its SQL schema tool). */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** The Web UI server version. */
export const UI_SERVER_VERSION = '2.42.1';

/** A Go-built program the cluster runs. */
interface ClusterTool {
  what: string;
  module: string;
  /** Where the built binary is cached. */
  binary: string;
  /** An environment variable naming an existing binary instead. */
  pathEnv: string;
  /** Its name on PATH. */
  fileName: string;
}

/** The three Go programs of a cluster (MinIO is src/devserver/minio.ts's). */
export const CLUSTER_TOOLS = {
  server: {
    what: `Temporal server v${TEMPORAL_SERVER_VERSION}`,
    module: `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
    binary: join(toolCacheRoot(), `temporal-server-${TEMPORAL_SERVER_VERSION}`, 'server'),
    pathEnv: 'TEMPORAL_SERVER_PATH',
    fileName: 'temporal-server',
  },
  sqlTool: {
    what: `Temporal SQL tool v${TEMPORAL_SERVER_VERSION}`,
    module: `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    binary: join(toolCacheRoot(), `temporal-sql-tool-${TEMPORAL_SERVER_VERSION}`, 'sql'),
    pathEnv: 'TEMPORAL_SQL_TOOL_PATH',
    fileName: 'temporal-sql-tool',
  },
  uiServer: {
    what: `Temporal Web UI server v${UI_SERVER_VERSION}`,
    module: `github.com/temporalio/ui-server/v2/cmd/server@v${UI_SERVER_VERSION}`,
    binary: join(toolCacheRoot(), `temporal-ui-server-${UI_SERVER_VERSION}`, 'server'),
    pathEnv: 'TEMPORAL_UI_SERVER_PATH',
    fileName: 'temporal-ui-server',
  },
} as const satisfies Record<string, ClusterTool>;

/** Which of {@link CLUSTER_TOOLS}. */
export type ClusterToolName = keyof typeof CLUSTER_TOOLS;

/** The path of a usable binary of `name`: its env variable's, the cached build, one on PATH, or built now with Go (once per machine). */
export function ensureClusterTool(name: ClusterToolName, log: (line: string) => void = () => {}): Promise<string> {
  const tool = CLUSTER_TOOLS[name];
  return ensureGoTool({
    ...tool,
    log,
    howToFix:
      'To fix: install Go >= 1.24 (https://go.dev/dl/) so it can be built automatically, ' +
      `or set ${tool.pathEnv} to an existing ${tool.fileName} binary of that version.`,
  });
}

/** All three binaries, built one after the other (each build takes both cores). */
export async function ensureClusterTools(log: (line: string) => void = () => {}): Promise<Record<ClusterToolName, string>> {
  return {
    server: await ensureClusterTool('server', log),
    sqlTool: await ensureClusterTool('sqlTool', log),
    uiServer: await ensureClusterTool('uiServer', log),
  };
}
