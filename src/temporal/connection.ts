import { accessSync, constants } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { type ClientConfigProfile, type ConfigDataSource, loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import { z } from 'zod';
import { parseOrThrow, ValidationError } from '../goo/validate';

// Every process of ours that reaches a Temporal frontend (the CLI's client and in-process worker,
// `got-worker`, `got status`, `got inspect`) takes its settings from here: Temporal's standard
// environment variables and its optional TOML profile file, read by @temporalio/envconfig
// (decision 55). This module adds what that package leaves to its callers: refusals that name the
// variable, before any connection is tried.

/** The namespace used when neither TEMPORAL_NAMESPACE nor a profile names one. */
export const DEFAULT_NAMESPACE = 'default';

/** What `Connection.connect` (client) and `NativeConnection.connect` (worker) both take to reach a frontend. */
export interface TemporalConnectionOptions {
  address: string;
  /** `true`: TLS with the system's roots; an object: a CA, a client certificate, a server name; `false`/absent: plaintext. */
  tls?: TLSConfig | boolean;
  /** Sent as `authorization: Bearer <key>` on every call (Temporal Cloud's API keys). */
  apiKey?: string;
  /** Further gRPC headers (`TEMPORAL_GRPC_META_<NAME>`). */
  metadata?: Record<string, string>;
}

/** Where Temporal is and how to reach it, as this environment says. */
export interface TemporalSettings {
  /** The frontend `host:port` the environment names; absent: none (the CLI then uses its local dev server). */
  address?: string;
  namespace: string;
  /** Everything but the address, for whichever address is used. */
  security: Omit<TemporalConnectionOptions, 'address'>;
  /** The profile of the TOML file that was asked for by name (`TEMPORAL_PROFILE`), if one was. */
  profile?: string;
}

/** The standard variables of the TLS file settings, by the profile's field they override. */
const TLS_FILE_VARIABLES = {
  clientCert: 'TEMPORAL_TLS_CLIENT_CERT',
  clientKey: 'TEMPORAL_TLS_CLIENT_KEY',
  serverCACert: 'TEMPORAL_TLS_SERVER_CA_CERT',
} as const;

const Flag = z.enum(['true', 'false', '1', '0'], { error: 'true or false (or 1 or 0)' });

/** The variables checked before the package reads them: it takes any value but `true`/`1` as false. */
const ConnectionEnv = z.object({
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):[0-9]{1,5}$/, 'host:port, e.g. my-ns.a1b2c.tmprl.cloud:7233')
    .optional(),
  TEMPORAL_TLS: Flag.optional(),
  // The TypeScript SDK has no switch for it; a name the certificate carries does the same job safely.
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: z
    .enum(['false', '0'], { error: 'not supported here: set TEMPORAL_TLS_SERVER_NAME to a name the server certificate carries' })
    .optional(),
});

const SUBJECT = 'Temporal connection settings';

/** A refusal of one setting, worded like the schema's: `invalid Temporal connection settings: - <name>: <why>`. */
const refuse = (name: string, message: string) => new ValidationError(SUBJECT, [{ path: name, message }]);

/** An empty variable (docker-compose's `${VAR:-}`) is an unset one. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
}

/**
 * Reads the connection settings: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`,
 * `TEMPORAL_TLS`, `TEMPORAL_TLS_*`, `TEMPORAL_GRPC_META_*`, over the profile `TEMPORAL_PROFILE`
 * (default `default`) of the file `TEMPORAL_CONFIG_FILE` (default `~/.config/temporalio/temporal.toml`)
 * when there is one. An API key turns TLS on unless `TEMPORAL_TLS=false`. Throws, naming the
 * variable, for a file that cannot be read, half a client certificate pair, or a malformed value.
 */
