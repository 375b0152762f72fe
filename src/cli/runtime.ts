import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { rateLimitsFromEnv, tracesFromEnv } from '../../worker/config';
import { dataConverterFromEnv } from '../codec/data-converter';
import type { LlmEndpoint } from '../llm/client';
import { endpointFromEnv, NO_ENDPOINT } from '../llm/endpoint';
import { buildId, type ResidentWorker, residentOn } from '../resident/registry';
import { describeChoice, residentTaskQueue, settingsKey, type WorkerChoice } from '../resident/settings';
import { ensureSearchAttributes } from '../run/register-search-attributes';
import type { SimulatedLlmThread } from '../simllm/thread';
import { connectClient, connectNative } from '../temporal/connect';
import { defaultLlmSource, type LlmSource, localModelChoice, localModelLabel, taskQueueFor } from './llm-source';
import { cliServer } from './server';
import { stateDir } from './state-dir';

export interface RuntimeOptions {
  /** Start a worker inside this process (default), or rely on workers running elsewhere. */
  inProcessWorker: boolean;
  taskQueue: string;
  /** Latency of the simulated LLM, when it is used. */
  simulatedLatencyMs: number;
  /** Where LLM calls go (default: OPENAI_BASE_URL when set, else the simulator). */
  llm?: LlmSource;
  /** With `llm: 'local'`: the built-in model to serve (default SmolLM2-135M). */
  localModel?: string;
  /** The in-process worker runs the workflow code on this thread (a command of one run; `GotWorkerOptions`). */
  workflowsInThisThread?: boolean;
  /**
   * Hand the runs to the resident worker with this command's settings when one runs (`got worker
   * start`) instead of starting a worker here: no worker to start or stop, no model to load.
   */
  preferResident?: boolean;
  log: (line: string) => void;
}

export interface CliRuntime {
  client: Client;
  namespace: string;
  uiUrl: string;
  /** Where this command's runs go: its own queue, or the resident worker's. */
  taskQueue: string;
  /** Whether the server is the local dev server (not one the environment names). */
  localServer: boolean;
  /** The worker started here, while it runs (it ends on `close`, or when it fails). */
  worker?: Promise<void>;
  close(): Promise<void>;
}

export { stateDir };

/** What the run and eval commands say about where their runs execute (their shared execution options). */
export interface ExecutionChoices {
  worker: boolean;
  taskQueue?: string;
  latency: number;
  llm?: LlmSource;
  localModel?: string;
  /** Start a resident worker for these settings when none runs, and hand the runs to it (`--keep-worker`). */
  keepWorker?: boolean;
}

/** `startRuntime` for a command's execution options. */
export async function startRuntimeFor(
  o: ExecutionChoices,
  log: (line: string) => void,
  more: Pick<RuntimeOptions, 'workflowsInThisThread'> = {},
): Promise<CliRuntime> {
  // `--task-queue` and `--no-worker` say where the runs go; a keepWorker default (env, config file) yields to them.
  if (o.keepWorker && (!o.worker || o.taskQueue !== undefined))
    log(
      `--keep-worker not used: ${o.worker ? '--task-queue names where the runs go' : '--no-worker leaves the runs to workers elsewhere'}.`,
    );
  else if (o.keepWorker) {
    // Imported here: the worker command's module imports this one.
    const { startResidentWorker } = await import('./commands/worker');
    await startResidentWorker(
      { llm: o.llm ?? defaultLlmSource(), latency: o.latency, foreground: false, ...(o.localModel ? { localModel: o.localModel } : {}) },
      log,
    );
  }
  return startRuntime({
    ...more,
    inProcessWorker: o.worker,
    // `--task-queue` names where the runs go: they go there, not to a resident worker.
    preferResident: o.taskQueue === undefined,
    taskQueue: taskQueueOf(o),
    simulatedLatencyMs: o.latency,
    llm: o.llm ?? defaultLlmSource(),
    ...(o.localModel !== undefined ? { localModel: o.localModel } : {}),
    log,
  });
}

