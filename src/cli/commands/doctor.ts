import { type TracesSetting, WorkerConfig } from '../../../worker/config';
import type { LocalCodecStatus } from '../../devserver/local-server';
import { parseOrThrow } from '../../goo/validate';
import { LlmClient, type LlmEndpoint } from '../../llm/client';
import { type ContextWindow, contextWindowOf } from '../../llm/context-windows';
import { endpointFromEnv, NO_ENDPOINT } from '../../llm/endpoint';
import { servedSummary } from '../../localllm/served';
import type { LocalLlmStats, SpeedSample } from '../../localllm/server';
import { jsonAnswer } from '../../tasks/answer-schema';
import { type ConnectionSummary, summarizeConnection, temporalSettingsFromEnv } from '../../temporal/connection';
import { localRetentionSeconds, retentionInWords, SERVER_RETENTION_ENV } from '../../temporal/retention';
import { defaultModel, type LlmSource, localLlmSettings, localModelChoice } from '../llm-source';
import { stateDir } from '../state-dir';

/** `got doctor`'s options. */
export interface DoctorOptions {
  llm: LlmSource;
  /** With `llm: 'local'`: the built-in model to serve. */
  localModel?: string;
  model?: string;
  /** The window a run would be given (`--context-tokens`), instead of the model's known one. */
  contextTokens?: number;
  json: boolean;
}

/** What one probe of an endpoint found, and the settings the engine will use with it. */
/** The payload store runs would use (`GOT_STORE`), and whether a blob goes in and comes back. */
export interface StoreReport {
  description: string;
  /** Payloads of at least this many bytes are stored; absent when the store is off. */
  threshold?: number;
  ok: boolean;
  error?: string;
}

