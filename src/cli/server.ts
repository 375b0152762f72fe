import { ensureLocalServer } from '../devserver/local-server';
import { connectionOptionsOf, type TemporalConnectionOptions, temporalSettingsFromEnv } from '../temporal/connection';
import { stateDir } from './state-dir';

/** The Temporal server a CLI command talks to, and how. */
export interface CliServer {
  connection: TemporalConnectionOptions;
  namespace: string;
  uiUrl: string;
  /** True for a server the environment names; false for the local dev server. */
  configured: boolean;
}

/** Where a configured server's Web UI is assumed to be when TEMPORAL_UI_URL does not say. */
const DEFAULT_UI_URL = 'http://localhost:8233';

/**
 * The server the environment names (TEMPORAL_ADDRESS or a profile, with its TLS and API key), else
 * the local dev server, started on first use and kept running between commands.
 */
export async function cliServer(log: (line: string) => void): Promise<CliServer> {
  const settings = temporalSettingsFromEnv();
  const { namespace } = settings;
  if (settings.address)
    return {
      connection: connectionOptionsOf(settings, settings.address),
      namespace,
      uiUrl: process.env.TEMPORAL_UI_URL ?? DEFAULT_UI_URL,
      configured: true,
    };
  const local = await ensureLocalServer({ stateDir: stateDir(), log });
  return { connection: connectionOptionsOf(settings, local.address), namespace, uiUrl: local.uiUrl, configured: false };
}
