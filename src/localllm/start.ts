import type { LlmEndpoint } from '../llm/client';
import { type LocalModelChoice, servedContextSize } from './models';
import type { LocalLlm } from './server';

/** The local model served for a CLI command, and the endpoint the engine uses to reach it. */
export interface StartedLocalModel {
  llm: LocalLlm;
  endpoint: LlmEndpoint;
  /** Which model it is. */
  choice: LocalModelChoice;
}

/**
 * Serves the chosen local model (a built-in one fetched and cached the first time) on a free port
 * in this process, and names it as the engine's endpoint: streamed, so each call heartbeats on the
 * tokens it receives and only a stall times out (decision 29). node-llama-cpp is loaded here only,
 * as it is heavy.
 */
export async function startLocalModel(log: (line: string) => void, choice: LocalModelChoice): Promise<StartedLocalModel> {
  const { ensureLocalModel, LOCAL_MODEL_ENV } = await import('./model');
  const modelPath =
    choice.kind === 'file'
      ? await ensureLocalModel({ log, env: { ...process.env, [LOCAL_MODEL_ENV]: choice.path } })
      : await ensureLocalModel({ log, model: choice.model, env: { ...process.env, [LOCAL_MODEL_ENV]: '' } });
  const { startLocalLlm } = await import('./server');
  const llm = await startLocalLlm({ modelPath, port: 0, contextSize: servedContextSize(choice), log });
  return {
    llm,
    choice,
    endpoint: { baseURL: llm.baseURL, apiKey: 'local', supportsN: true, stream: true, cacheNamespace: `local-${llm.model}` },
  };
}
