import { ValidationError } from '../goo/validate';
import { endpointFromEnv } from '../llm/endpoint';
import { LOCAL_LLM_DEFAULTS } from '../localllm/defaults';
import {
  builtInModel,
  LOCAL_MODEL_ENV,
  LOCAL_MODEL_NAME_ENV,
  LOCAL_MODEL_NAMES,
  type LocalModelChoice,
  modelIdOf,
  servedContextSize,
  UnknownLocalModelError,
} from '../localllm/models';
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
 * money on a simulated run). Each local model has its own (`got-local-qwen2.5-coder-1.5b`): two
 * commands serving different models at once would otherwise answer each other's calls (decision 80).
 */
export function taskQueueFor(source: LlmSource, localModel?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (source === 'endpoint') return DEFAULT_TASK_QUEUE;
  if (source === 'sim') return `${DEFAULT_TASK_QUEUE}-sim`;
  return `${DEFAULT_TASK_QUEUE}-local-${localModelLabel(localModelChoice(localModel, env))}`;
}

/**
 * The LLM source (and built-in local model) whose default task queue a queue name starts with
 * (`taskQueueFor`'s inverse, resident workers' settings-keyed queues included): what serves a run
 * found waiting on it, or a fork of it. A local model file's queue names its id, not the file: no model then.
 */
export function llmChoiceOfQueue(queue: string): { llm: LlmSource; localModel?: string } {
  const local = `${DEFAULT_TASK_QUEUE}-local-`;
  if (queue.startsWith(local)) {
    const name = LOCAL_MODEL_NAMES.filter((n) => queue === local + n || queue.startsWith(`${local + n}-`)).sort(
      (a, b) => b.length - a.length,
    )[0];
    return { llm: 'local', ...(name ? { localModel: name } : {}) };
  }
  if (queue === `${DEFAULT_TASK_QUEUE}-sim` || queue.startsWith(`${DEFAULT_TASK_QUEUE}-sim-`)) return { llm: 'sim' };
  return { llm: 'endpoint' };
}

/** The `--llm` flags that serve a queue (`llmChoiceOfQueue`), with what they cannot say in words. */
export function llmFlagsOfQueue(queue: string): string {
  const { llm, localModel } = llmChoiceOfQueue(queue);
  if (llm === 'local')
    return localModel
      ? `--llm local --local-model ${localModel}`
      : `--llm local (with ${LOCAL_MODEL_ENV} naming the model file it was started with)`;
  return llm === 'sim' ? '--llm sim' : '--llm endpoint (with the OPENAI_BASE_URL it was started with)';
}

/** A local model's short name: the built-in model's name, or the id a model file is served as. */
export const localModelLabel = (choice: LocalModelChoice): string =>
  choice.kind === 'built-in' ? choice.model.name : modelIdOf(choice.path);

/**
 * The local model a command serves: the GGUF file `GOT_LOCAL_MODEL` names, else the built-in model
 * `--local-model` (or `GOT_LOCAL_MODEL_NAME`) names, else the default one. Naming both is bad input:
 * which one was meant cannot be guessed.
 */
export function localModelChoice(name: string | undefined, env: NodeJS.ProcessEnv = process.env): LocalModelChoice {
  const file = env[LOCAL_MODEL_ENV];
  if (file && name)
    throw new ValidationError('options', [
      {
        path: '--local-model',
        message: `${LOCAL_MODEL_ENV}=${file} names a model file and --local-model (or ${LOCAL_MODEL_NAME_ENV}) the built-in model "${name}": name one of them`,
      },
    ]);
  if (file) return { kind: 'file', path: file };
  try {
    return { kind: 'built-in', model: builtInModel(name) };
  } catch (e) {
    if (e instanceof UnknownLocalModelError) throw new ValidationError('options', [{ path: '--local-model', message: e.message }]);
    throw e;
  }
}

/** The model a run names when `--model` does not: what the source serves (for the local source, the model `localModel` chooses). */
export function defaultModel(source: LlmSource, env: NodeJS.ProcessEnv = process.env, localModel?: string): string {
  if (env.GOT_MODEL) return env.GOT_MODEL;
  if (source === 'local') {
    const choice = localModelChoice(localModel, env);
    return modelIdOf(choice.kind === 'file' ? choice.path : choice.model.file);
  }
  return source === 'endpoint' ? 'gpt-4o-mini' : SIMULATED_MODEL;
}

/**
 * What a run on the local model changes by default: it costs nothing, its calls wait in the workflow
 * (not at the server) for one of the model's sequences, so the call timeout measures generation, not
 * queueing, and a slow CPU gets time to answer; its prompts (doc-merge's sections among them) are
 * planned for the window the server serves the chosen model with, not the model's trained one.
 */
export function localLlmSettings(localModel?: string, env: NodeJS.ProcessEnv = process.env): Partial<NonNullable<RunRequestInput['llm']>> {
  return {
    pricing: { inputPerMTok: 0, outputPerMTok: 0 },
    maxConcurrentCalls: LOCAL_LLM_DEFAULTS.parallel,
    timeoutSeconds: 900,
    // A CPU shared with other work can fall to a few tokens a second: a call's timeout is sized for
    // one, so a long answer that is still streaming is never cut (a stalled stream still times out).
    minTokensPerSecond: 1,
    contextTokens: servedContextSize(localModelChoice(localModel, env)),
  };
}
