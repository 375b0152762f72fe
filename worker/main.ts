import { dataConverterFromEnv } from '../src/codec/data-converter';
import { DEV_SERVER_DEFAULTS } from '../src/devserver/dev-server';
import { endpointFromEnv, NO_ENDPOINT } from '../src/llm/endpoint';
import { ensureSearchAttributes } from '../src/run/register-search-attributes';
import { SEARCH_ATTRIBUTES } from '../src/run/search-attributes';
import { connectNative, TemporalConnectError } from '../src/temporal/connect';
import { connectionOptionsOf, temporalSettingsFromEnv } from '../src/temporal/connection';
import { rateLimitsOf, workerConfigFromEnv } from './config';
import { createGotWorker } from './create';
import { installQuietRuntime, logLevelFromEnv } from './logging';

/** `npm run worker`: a long-lived worker for a real deployment (configured from the environment). */
async function main(): Promise<void> {
  const config = workerConfigFromEnv();
  // TEMPORAL_ADDRESS, its TLS and API key (Temporal Cloud, an mTLS cluster), or the local server's port.
  const temporal = temporalSettingsFromEnv();
  const server = connectionOptionsOf(temporal, temporal.address ?? `${DEV_SERVER_DEFAULTS.ip}:${DEV_SERVER_DEFAULTS.port}`);
  const { namespace } = temporal;
  // INFO keeps a long-lived worker's lifecycle lines; GOT_LOG_LEVEL changes it.
  try {
    installQuietRuntime(process.env.GOT_LOG_LEVEL ? logLevelFromEnv() : 'INFO', {
      ...(config.GOT_METRICS_ADDRESS ? { metricsAddress: config.GOT_METRICS_ADDRESS } : {}),
    });
  } catch (error) {
    // The one way installing fails in practice: the metrics port is taken or not this machine's.
    throw new Error(`GOT_METRICS_ADDRESS=${config.GOT_METRICS_ADDRESS}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // OpenTelemetry's SDK is loaded only for a worker that traces.
  const tracing = config.GOT_OTEL_TRACES
    ? (await import('../src/telemetry/traces')).startTracing(config.GOT_OTEL_TRACES, 'got-worker')
    : undefined;
  const llm = endpointFromEnv(process.env);
  if (!llm) throw new Error(`${NO_ENDPOINT} (a standalone worker needs one; the CLI's "demo" and "run" start a simulated LLM for you)`);
  // Runs record typed search attributes; a namespace without them would stall every run, so refuse to
  // start instead. Checked while the worker is created: it polls only once both are done.
  const attributesReady = ensureSearchAttributes(server, namespace).catch((error: unknown) => {
    if (error instanceof TemporalConnectError) throw error; // unreachable server: registering is not the problem
    throw new Error(
      `the search attributes ${Object.keys(SEARCH_ATTRIBUTES).join(', ')} are not registered on namespace "${namespace}" and could not be registered (${error instanceof Error ? error.message : String(error)}); ` +
        `register them with: ${Object.entries(SEARCH_ATTRIBUTES)
          .map(([name, type]) => `temporal operator search-attribute create --name ${name} --type ${type}`)
          .join(' && ')}`,
    );
  });
  attributesReady.catch(() => undefined); // awaited below; its failure is the one reported
  const connection = await connectNative(server).catch(async (error: unknown) => {
    await attributesReady;
    throw error;
  });
  const creating = createGotWorker({
    connection,
    namespace,
    taskQueue: config.GOT_TASK_QUEUE,
    llm,
    maxConcurrentActivities: config.GOT_MAX_CONCURRENT_ACTIVITIES,
    ...rateLimitsOf(config),
    ...(config.GOT_TASK_QUEUE_RPS ? { taskQueueActivitiesPerSecond: config.GOT_TASK_QUEUE_RPS } : {}),
    ...(config.GOT_CACHE_DIR ? { cacheDir: config.GOT_CACHE_DIR } : {}),
    // Payloads are encrypted when GOT_CODEC_KEYS is set (docker-compose sets it).
    dataConverter: dataConverterFromEnv(),
    ...(tracing ? { tracing } : {}),
  });
  creating.catch(() => undefined); // awaited below, after the search attributes
  // A failure here ends the process (main's catch), so the connection is not closed on this path.
  await attributesReady;
  const worker = await creating;
  try {
    const telemetry = [
      ...(config.GOT_METRICS_ADDRESS ? [`metrics at http://${config.GOT_METRICS_ADDRESS}/metrics`] : []),
      ...(config.GOT_OTEL_TRACES ? [`traces to ${config.GOT_OTEL_TRACES}`] : []),
    ];
    console.log(
      `worker polling task queue "${config.GOT_TASK_QUEUE}" on ${server.address}${server.tls ? ' (TLS)' : ''}, LLM at ${llm.baseURL}${telemetry.map((t) => `, ${t}`).join('')}`,
    );
    await worker.run();
  } finally {
    await connection.close();
    // The last spans (the runs that just ended) leave before the process does.
    await tracing?.shutdown();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
