import type { LlmEndpoint } from '../llm/client';
import type { LocalLlm } from './server';

/** The local model served for a CLI command, and the endpoint the engine uses to reach it. */
export interface StartedLocalModel {
  llm: LocalLlm;
  endpoint: LlmEndpoint;
}

/**
 * Serves the local model (fetched and cached the first time) on a free port in this process, and
 * names it as the engine's endpoint: streamed, so each call heartbeats on the tokens it receives
 * and only a stall times out (decision 29). node-llama-cpp is loaded here only, as it is heavy.
 */
export async function startLocalModel(log: (line: string) => void): Promise<StartedLocalModel> {
  const { ensureLocalModel } = await import('./model');
  const modelPath = await ensureLocalModel({ log });
  const { startLocalLlm } = await import('./server');
  const llm = await startLocalLlm({ modelPath, port: 0, log });
  return { llm, endpoint: { baseURL: llm.baseURL, apiKey: 'local', supportsN: true, stream: true, cacheNamespace: `local-${llm.model}` } };
}
