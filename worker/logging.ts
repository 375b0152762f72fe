import { DefaultLogger, type LogLevel, Runtime } from '@temporalio/worker';
import { histogramBuckets } from '../src/telemetry/metrics';

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** The log level from `GOT_LOG_LEVEL` (TRACE, DEBUG, INFO, WARN, ERROR); WARN when unset. */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const wanted = (env.GOT_LOG_LEVEL ?? 'WARN').toUpperCase();
  if (!(LEVELS as readonly string[]).includes(wanted))
    throw new Error(`GOT_LOG_LEVEL must be one of ${LEVELS.join(', ')}, not "${env.GOT_LOG_LEVEL}"`);
  return wanted as LogLevel;
}

/**
 * Installs the SDK's runtime so that everything it logs, the native core's lines included, goes to
 * stderr through one logger at the user's level: the core would otherwise print to stdout, where a
 * command's `--json` output must stand alone. With `metricsAddress`, the runtime serves Prometheus
 * metrics there (`/metrics`): the SDK's own and ours (decision 53). The first install in a process wins.
 */
export function installQuietRuntime(level: LogLevel = logLevelFromEnv(), o: { ownSignals?: boolean; metricsAddress?: string } = {}): void {
  if (Runtime._instance) return;
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: {
      logging: { filter: { core: level, other: level }, forward: {} },
      // The SDK's metric names stay as Temporal documents them; ours carry their own `_total` and units.
      ...(o.metricsAddress
        ? { metrics: { prometheus: { bindAddress: o.metricsAddress, histogramBucketOverrides: histogramBuckets() } } }
        : {}),
    },
    // A command that handles Ctrl-C itself keeps the SDK from turning it into a worker shutdown it would then wait on.
    ...(o.ownSignals ? { shutdownSignals: [] } : {}),
  });
}
