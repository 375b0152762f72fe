import { LlmClient, type LlmEndpoint } from '../../llm/client';
import { endpointFromEnv, NO_ENDPOINT } from '../../llm/endpoint';
import { defaultModel, type LlmSource } from '../llm-source';

/** `got doctor`'s options. */
export interface DoctorOptions {
  llm: LlmSource;
  model?: string;
  json: boolean;
}

/** What one probe of an endpoint found, and the settings the engine will use with it. */
export interface DoctorReport {
  source: LlmSource;
  baseURL: string;
  model: string;
  /** The model the endpoint says answered. */
  answeredBy: string;
  ok: boolean;
  error?: string;
  latencyMs?: number;
  completionTokens?: number;
  tokensPerSecond?: number;
  /** Whether two samples came in one request (`n = 2` honoured). */
  honoursN?: boolean;
  usageReported?: boolean;
  reasoning?: boolean;
  /** What the client learnt from the endpoint's refusals, and will use from now on. */
  settings?: { maxTokensField: string; temperature: 'as asked' | 'default only'; samplesPerRequest: 'n' | 'one' };
  sample?: string;
}

/** A real task's prompt, small: what the engine will ask (the simulator answers only task prompts). */
async function probe() {
  const { sortingTask } = await import('../../tasks/sorting');
  const problem = { list: [3, 1, 2] };
  return sortingTask.buildPrompt({ prompt: 'sort', params: {}, thoughts: [sortingTask.rootState(problem)], problem });
}

/**
 * Asks the endpoint one tiny question (two samples, a non-default temperature, a token limit) the
 * way the engine asks, and reports what it supports, how fast it answers, and what the engine adapts.
 */
export async function doctor(endpoint: LlmEndpoint, source: LlmSource, model: string): Promise<DoctorReport> {
  const client = new LlmClient(endpoint);
  const base = { source, baseURL: endpoint.baseURL, model, answeredBy: model };
  const started = performance.now();
  try {
    const completion = await client.complete({ model, messages: await probe(), samples: 2, temperature: 0.7, maxTokens: 24, seed: 1 });
    const latencyMs = Math.round(performance.now() - started);
    const quirks = client.adaptationsOf(model);
    return {
      ...base,
      answeredBy: completion.model,
      ok: true,
      latencyMs,
      completionTokens: completion.usage.completionTokens,
      tokensPerSecond: Math.round((completion.usage.completionTokens / Math.max(1, latencyMs)) * 1000 * 10) / 10,
      honoursN: completion.requests === 1,
      usageReported: !completion.usage.estimated,
      reasoning: completion.reasoning.some(Boolean),
      settings: {
        maxTokensField: quirks.maxTokensField,
        temperature: quirks.defaultTemperatureOnly ? 'default only' : 'as asked',
        samplesPerRequest: quirks.oneSamplePerRequest || !endpoint.supportsN ? 'one' : 'n',
      },
      sample: completion.texts[0]?.slice(0, 80),
    };
  } catch (e) {
    return { ...base, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The report as a person reads it. */
export function formatDoctor(r: DoctorReport): string {
  if (!r.ok) return `endpoint ${r.baseURL} (${r.source}), model ${r.model}\n  NOT USABLE    ${r.error}`;
  const yes = (b: boolean | undefined) => (b ? 'yes' : 'no');
  return [
    `endpoint ${r.baseURL} (${r.source}), model ${r.model}${r.answeredBy !== r.model ? ` (answered as ${r.answeredBy})` : ''}`,
    `  answered      ${r.latencyMs} ms · ${r.completionTokens} completion tokens · ${r.tokensPerSecond} tokens/s · "${r.sample}"`,
    `  n > 1         ${yes(r.honoursN)}${r.honoursN ? '' : ' (samples are asked one request each)'}`,
    `  usage         ${r.usageReported ? 'reported' : 'missing: counted here with a tokenizer, marked estimated'}`,
    `  reasoning     ${r.reasoning ? 'yes: kept on the thought, never parsed as the answer' : 'none seen'}`,
    `  the engine uses ${r.settings!.maxTokensField} · temperature ${r.settings!.temperature} · ${r.settings!.samplesPerRequest === 'n' ? 'n samples per request' : 'one sample per request'}`,
  ].join('\n');
}

/** `got doctor`: brings up the chosen source (the simulator or the local model when asked), probes it, prints the report. */
export async function doctorCommand(o: DoctorOptions, log: (line: string) => void): Promise<DoctorReport> {
  const model = o.model ?? defaultModel(o.llm);
  let close: () => Promise<void> = async () => {};
  let endpoint: LlmEndpoint;
  if (o.llm === 'sim') {
    const { startSimulatedLlm } = await import('../../simllm/server');
    const sim = await startSimulatedLlm({});
    close = () => sim.close();
    endpoint = { baseURL: sim.baseURL, apiKey: 'simulated', supportsN: true };
  } else if (o.llm === 'local') {
    const { startLocalModel } = await import('../../localllm/start');
    const local = await startLocalModel(log);
    close = () => local.llm.close();
    endpoint = local.endpoint;
  } else {
    const configured = endpointFromEnv();
    if (!configured) throw new Error(`--llm endpoint: ${NO_ENDPOINT}`);
    endpoint = configured;
  }
  try {
    const report = await doctor(endpoint, o.llm, model);
    console.log(o.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
    return report;
  } finally {
    await close();
  }
}
