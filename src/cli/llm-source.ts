import { basename } from 'node:path';
import { endpointFromEnv } from '../llm/endpoint';
import { LOCAL_LLM_DEFAULTS } from '../localllm/defaults';
import { LOCAL_MODEL_ENV, SMOLLM2_135M } from '../localllm/model';
import type { RunRequestInput } from '../run/request';
import { DEFAULT_TASK_QUEUE, SIMULATED_MODEL } from '../run/wire';

/** Where a CLI run's LLM calls go: the built-in simulator, the real local model, or `OPENAI_BASE_URL`. */
export type LlmSource = 'sim' | 'local' | 'endpoint';
export const LLM_SOURCES: readonly LlmSource[] = ['sim', 'local', 'endpoint'];

/** Without `--llm`: the configured endpoint when there is one (`OPENAI_BASE_URL`, `AZURE_OPENAI_ENDPOINT`), else the simulator. */
export const defaultLlmSource = (env: NodeJS.ProcessEnv = process.env): LlmSource => (endpointFromEnv(env) ? 'endpoint' : 'sim');

/**
 * The task queue a command uses when `--task-queue` is not given: the deployment's (`got`) for a
 * configured endpoint, a queue of their own for the CLI's simulated and local models, so a worker
 * holding one LLM never takes the calls of a run meant for another (nor spends a real endpoint's
 * money on a simulated run).
 */
export const taskQueueFor = (source: LlmSource): string => (source === 'endpoint' ? DEFAULT_TASK_QUEUE : `${DEFAULT_TASK_QUEUE}-${source}`);

/** The model a run names when `--model` does not: what the source serves. */
export function defaultModel(source: LlmSource, env: NodeJS.ProcessEnv = process.env): string {
  if (env.GOT_MODEL) return env.GOT_MODEL;
  if (source === 'local') return basename(env[LOCAL_MODEL_ENV] || SMOLLM2_135M.member).replace(/\.gguf$/i, '');
  return source === 'endpoint' ? 'gpt-4o-mini' : SIMULATED_MODEL;
}

/**
 * What a run on the local model changes by default: it costs nothing, its calls wait in the workflow
 * (not at the server) for one of the model's sequences, so the call timeout measures generation, not
 * queueing, and a slow CPU gets time to answer; its prompts are planned for the window the server
 * serves, whichever model it serves.
 */
export function localLlmSettings(): Partial<NonNullable<RunRequestInput['llm']>> {
  return {
    pricing: { inputPerMTok: 0, outputPerMTok: 0 },
    maxConcurrentCalls: LOCAL_LLM_DEFAULTS.parallel,
    timeoutSeconds: 900,
    contextTokens: LOCAL_LLM_DEFAULTS.contextSize,
  };
}