export function temporalSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const vars = withoutEmpty(env);
  parseOrThrow(ConnectionEnv, vars, SUBJECT);
  // The package would let one of the two silently win.
  for (const v of Object.values(TLS_FILE_VARIABLES))
    if (vars[`${v}_PATH`] !== undefined && vars[`${v}_DATA`] !== undefined)
      throw refuse(`${v}_PATH`, `set either it or ${v}_DATA, not both`);
  if (vars.TEMPORAL_CONFIG_FILE !== undefined) readable(vars.TEMPORAL_CONFIG_FILE, 'TEMPORAL_CONFIG_FILE');
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({ overrideEnvVars: vars });
  } catch (error) {
    const file = vars.TEMPORAL_CONFIG_FILE ?? '~/.config/temporalio/temporal.toml';
    throw refuse(vars.TEMPORAL_PROFILE ? 'TEMPORAL_PROFILE' : 'TEMPORAL_CONFIG_FILE', `${file}: ${(error as Error).message}`);
  }
  const tls = profile.tls;
  if (tls && !tls.disabled) {
    for (const [field, variable] of Object.entries(TLS_FILE_VARIABLES)) {
      const source: ConfigDataSource | undefined = tls[field as keyof typeof TLS_FILE_VARIABLES];
      if (source && 'path' in source) readable(source.path, sourceName(vars, `${variable}_PATH`));
    }
    if (!tls.clientCert !== !tls.clientKey) {
      const [given, missing] = tls.clientCert ? ['CERT', 'KEY'] : ['KEY', 'CERT'];
      throw refuse(
        sourceName(vars, `TEMPORAL_TLS_CLIENT_${given}_PATH`),
        `set without TEMPORAL_TLS_CLIENT_${missing}_PATH: mTLS needs both the client certificate and its key`,
      );
    }
  }
  // The package's own rule: TLS as configured, else on when there is an API key.
  const { tls: resolved } = toClientOptions(profile).connectionOptions;
  const security = {
    ...(resolved != null ? { tls: resolved } : {}),
    ...(profile.apiKey !== undefined ? { apiKey: profile.apiKey } : {}),
    ...(profile.grpcMeta !== undefined ? { metadata: profile.grpcMeta } : {}),
  };
  // Certificates and keys are for a server someone named; the local dev server speaks plaintext.
  if (!profile.address && (security.apiKey !== undefined || security.tls))
    throw refuse(
      'TEMPORAL_ADDRESS',
      `not set, but ${security.apiKey !== undefined ? 'TEMPORAL_API_KEY' : 'TLS'} is: name the server it is for (the local dev server speaks plaintext)`,
    );
  return {
    ...(profile.address ? { address: profile.address } : {}),
    namespace: profile.namespace ?? DEFAULT_NAMESPACE,
    security,
    ...(vars.TEMPORAL_PROFILE ? { profile: vars.TEMPORAL_PROFILE } : {}),
  };
}

/** The options to connect to `address` (the configured one, or the CLI's local server) with these settings. */
export function connectionOptionsOf(settings: TemporalSettings, address: string): TemporalConnectionOptions {
  return { address, ...settings.security };
}

/** How a process connects, for a person: never the key itself. */
export interface ConnectionSummary {
  /** The configured address; absent: the CLI's local dev server. */
  address?: string;
  namespace: string;
  tls: boolean;
  /** Whether a client certificate is presented (mTLS). */
  clientCertificate: boolean;
  /** Whether a CA of its own is trusted instead of the system's roots. */
  serverCA: boolean;
  serverName?: string;
  apiKey: boolean;
  profile?: string;
}

/** What `got doctor` prints about the connection. */
export function summarizeConnection(settings: TemporalSettings): ConnectionSummary {
  const { tls, apiKey } = settings.security;
  const config = typeof tls === 'object' ? tls : undefined;
  return {
    ...(settings.address ? { address: settings.address } : {}),
    namespace: settings.namespace,
    tls: Boolean(tls),
    clientCertificate: Boolean(config?.clientCertPair),
    serverCA: Boolean(config?.serverRootCACertificate),
    ...(config?.serverNameOverride ? { serverName: config.serverNameOverride } : {}),
    apiKey: apiKey !== undefined,
    ...(settings.profile ? { profile: settings.profile } : {}),
  };
}

/** The variable that set a path, or the profile field it came from when the environment did not set it. */
function sourceName(vars: Record<string, string>, variable: string): string {
  if (vars[variable] !== undefined) return variable;
  const field = variable.replace(/^TEMPORAL_TLS_/, '').toLowerCase();
  return `tls.${field} of the Temporal config profile "${vars.TEMPORAL_PROFILE ?? 'default'}"`;
}

/** Refuses a file this process cannot read, naming where its path came from. */
function readable(path: string, name: string): void {
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw refuse(name, `${path}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}`);
  }
}

/** What an empty client profile file says: no TLS, no key, the address from `TEMPORAL_ADDRESS`. */
export const PLAINTEXT_PROFILE =
  '# A plaintext server of our own: no TLS, no API key; the address comes from TEMPORAL_ADDRESS.\n[profile.default]\n';

/**
 * `env` for a process that must reach a plaintext server of ours (a `got cluster` worker) whatever
 * the user's shell holds for Temporal Cloud: every connection variable but the address and namespace
 * dropped, and `TEMPORAL_CONFIG_FILE` pointed at `profileFile` (write {@link PLAINTEXT_PROFILE} there)
 * so the user's own `temporal.toml` is not read either.
 */
export function plaintextTemporalEnv(env: NodeJS.ProcessEnv, profileFile: string): NodeJS.ProcessEnv {
  const kept = Object.entries(env).filter(
    ([name]) => !name.startsWith('TEMPORAL_') || name === 'TEMPORAL_ADDRESS' || name === 'TEMPORAL_NAMESPACE',
  );
  return { ...Object.fromEntries(kept), TEMPORAL_CONFIG_FILE: profileFile };
}
