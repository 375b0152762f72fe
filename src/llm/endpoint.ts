import type { LlmEndpoint } from './client';

/** The environment variables that name an LLM endpoint (the `openai` package's own names where it has them). */
export const ENDPOINT_ENV = {
  baseURL: 'OPENAI_BASE_URL',
  apiKey: 'OPENAI_API_KEY',
  supportsN: 'GOT_LLM_SUPPORTS_N',
  stream: 'GOT_LLM_STREAM',
  azureEndpoint: 'AZURE_OPENAI_ENDPOINT',
  azureApiKey: 'AZURE_OPENAI_API_KEY',
  azureApiVersion: 'OPENAI_API_VERSION',
  azureDeployment: 'AZURE_OPENAI_DEPLOYMENT',
} as const;

/** An Azure OpenAI API version that serves chat completions with `n`, `seed` and `max_completion_tokens`. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/**
 * The endpoint the environment configures, or undefined: Azure OpenAI when `AZURE_OPENAI_ENDPOINT`
 * is set (resource URL, `api-key` header, `api-version`, the deployment from
 * `AZURE_OPENAI_DEPLOYMENT` or else the run's model name), any OpenAI-compatible one with
 * `OPENAI_BASE_URL`.
 */
export function endpointFromEnv(env: NodeJS.ProcessEnv = process.env): LlmEndpoint | undefined {
  const supportsN = env[ENDPOINT_ENV.supportsN] !== 'false';
  // Streaming is opt-in for configured endpoints: most serve it, but not every compatible server does.
  const stream = env[ENDPOINT_ENV.stream] === 'true' ? { stream: true } : {};
  const azure = env[ENDPOINT_ENV.azureEndpoint];
  if (azure) {
    const deployment = env[ENDPOINT_ENV.azureDeployment];
    return {
      baseURL: azure,
      apiKey: env[ENDPOINT_ENV.azureApiKey] ?? env[ENDPOINT_ENV.apiKey] ?? 'unset',
      supportsN,
      ...stream,
      azure: { apiVersion: env[ENDPOINT_ENV.azureApiVersion] ?? DEFAULT_AZURE_API_VERSION, ...(deployment ? { deployment } : {}) },
    };
  }
  const baseURL = env[ENDPOINT_ENV.baseURL];
  return baseURL ? { baseURL, apiKey: env[ENDPOINT_ENV.apiKey] ?? 'unset', supportsN, ...stream } : undefined;
}

/** What to tell a user whose command needs an endpoint and whose environment names none. */
export const NO_ENDPOINT = `no LLM endpoint is configured: set ${ENDPOINT_ENV.baseURL} (and ${ENDPOINT_ENV.apiKey}), or ${ENDPOINT_ENV.azureEndpoint} (and ${ENDPOINT_ENV.azureApiKey}) for Azure OpenAI`;
