import { z } from 'zod';
import { parseOrThrow } from '../src/goo/validate';
import { DEFAULT_TASK_QUEUE } from '../src/run/request';

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
  /** Set to "false" for endpoints that ignore `n` (k samples then cost k requests). */
  GOT_LLM_SUPPORTS_N: z.enum(['true', 'false']).default('true'),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export function workerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return parseOrThrow(WorkerConfig, env, 'worker environment');
}
