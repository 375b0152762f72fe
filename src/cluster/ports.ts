/**
 * Every port a local cluster uses, derived from one base: the one place that says which port is
 * whose. The default base keeps a cluster clear of Temporal's usual ports (7233, 8233, 8080...), so
 * it runs beside the CLI's dev server and a docker-compose deployment; tests pass a base of their own.
 */

/** The base of a cluster started without `--port-base`: its frontend listens here. */
export const DEFAULT_PORT_BASE = 17233;

/** Worker metrics ports start at this offset from the base, one per worker. */
const WORKER_METRICS_OFFSET = 20;

/** The most workers a cluster runs: their metrics ports must stay inside the cluster's range. */
export const MAX_WORKERS = 30;

/** How many ports from the base a cluster may use. */
export const PORT_SPAN = WORKER_METRICS_OFFSET + MAX_WORKERS;

/** The ports of one cluster. */
export interface ClusterPorts {
  /** Temporal's gRPC frontend: what clients and workers connect to. */
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  /** Temporal's internal worker service (system workflows). */
  temporalWorker: number;
  frontendMembership: number;
  historyMembership: number;
  matchingMembership: number;
  temporalWorkerMembership: number;
  postgres: number;
  webUi: number;
  codec: number;
  minio: number;
  simLlm: number;
  /** Where each GoT worker serves its metrics (`GOT_METRICS_ADDRESS`), by worker index. */
  workerMetrics: (index: number) => number;
}

/** The ports of the cluster whose frontend listens on `base`. */
export function clusterPorts(base: number): ClusterPorts {
  assertPortBase(base);
  return {
    frontend: base,
    history: base + 1,
    matching: base + 2,
    temporalWorker: base + 3,
    frontendHttp: base + 4,
    frontendMembership: base + 5,
    historyMembership: base + 6,
    matchingMembership: base + 7,
    temporalWorkerMembership: base + 8,
    postgres: base + 10,
    webUi: base + 11,
    codec: base + 12,
    minio: base + 13,
    simLlm: base + 14,
    workerMetrics: (index) => {
      if (!Number.isInteger(index) || index < 0 || index >= MAX_WORKERS)
        throw new RangeError(`worker index ${index} is outside 0..${MAX_WORKERS - 1}`);
      return base + WORKER_METRICS_OFFSET + index;
    },
  };
}

/** Every fixed port of a cluster with what it is for, plus the metrics ports of `workers` workers (for messages and checks). */
export function portsInUse(ports: ClusterPorts, workers: number): { port: number; what: string }[] {
  const fixed: [keyof Omit<ClusterPorts, 'workerMetrics'>, string][] = [
    ['frontend', 'Temporal frontend (gRPC)'],
    ['frontendHttp', 'Temporal frontend (HTTP)'],
    ['history', 'Temporal history service'],
    ['matching', 'Temporal matching service'],
    ['temporalWorker', "Temporal's worker service"],
    ['frontendMembership', 'Temporal membership (frontend)'],
    ['historyMembership', 'Temporal membership (history)'],
    ['matchingMembership', 'Temporal membership (matching)'],
    ['temporalWorkerMembership', 'Temporal membership (worker service)'],
    ['postgres', 'PostgreSQL'],
    ['webUi', 'Web UI'],
    ['codec', 'codec server'],
    ['minio', 'MinIO'],
    ['simLlm', 'simulated LLM'],
  ];
  return [
    ...fixed.map(([key, what]) => ({ port: ports[key], what })),
    ...Array.from({ length: workers }, (_, k) => ({ port: ports.workerMetrics(k), what: `worker ${k} metrics` })),
  ];
}

/** Temporal records each service's membership port in a PostgreSQL `smallint` column: above this the server cannot start. */
const MAX_MEMBERSHIP_PORT = 32_767;
/** The highest membership port's offset from the base (see {@link clusterPorts}). */
const LAST_MEMBERSHIP_OFFSET = 8;

/** The highest port base a cluster accepts (32759). */
export const MAX_PORT_BASE = MAX_MEMBERSHIP_PORT - LAST_MEMBERSHIP_OFFSET;

function assertPortBase(base: number): void {
  if (!Number.isInteger(base) || base < 1024 || base > MAX_PORT_BASE)
    throw new RangeError(
      `the port base must be a whole number from 1024 to ${MAX_PORT_BASE}: Temporal keeps its membership ports ` +
        `(base+5 to base+${LAST_MEMBERSHIP_OFFSET}) in a PostgreSQL smallint, which ends at ${MAX_MEMBERSHIP_PORT}`,
    );
}
