import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRetention } from '../temporal/retention';
import { packageRoot } from '../util/build-manifest';

// The files under deploy/ that docker-compose.yml and `got cluster up` both use, so what a local
// cluster runs is what compose deploys (decision 44). Compose mounts deploy/ at /etc/got.

/** The repository (package) root, where deploy/ and bin/ are. */
export const REPO_ROOT = packageRoot(import.meta.url);

/** Paths relative to the repository root. */
export const DEPLOY_FILES = {
  /** The Temporal server's configuration template (rendered by the server itself). */
  temporalConfigDir: 'deploy/temporal',
  /** The Web UI server's configuration template. */
  uiConfigDir: 'deploy/ui-server',
  /** Dynamic config: the server settings the engine relies on. */
  dynamicConfig: 'deploy/temporal-dynamic-config.yaml',
  /** Creates the databases and applies the schemas with temporal-sql-tool. */
  schemaSetup: 'deploy/temporal-setup.sh',
  /** Database account, names, shard count and namespace. */
  sharedEnv: 'deploy/temporal.env',
} as const;

/** The configuration "environment": both servers read `<config dir>/<env>.yaml`. */
export const CONFIG_ENV_NAME = 'got';

/** Where compose mounts deploy/ inside its containers. */
export const COMPOSE_DEPLOY_MOUNT = '/etc/got';

/** The values of deploy/temporal.env. */
export interface SharedSettings {
  POSTGRES_USER: string;
  POSTGRES_PASSWORD: string;
  TEMPORAL_DB_NAME: string;
  TEMPORAL_VISIBILITY_DB_NAME: string;
  TEMPORAL_HISTORY_SHARDS: string;
  TEMPORAL_NAMESPACE: string;
  TEMPORAL_NAMESPACE_RETENTION: string;
}

const SHARED_KEYS: (keyof SharedSettings)[] = [
  'POSTGRES_USER',
  'POSTGRES_PASSWORD',
  'TEMPORAL_DB_NAME',
  'TEMPORAL_VISIBILITY_DB_NAME',
  'TEMPORAL_HISTORY_SHARDS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_NAMESPACE_RETENTION',
];

/** Parses an env file as compose reads one: `KEY=value` lines, `#` comments and blank lines ignored. */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`not KEY=value: "${line}"`);
    values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return values;
}

/** deploy/temporal.env, checked to hold every shared setting. */
export function sharedSettings(root = REPO_ROOT): SharedSettings {
  const file = join(root, DEPLOY_FILES.sharedEnv);
  const values = parseEnvFile(readFileSync(file, 'utf8'));
  const missing = SHARED_KEYS.filter((k) => !values[k]);
  if (missing.length) throw new Error(`${file} lacks ${missing.join(', ')}`);
  return Object.fromEntries(SHARED_KEYS.map((k) => [k, values[k]!])) as unknown as SharedSettings;
}

/** The namespace retention of deploy/temporal.env (`72h`, `30d`) in seconds. */
export const retentionSeconds = (value: string): number => parseRetention(value, 'TEMPORAL_NAMESPACE_RETENTION');

/** The Temporal server's command line (after the binary): the shared configuration directory, rendered with the environment. */
export function temporalServerArgs(configDir: string): string[] {
  // --allow-no-auth: no authorizer is configured, like the dev server; say so rather than be warned about it.
  return ['--allow-no-auth', '--root', '/', '--config', configDir, '--env', CONFIG_ENV_NAME, 'start'];
}

/** The Web UI server's command line (after the binary). */
export function uiServerArgs(configDir: string): string[] {
  return ['--root', '/', '--config', configDir, '--env', CONFIG_ENV_NAME, 'start'];
}