/** The task queue a command's runs go to: `--task-queue`, else the LLM source's own. */
export const taskQueueOf = (o: Pick<ExecutionChoices, 'taskQueue' | 'llm' | 'localModel'>): string =>
  o.taskQueue ?? taskQueueFor(o.llm ?? defaultLlmSource(), o.localModel);

/**
 * Ctrl-C (or SIGTERM) on a command that waits for runs: it stops waiting, at once. The runs go on in
 * Temporal (durable; another worker or a rerun finishes them), which the message says.
 */
export function exitOnInterrupt(what: string, log: (line: string) => void): void {
  const registered = interrupted !== undefined;
  interrupted = { what, log };
  if (registered) return;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted?.log(`\ninterrupted: ${interrupted.what}`);
      process.exit(130);
    });
  }
}

/** What the one interrupt handler of this process says (the latest command's words). */
let interrupted: { what: string; log: (line: string) => void } | undefined;

/**
 * Brings up what a CLI run needs. Each part has a real-deployment path (TEMPORAL_ADDRESS with its
 * TLS and API key settings, OPENAI_BASE_URL, external workers) and an embedded default (a local dev server kept running in
 * the background, the simulated LLM and a worker in this process).
 */
export async function startRuntime(o: RuntimeOptions): Promise<CliRuntime> {
  const source = o.llm ?? defaultLlmSource();
  const configured = endpointFromEnv();
  const resident = o.inProcessWorker && o.preferResident ? residentFor(o, source) : undefined;
  // Without a worker here the workers polling the task queue make the calls, with their own LLM.
  const callsHere = o.inProcessWorker && !resident;
  if (callsHere && source === 'endpoint' && !configured) throw new Error(`--llm endpoint: ${NO_ENDPOINT}`);
  // The simulated LLM starts first, in a thread of its own: it comes up while the server is checked.
  const simulatedStart = callsHere && source === 'sim' ? startSimulatedLlm(o.simulatedLatencyMs) : undefined;
  simulatedStart?.catch(() => undefined); // its failure is thrown where it is awaited, below
  const cleanups: (() => Promise<void>)[] = [];
  if (simulatedStart) cleanups.push(async () => (await simulatedStart).close());
  try {
    // GOT_OTEL_TRACES: a run's trace starts here, where it is started, and goes on in the workers (decision 54).
    const traces = tracesFromEnv();
    const tracing = traces ? (await import('../telemetry/traces')).startTracing(traces, 'got') : undefined;
    if (tracing) cleanups.push(() => tracing.shutdown());
    const server = await cliServer(o.log);
    const { namespace } = server;
    // Runs record typed search attributes; make sure the namespace has them (a no-op when it does).
    // Checked while the worker starts (a round trip of ~0.1 s), and awaited before any run is started.
    // A resident worker with these settings (the same server and namespace) made sure of them when it started.
    const attributes = server.configured && !resident ? ensureSearchAttributes(server.connection, namespace) : undefined;
    attributes?.catch(() => undefined); // its failure is thrown where it is awaited, below

    // GOT_CODEC_KEYS set: payloads are encrypted before they reach the server (client and worker alike).
    const dataConverter = dataConverterFromEnv();
    const connection = await connectClient(server.connection);
    cleanups.push(() => connection.close());

    const simulated = await simulatedStart;
    let endpoint: LlmEndpoint | undefined;
    if (resident)
      o.log(
        `Runs go to the resident worker (pid ${resident.pid}) on task queue ${resident.taskQueue}: ${describeChoice(resident.choice)}.`,
      );
    else if (!callsHere) o.log(`Runs go to task queue ${o.taskQueue}: the workers polling it make their LLM calls.`);
    else if (simulated) {
      endpoint = { baseURL: simulated.baseURL, apiKey: 'simulated', supportsN: true, cacheNamespace: 'simulated-llm' };
      o.log(
        `Using the simulated LLM at ${simulated.baseURL} (${o.simulatedLatencyMs} ms per call)${configured ? '' : '; set OPENAI_BASE_URL for a real endpoint, or --llm local for the local model'}.`,
      );
    } else if (source === 'local') {
      const { startLocalModel } = await import('../localllm/start');
      const { llm: local, endpoint: served } = await startLocalModel(o.log, localModelChoice(o.localModel));
      const { servedSummary } = await import('../localllm/served');
      cleanups.push(() => {
        // What the prefix cache saved this command's runs (decision 95), until the run summary carries cached tokens.
        o.log(`Local model: ${servedSummary(local.stats())}`);
        return local.close();
      });
      endpoint = served;
      o.log(
        `Using the local model ${local.model} at ${local.baseURL} (CPU; ${local.contextSize} tokens of context, ${local.sequences} sequences, up to ${local.batch} samples of a prompt decoded together).`,
      );
    } else endpoint = configured!;

    let running: Promise<void> | undefined;
    if (endpoint) {
      // Loaded only here: a command whose runs go to other workers never loads the SDK's worker.
      const [{ createGotWorker }, { installQuietRuntime }] = await Promise.all([
        import('../../worker/create'),
        import('../../worker/logging'),
      ]);
      // The first install wins (an embedding process may have installed its own logger already).
      installQuietRuntime(undefined, { ownSignals: true });
      const native = await connectNative(server.connection);
      const worker: Worker = await createGotWorker({
        connection: native,
        namespace,
        taskQueue: o.taskQueue,
        llm: endpoint,
        // A quota set for the endpoint holds here too; the simulator and the local model have none.
        ...(simulated || source === 'local' ? {} : rateLimitsFromEnv()),
        ...(dataConverter ? { dataConverter } : {}),
        ...(tracing ? { tracing } : {}),
        ...(o.workflowsInThisThread ? { workflowsInThisThread: true } : {}),
      });
      const run = worker.run();
      running = run;
      cleanups.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await run;
        await native.close();
      });
    }

    await attributes;
    return {
      client: new Client({
        connection,
        namespace,
        ...(dataConverter ? { dataConverter } : {}),
        ...(tracing ? { interceptors: { workflow: [tracing.clientInterceptor] } } : {}),
      }),
      namespace,
      uiUrl: server.uiUrl,
      taskQueue: resident?.taskQueue ?? o.taskQueue,
      localServer: !server.configured,
      ...(running ? { worker: running } : {}),
      async close() {
        for (const cleanup of cleanups.reverse()) await cleanup();
      },
    };
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    throw error;
  }
}

