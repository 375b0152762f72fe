import { z } from 'zod';
import { parseOrThrow } from '../src/goo/validate';
import { DEFAULT_TASK_QUEUE } from '../src/run/wire';

/**
 * The worker's configuration, from the environment only: this is where the endpoint and its API
 * key live, never in a workflow's input or history.
 */
export const WorkerConfig = z.object({
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
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
  /** A provider's quota for this worker: requests and tokens per minute (unset: no limit). */
  GOT_LLM_RPM: z.coerce.number().positive().optional(),
  GOT_LLM_TPM: z.coerce.number().positive().optional(),
  /** The same request quota shared by all workers of the task queue, enforced by the server (activities per second). */
  GOT_TASK_QUEUE_RPS: z.coerce.number().positive().optional(),
  GOT_CACHE_DIR: z.string().optional(),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export function workerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return parseOrThrow(WorkerConfig, env, 'worker environment');
}
