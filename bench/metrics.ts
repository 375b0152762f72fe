import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { freePort } from '../src/devserver/process';
import { METRIC } from '../src/telemetry/metrics';
import { comparePaired, pairedRunCount } from './paired-runs';
import { startBenchEnv } from './support';

/** One run's median wall time with metrics off and on. */
export interface MetricsOverheadRow {
  run: string;
  offMs: number;
  onMs: number;
  ratio: number;
}

/**
 * What metrics cost a paper-sized run: the same run on a worker process without metrics and on one
 * with `GOT_METRICS_ADDRESS` (scraped once at the end), alternating which goes first, against
 * one private dev server and the simulator at 50 ms per call; median wall time of `repeats` runs after a warm-up.
 */
export async function measureMetricsOverhead(repeats: number): Promise<MetricsOverheadRow[]> {
  const store = mkdtempSync(join(tmpdir(), 'got-bench-store-'));
  const env = await startBenchEnv({ latencyMs: 50 }, dataConverterFromEnv({ GOT_STORE: store }));
  const metricsAddress = `127.0.0.1:${await freePort()}`;
  const queues = ['bench-metrics-off', 'bench-metrics-on'];
  const workers = [
    await env.workerProcess(queues[0]!, { GOT_STORE: store }),
    await env.workerProcess(queues[1]!, { GOT_STORE: store, GOT_METRICS_ADDRESS: metricsAddress }),
  ];
  try {
    const rows = await comparePaired(
      [
        { client: env.client, taskQueue: queues[0]! },
        { client: env.client, taskQueue: queues[1]! },
      ],
      repeats,
    );
    // The worker with metrics counted every run it ran: what was measured is metrics at work.
    const text = await (await fetch(`http://${metricsAddress}/metrics`)).text();
    const finished = [...text.matchAll(new RegExp(`^${METRIC.runsFinished.name}\\{.*\\} (\\d+)$`, 'gm'))].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    if (finished !== pairedRunCount(repeats)) throw new Error(`the metrics counted ${finished} runs, not ${pairedRunCount(repeats)}`);
    return rows.map(({ run, firstMs, secondMs, ratio }) => ({ run, offMs: firstMs, onMs: secondMs, ratio }));
  } finally {
    for (const w of workers) await w.stop();
    await env.close();
  }
}
