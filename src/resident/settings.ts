import { createHash } from 'node:crypto';
import { OPTION_ENV } from '../cli/config-path';
import { SERVER_RETENTION_ENV } from '../temporal/retention';

/** What a worker is made of: the LLM it calls and the environment it reads (codec keys, store, limits, endpoint, server). */
export interface WorkerChoice {
  llm: 'sim' | 'local' | 'endpoint';
  /** With `llm: 'local'`: the model's short name (`localModelLabel`). */
  localModel?: string;
  /** With `llm: 'sim'`: its latency per call. */
  latencyMs?: number;
}

/**
 * Variables a command reads for its requests or its own output, never for its worker: a run whose
 * only difference from a resident worker is one of these may still be handed to it.
 */
const CLIENT_ONLY_ENV: ReadonlySet<string> = new Set([
  ...Object.values(OPTION_ENV),
  'GOT_CONFIG',
  'GOT_VERBOSE',
  'GOT_LOG_LEVEL',
  'GOT_STATE_DIR',
  SERVER_RETENTION_ENV,
  'TEMPORAL_UI_URL',
]);

/** The families of variables a worker may read (the endpoint, the server, the engine's own). */
const WORKER_ENV = /^(GOT_|OPENAI_|AZURE_OPENAI_|TEMPORAL_)|^XDG_CACHE_HOME$/;

/**
 * The settings a resident worker serves, as one key: its LLM choice and every variable of those
 * families but the client-only ones. A run is handed to a resident worker only when its key is the
 * same, so a run never meets a worker with other codec keys, another store or another model; a
 * variable the worker does not in fact read costs only a missed hand-over. Secrets go into a hash,
 * never into the registry.
 */
export function settingsKey(choice: WorkerChoice, env: NodeJS.ProcessEnv = process.env): string {
  const vars = Object.keys(env)
    .filter((name) => WORKER_ENV.test(name) && !CLIENT_ONLY_ENV.has(name) && env[name] !== '')
    .sort()
    .map((name) => [name, env[name]]);
  const canonical = JSON.stringify({ llm: choice.llm, model: choice.localModel ?? null, latency: choice.latencyMs ?? null, vars });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

/** The task queue of the resident worker with these settings: its own, so no other worker takes its runs' tasks. */
export const residentTaskQueue = (baseQueue: string, key: string): string => `${baseQueue}-resident-${key}`;

/** The choice in words, for messages and `got worker list`. */
export function describeChoice(choice: WorkerChoice): string {
  if (choice.llm === 'sim') return `the simulated LLM (${choice.latencyMs ?? 0} ms per call)`;
  if (choice.llm === 'local') return `the local model ${choice.localModel}`;
  return 'the configured endpoint';
}
