import { z } from 'zod';
import { parseOrThrow } from '../src/goo/validate';
import type { RateLimits } from '../src/limits/buckets';
import { DEFAULT_LIMIT_SCOPE, DEFAULT_TASK_QUEUE, LIMIT_SCOPES, type LimitScope } from '../src/run/wire';

/** A Prometheus endpoint's address: `host:port`, `[v6 address]:port`. */
const MetricsAddress = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):([1-9][0-9]{0,4})$/, 'host:port, e.g. 127.0.0.1:9464 or 0.0.0.0:9464')
  .refine((a) => Number(/:(\d+)$/.exec(a)?.[1] ?? 0) <= 65535, 'a port up to 65535');

/** An empty variable (`GOT_METRICS_ADDRESS=`, or docker-compose's `${VAR:-}`) is an unset one. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema);

/** Where traces go: an OTLP/HTTP collector, or stderr for a look by eye. */
export const TracesSetting = z.enum(['otlp', 'console']);
/** `otlp` or `console`. */
export type TracesSetting = z.infer<typeof TracesSetting>;

/**
 * The worker's configuration, from the environment only: this is where the endpoint and its API
 * key live, never in a workflow's input or history. How it reaches Temporal (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TLS, API key) is read by `src/temporal/connection.ts`, shared with the CLI.
 */
export const WorkerConfig = z.object({
  GOT_TASK_QUEUE: z.string().default(DEFAULT_TASK_QUEUE),
  GOT_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().default(200),
  /** Unset means: use the simulated LLM the CLI starts. */
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  /** Azure OpenAI instead: the resource's endpoint, its key, API version and (optionally) one deployment for every run. */
  AZURE_OPENAI_ENDPOINT: z.url().optional(),
  AZURE_OPENAI_API_KEY: z.string().optional(),
  OPENAI_API_VERSION: z.string().optional(),
  AZURE_OPENAI_DEPLOYMENT: z.string().optional(),
  /** Set to "false" for endpoints that ignore `n` (k samples then cost k requests). */
  GOT_LLM_SUPPORTS_N: z.enum(['true', 'false']).default('true'),
  /** "true": ask for answers as streams (heartbeats on tokens; a stall, not a long answer, times out). */
  GOT_LLM_STREAM: z.enum(['true', 'false']).default('false'),
  /** A provider's quota: requests and tokens per minute (unset: no limit). */
  GOT_LLM_RPM: unsetWhenEmpty(z.coerce.number().positive().optional()),
  GOT_LLM_TPM: unsetWhenEmpty(z.coerce.number().positive().optional()),
  /** Seconds' worth of the quota that may go at once after a quiet spell (default 60, as providers allow). */
  GOT_LLM_LIMIT_BURST_SECONDS: unsetWhenEmpty(z.coerce.number().positive().optional()),
  /** `shared`: the quota is the account's, held across every worker calling the endpoint (decision 70); `worker`: each worker's own. */
  GOT_LLM_LIMIT_SCOPE: z.enum(LIMIT_SCOPES).default(DEFAULT_LIMIT_SCOPE),
  /** The same request quota shared by all workers of the task queue, enforced by the server (activities per second). */
  GOT_TASK_QUEUE_RPS: z.coerce.number().positive().optional(),
  GOT_CACHE_DIR: z.string().optional(),
  /**
   * `host:port` where the worker serves Prometheus metrics at `/metrics`: the SDK's own and ours
   * (`src/telemetry/metrics.ts`). Unset: no metrics, no port opened.
   */
  GOT_METRICS_ADDRESS: unsetWhenEmpty(MetricsAddress.optional()),
  /**
   * `otlp`: traces of runs sent as OTLP over HTTP (JSON) to `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
   * `OTEL_EXPORTER_OTLP_ENDPOINT` (default http://localhost:4318); `console`: spans printed to stderr.
   * Unset: no traces. The CLI reads it too, so a run's trace starts where the run is started.
   */
  GOT_OTEL_TRACES: unsetWhenEmpty(TracesSetting.optional()),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export function workerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return parseOrThrow(WorkerConfig, env, 'worker environment');
}

/** The provider's quota and whose calls it holds (GOT_LLM_RPM, GOT_LLM_TPM, GOT_LLM_LIMIT_*): the worker's and the CLI's in-process worker's. */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): { rateLimits: RateLimits; limitScope: LimitScope } {
  return rateLimitsOf(
    parseOrThrow(
      WorkerConfig.pick({ GOT_LLM_RPM: true, GOT_LLM_TPM: true, GOT_LLM_LIMIT_BURST_SECONDS: true, GOT_LLM_LIMIT_SCOPE: true }),
      env,
      'environment',
    ),
  );
}

/** The same, from a configuration already read. */
export function rateLimitsOf(
  config: Pick<WorkerConfig, 'GOT_LLM_RPM' | 'GOT_LLM_TPM' | 'GOT_LLM_LIMIT_BURST_SECONDS' | 'GOT_LLM_LIMIT_SCOPE'>,
): { rateLimits: RateLimits; limitScope: LimitScope } {
  const rateLimits: RateLimits = {
    ...(config.GOT_LLM_RPM ? { requestsPerMinute: config.GOT_LLM_RPM } : {}),
    ...(config.GOT_LLM_TPM ? { tokensPerMinute: config.GOT_LLM_TPM } : {}),
    ...(config.GOT_LLM_LIMIT_BURST_SECONDS ? { burstSeconds: config.GOT_LLM_LIMIT_BURST_SECONDS } : {}),
  };
  return { rateLimits, limitScope: config.GOT_LLM_LIMIT_SCOPE };
}

/** Whether and where traces go (`GOT_OTEL_TRACES`), for the CLI and `got doctor`, which read nothing else of the worker's settings. */
export function tracesFromEnv(env: NodeJS.ProcessEnv = process.env): TracesSetting | undefined {
  return parseOrThrow(WorkerConfig.pick({ GOT_OTEL_TRACES: true }), env, 'environment').GOT_OTEL_TRACES;
}