/** The simulated LLM in its own thread (that module is imported alone, so the thread loads nothing else of the CLI). */
async function startSimulatedLlm(latencyMs: number): Promise<SimulatedLlmThread> {
  const [{ startSimulatedLlmThread }, { inventShareFromEnv }] = await Promise.all([import('../simllm/thread'), import('../simllm/server')]);
  // GOT_SIM_INVENT: merges with sentences of no source, to see a review flag them.
  return startSimulatedLlmThread({ latencyMs, inventShare: inventShareFromEnv() });
}

/** What the worker of these options is made of, as a resident worker records it. */
export function workerChoiceOf(source: LlmSource, o: Pick<RuntimeOptions, 'localModel' | 'simulatedLatencyMs'>): WorkerChoice {
  if (source === 'local') return { llm: 'local', localModel: localModelLabel(localModelChoice(o.localModel)) };
  return source === 'sim' ? { llm: 'sim', latencyMs: o.simulatedLatencyMs } : { llm: 'endpoint' };
}

/** The resident worker with this command's settings and build, when one runs. */
function residentFor(o: RuntimeOptions, source: LlmSource): ResidentWorker | undefined {
  // The queue is named by the settings' key: a worker registered on it serves these settings.
  const resident = residentOn(stateDir(), residentTaskQueue(o.taskQueue, settingsKey(workerChoiceOf(source, o))));
  if (!resident) return undefined;
  if (resident.build === buildId()) return resident;
  o.log(
    `The resident worker (pid ${resident.pid}) on ${resident.taskQueue} runs another build: this command starts its own worker (\`got worker start\` restarts it on this build).`,
  );
  return undefined;
}