/** Writes a small blob to the configured store and reads it back. */
export async function probeStore(env: NodeJS.ProcessEnv = process.env): Promise<StoreReport> {
  const [{ blobStoreFromEnv }, { storeThresholdFromEnv }, { createHash }] = await Promise.all([
    import('../../store/config'),
    import('../../store/route'),
    import('node:crypto'),
  ]);
  let description = env.GOT_STORE ?? '(default)';
  try {
    const store = blobStoreFromEnv(env);
    if (!store) return { description: 'off: every payload travels inline', ok: true };
    description = store.description;
    const data = new TextEncoder().encode('got doctor: the payload store answers');
    const key = createHash('sha256').update(data).digest('hex');
    await store.put(key, data);
    const back = await store.get(key);
    const ok = Buffer.from(back).equals(Buffer.from(data));
    return { description, threshold: storeThresholdFromEnv(env), ok, ...(ok ? {} : { error: 'read back something else' }) };
  } catch (e) {
    return { description, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

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
  settings?: {
    maxTokensField: string;
    temperature: 'as asked' | 'default only';
    samplesPerRequest: 'n' | 'one';
    /**
     * Structured output (`--structured-output auto`): the probe's JSON Schema was honoured (`json`),
     * ignored (a text answer), or refused, so runs ask such a model for text.
     */
    structuredOutput: 'json' | 'json without bounds' | 'ignored' | 'refused';
  };
  sample?: string;
  /** The context window schemes plan their prompts for, and where that number comes from. */
  contextWindow: ContextWindow;
  /** The window the server says it serves the model with (the local model, or an endpoint whose model list says so). */
  reportedContextTokens?: number;
  /** Where runs keep their large payloads. */
  store?: StoreReport;
  /** The codec server the local dev server's Web UI reads stored documents through. */
  codec?: CodecReport;
  /** Whether a worker started with this environment serves metrics and sends traces. */
  telemetry?: TelemetryReport;
  /** How runs and workers reach Temporal with this environment. */
  temporal?: TemporalReport;
  /** With `--llm local`: which model was served, and how fast it is here. */
  localModel?: LocalModelReport;
}

/** The local model `got doctor --llm local` served: which one, its windows, and its speed measured just now. */
export interface LocalModelReport {
  /** The built-in model's name; absent for a GGUF file of the user's. */
  name?: string;
  /** The upstream model, or the file's path. */
  title: string;
  /** Tokens the model was trained to take (built-in models). */
  windowTokens?: number;
  /** Tokens per request the server gives it, which runs plan for. */
  servedTokens: number;
  loadMs: number;
  speed: SpeedSample;
  /** What the server did for the doctor's requests: prompt tokens read and taken from the prefix cache, predictions (decisions 95, 96). */
  served?: LocalLlmStats;
}

/** The local model line: name, windows, load time, speed. */
function formatLocalModel(r: DoctorReport): string[] {
  const m = r.localModel;
  if (!m) return [];
  const window = m.windowTokens === undefined ? '' : `trained for ${m.windowTokens.toLocaleString('en-US')} tokens, `;
  return [
    `  local model   ${m.name ? `${m.name} (${m.title})` : m.title} · ${window}served with ${m.servedTokens.toLocaleString('en-US')} per request · loaded in ${(m.loadMs / 1000).toFixed(1)} s`,
    `  local speed   ${m.speed.tokensPerSecond} tokens/s generating, ${m.speed.promptTokensPerSecond} tokens/s reading a prompt (${m.speed.completionTokens} tokens after a ${m.speed.promptTokens}-token prompt, measured just now)`,
    ...(m.served ? [`  local served  ${servedSummary(m.served)}`] : []),
  ];
}

/** The Temporal connection settings, or why they are refused. */
export type TemporalReport = ({ ok: true; localRetentionSeconds?: number } & ConnectionSummary) | { ok: false; error: string };

/** How this environment connects to Temporal (decision 55); settings only, nothing is dialled. */
export function temporalOf(env: NodeJS.ProcessEnv = process.env): TemporalReport {
  try {
    const summary = summarizeConnection(temporalSettingsFromEnv(env));
    // The local server's retention is ours to set (decision 84); a configured server's is its owner's.
    return { ok: true, ...summary, ...(summary.address ? {} : { localRetentionSeconds: localRetentionSeconds(env) }) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The Temporal line: where, which namespace, TLS and API key (whether one is set, never the key). */
function formatTemporal(r: DoctorReport): string[] {
  const t = r.temporal;
  if (!t) return [];
  if (!t.ok) return [`  temporal      NOT USABLE: ${t.error}`];
  const where =
    t.address ??
    `the local dev server (started on first use; keeps finished runs ${retentionInWords(t.localRetentionSeconds!)}, ${SERVER_RETENTION_ENV})`;
  const tlsParts = [
    t.serverCA ? 'own CA' : 'system CAs',
    ...(t.clientCertificate ? ['client certificate'] : []),
    ...(t.serverName ? [`server name ${t.serverName}`] : []),
  ];
  return [
    `  temporal      ${where} · namespace ${t.namespace} · TLS ${t.tls ? `on (${tlsParts.join(', ')})` : 'off'} · API key ${t.apiKey ? 'set' : 'not set'}${t.profile ? ` · profile ${t.profile}` : ''}`,
  ];
}

/** Metrics and traces as this environment sets them (decisions 53, 54). */
export interface TelemetryReport {
  /** `GOT_METRICS_ADDRESS`: where a worker serves `/metrics`; absent: off. */
  metrics?: string;
  /** `GOT_OTEL_TRACES`; absent: off. */
  traces?: TracesSetting;
  /** Where OTLP traces go. */
  tracesEndpoint?: string;
}

/** What `GOT_METRICS_ADDRESS` and `GOT_OTEL_TRACES` turn on here; the OTLP endpoint as OpenTelemetry's exporter reads it. */
export function telemetryOf(env: NodeJS.ProcessEnv = process.env): TelemetryReport {
  const { GOT_METRICS_ADDRESS, GOT_OTEL_TRACES } = parseOrThrow(
    WorkerConfig.pick({ GOT_METRICS_ADDRESS: true, GOT_OTEL_TRACES: true }),
    env,
    'environment',
  );
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base ?? 'http://localhost:4318'}/v1/traces`;
  return {
    ...(GOT_METRICS_ADDRESS ? { metrics: GOT_METRICS_ADDRESS } : {}),
    ...(GOT_OTEL_TRACES ? { traces: GOT_OTEL_TRACES } : {}),
    ...(GOT_OTEL_TRACES === 'otlp' ? { tracesEndpoint: endpoint } : {}),
  };
}

/** The metrics and traces lines. */
function formatTelemetry(r: DoctorReport): string[] {
  if (!r.telemetry) return [];
  const { metrics, traces, tracesEndpoint } = r.telemetry;
  return [
    `  metrics       ${metrics ? `a worker serves them at http://${metrics}/metrics` : 'off (GOT_METRICS_ADDRESS)'}`,
    `  traces        ${traces === 'otlp' ? `OTLP/HTTP to ${tracesEndpoint}` : traces === 'console' ? 'to stderr' : 'off (GOT_OTEL_TRACES)'}`,
  ];
}

/** Where OpenAI-compatible servers put a model's window in their model list: vLLM, OpenRouter and Together, Groq, LM Studio. */
const WINDOW_FIELDS = ['max_model_len', 'context_length', 'context_window', 'max_context_length'] as const;

/**
 * The window an endpoint reports for a model in `GET /models`, if it reports one; undefined when
 * it does not, or does not answer within 5 seconds (the model list is optional in the API).
 */
export async function reportedContextTokens(endpoint: LlmEndpoint, model: string): Promise<number | undefined> {
  if (endpoint.azure) return undefined;
  try {
    const response = await fetch(`${endpoint.baseURL.replace(/\/+$/, '')}/models`, {
      headers: { authorization: `Bearer ${endpoint.apiKey}` },
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) return undefined;
    const list = (await response.json()) as { data?: Record<string, unknown>[] };
    const models = Array.isArray(list.data) ? list.data : [];
    const entry = models.find((m) => m.id === model) ?? (models.length === 1 ? models[0] : undefined);
    const value = WINDOW_FIELDS.map((f) => entry?.[f]).find((v) => Number.isInteger(v) && (v as number) > 0);
    return value as number | undefined;
  } catch {
    return undefined;
  }
}

/** A real task's prompt, small, with its answer's schema: what the engine will ask (the simulator answers only task prompts). */
async function probe() {
  const { sortingTask } = await import('../../tasks/sorting');
  const problem = { list: [3, 1, 2] };
  const request = { prompt: 'sort', params: {}, thoughts: [sortingTask.rootState(problem)], problem };
  return { messages: sortingTask.buildPrompt(request), responseFormat: sortingTask.answerSchema!(request)! };
}

/**
 * Asks the endpoint one tiny question (two samples, a non-default temperature, a token limit) the
 * way the engine asks, and reports what it supports, how fast it answers, and what the engine adapts.
 */
export async function doctor(
  endpoint: LlmEndpoint,
  source: LlmSource,
  model: string,
  window: { contextTokens?: number; reported?: number } = {},
): Promise<DoctorReport> {
  const client = new LlmClient(endpoint);
  const reported = window.reported ?? (await reportedContextTokens(endpoint, model));
  const base = {
    source,
    baseURL: endpoint.baseURL,
    model,
    answeredBy: model,
    contextWindow: contextWindowOf({ model, ...(window.contextTokens !== undefined ? { contextTokens: window.contextTokens } : {}) }),
    ...(reported !== undefined ? { reportedContextTokens: reported } : {}),
  };
  const started = performance.now();
  try {
    const asked = await probe();
    const completion = await client.complete({ model, ...asked, samples: 2, temperature: 0.7, maxTokens: 24, seed: 1 });
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
        structuredOutput: quirks.textAnswersOnly
          ? 'refused'
          : completion.texts.every((t) => t.trim().startsWith('{') && jsonAnswer(t, ['output']))
            ? quirks.unboundedLists
              ? 'json without bounds'
              : 'json'
            : 'ignored',
      },
      sample: completion.texts[0]?.slice(0, 80),
    };
  } catch (e) {
    return { ...base, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** What `--structured-output auto` does with this endpoint (decision 65). */
const STRUCTURED_OUTPUT_LINE = {
  json: "answers in the task's JSON Schema (response_format honoured)",
  'json without bounds': "answers in the task's JSON Schema, asked without the lists' length bounds, which it refused",
  ignored: 'response_format accepted but ignored: answers come, and are read, as text',
  refused: 'response_format refused: runs ask this model for text answers',
} as const;

/** The context window line: what schemes plan for, why, and what the server reports. */
function formatWindow(r: DoctorReport): string {
  const { tokens, source, family } = r.contextWindow;
  const why =
    source === 'settings'
      ? 'as set'
      : source === 'known model'
        ? `known for ${family}`
        : 'model not known: a conservative default; set --context-tokens';
  const reported =
    r.reportedContextTokens === undefined
      ? ''
      : r.reportedContextTokens === tokens
        ? ' · the server reports the same'
        : ` · the server reports ${r.reportedContextTokens.toLocaleString('en-US')}: run with --context-tokens ${r.reportedContextTokens} to plan for it`;
  return `  context       ${tokens.toLocaleString('en-US')} tokens (${why})${reported}`;
}

/** The local dev server's codec server, or none for a server the environment names (TEMPORAL_ADDRESS, a profile). */
export type CodecReport = LocalCodecStatus | { state: 'configured server' };

/** What the local server's record says of its codec server; starts nothing. */
export async function codecOf(env: NodeJS.ProcessEnv = process.env): Promise<CodecReport> {
  let configured = false;
  try {
    configured = temporalSettingsFromEnv(env).address !== undefined;
  } catch {
    // The temporal line reports the refused settings.
  }
  if (configured) return { state: 'configured server' };
  const { localCodecStatus } = await import('../../devserver/local-server');
  return localCodecStatus({ stateDir: stateDir(), env });
}

/** The codec line: where the Web UI's codec server is, whether it answers and serves this shell's store and keys. */
function formatCodec(r: DoctorReport): string[] {
  const c = r.codec;
  if (!c) return [];
  const line = (text: string) => [`  codec         ${text}`];
  switch (c.state) {
    case 'configured server':
      return line('none started for a configured server: run got codec-server and point its Web UI at it');
    case 'not started':
      return line(`starts with the local dev server, at ${c.url}, so its Web UI shows stored documents`);
    case 'server without codec':
      return line(
        `none: the local dev server (pid ${c.serverPid}) was started without one, so its Web UI shows stored documents as references; npm run server:stop, and the next command starts both`,
      );
    case 'recorded':
      if (!c.answers) return line(`${c.url} NOT ANSWERING: the next command restarts it (log ${c.logFile})`);
      return line(
        `${c.url} · the Web UI reads stored documents through it · answers${c.current ? '' : " · serves another store or keys than this shell's: the next command restarts it"}`,
      );
  }
}

/** The payload store line: which store, from which size, and whether it answers. */
function formatStore(r: DoctorReport): string[] {
  if (!r.store) return [];
  const { description, threshold, ok, error } = r.store;
  const from = threshold === undefined ? '' : ` · payloads from ${threshold.toLocaleString('en-US')} bytes`;
  return [`  store         ${description}${from} · ${ok ? 'answers' : `NOT USABLE: ${error}`}`];
}

/** The report as a person reads it. */
export function formatDoctor(r: DoctorReport): string {
  if (!r.ok)
    return [
      `endpoint ${r.baseURL} (${r.source}), model ${r.model}\n  NOT USABLE    ${r.error}`,
      ...formatLocalModel(r),
      formatWindow(r),
      ...formatStore(r),
      ...formatCodec(r),
      ...formatTelemetry(r),
      ...formatTemporal(r),
    ].join('\n');
  const yes = (b: boolean | undefined) => (b ? 'yes' : 'no');
  return [
    `endpoint ${r.baseURL} (${r.source}), model ${r.model}${r.answeredBy !== r.model ? ` (answered as ${r.answeredBy})` : ''}`,
    `  answered      ${r.latencyMs} ms · ${r.completionTokens} completion tokens · ${r.tokensPerSecond} tokens/s · "${r.sample}"`,
    `  n > 1         ${yes(r.honoursN)}${r.honoursN ? '' : ' (samples are asked one request each)'}`,
    `  usage         ${r.usageReported ? 'reported' : 'missing: counted here with a tokenizer, marked estimated'}`,
    `  reasoning     ${r.reasoning ? 'yes: kept on the thought, never parsed as the answer' : 'none seen'}`,
    `  the engine uses ${r.settings!.maxTokensField} · temperature ${r.settings!.temperature} · ${r.settings!.samplesPerRequest === 'n' ? 'n samples per request' : 'one sample per request'}`,
    `  structured    ${STRUCTURED_OUTPUT_LINE[r.settings!.structuredOutput]}`,
    ...formatLocalModel(r),
    formatWindow(r),
    ...formatStore(r),
    ...formatCodec(r),
    ...formatTelemetry(r),
    ...formatTemporal(r),
  ].join('\n');
}

/** `got doctor`: brings up the chosen source (the simulator or the local model when asked), probes it, prints the report. */
export async function doctorCommand(o: DoctorOptions, log: (line: string) => void): Promise<DoctorReport> {
  const model = o.model ?? defaultModel(o.llm, process.env, o.localModel);
  let close: () => Promise<void> = async () => {};
  let measureLocal: (() => Promise<LocalModelReport>) | undefined;
  let endpoint: LlmEndpoint;
  const window: { contextTokens?: number; reported?: number } = o.contextTokens !== undefined ? { contextTokens: o.contextTokens } : {};
  if (o.llm === 'sim') {
    const { startSimulatedLlm } = await import('../../simllm/server');
    const sim = await startSimulatedLlm({});
    close = () => sim.close();
    endpoint = { baseURL: sim.baseURL, apiKey: 'simulated', supportsN: true };
  } else if (o.llm === 'local') {
    const { startLocalModel } = await import('../../localllm/start');
    const local = await startLocalModel(log, localModelChoice(o.localModel));
    close = () => local.llm.close();
    endpoint = local.endpoint;
    // A run on the local model plans for the window the server is started with (localLlmSettings).
    window.reported = local.llm.contextSize;
    window.contextTokens ??= localLlmSettings(o.localModel).contextTokens;
    const { choice } = local;
    measureLocal = async () => ({
      ...(choice.kind === 'built-in'
        ? { name: choice.model.name, title: choice.model.title, windowTokens: choice.model.windowTokens }
        : { title: choice.path }),
      servedTokens: local.llm.contextSize,
      loadMs: local.llm.loadMs,
      speed: await local.llm.measureSpeed(),
      served: local.llm.stats(),
    });
  } else {
    const configured = endpointFromEnv();
    if (!configured) throw new Error(`--llm endpoint: ${NO_ENDPOINT}`);
    endpoint = configured;
  }
  try {
    const report = {
      ...(await doctor(endpoint, o.llm, model, window)),
      // After the probe, so the model is warm: the speed is the one a run's calls will see.
      ...(measureLocal ? { localModel: await measureLocal() } : {}),
      store: await probeStore(),
      codec: await codecOf(),
      telemetry: telemetryOf(),
      temporal: temporalOf(),
    };
    console.log(o.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
    return report;
  } finally {
    await close();
  }
}
