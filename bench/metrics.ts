import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { freePort } from '../src/devserver/process';
import type { RunRequestInput } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { sortingTask } from '../src/tasks/sorting';
import { METRIC } from '../src/telemetry/metrics';
import { median } from './stats';
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
  const cases: [string, () => RunRequestInput][] = [
    ['sorting got 64', () => sortingRun(64)],
    ['doc-merge got 4', () => docMergeRun(4)],
  ];
  const rows: MetricsOverheadRow[] = [];
  try {
    for (const [label, request] of cases) {
      const times: [number[], number[]] = [[], []];
      for (let i = 0; i <= repeats; i++) {
        // Each setting goes first every other time: whatever the first run of a pair pays is shared.
        for (const k of i % 2 ? [1, 0] : [0, 1]) {
          const started = Date.now();
          await resultOf(await startRun(env.client, { ...request(), seed: i }, { taskQueue: queues[k]! }));
          if (i > 0) times[k]!.push(Date.now() - started);
        }
      }
      const [offMs, onMs] = times.map(median) as [number, number];
      rows.push({ run: label, offMs, onMs, ratio: Math.round((onMs / offMs) * 100) / 100 });
    }
    // The worker with metrics counted every run it ran: what was measured is metrics at work.
    const text = await (await fetch(`http://${metricsAddress}/metrics`)).text();
    const finished = [...text.matchAll(new RegExp(`^${METRIC.runsFinished.name}\\{.*\\} (\\d+)$`, 'gm'))].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    if (finished !== cases.length * (repeats + 1))
      throw new Error(`the metrics counted ${finished} runs, not ${cases.length * (repeats + 1)}`);
  } finally {
    for (const w of workers) await w.stop();
    await env.close();
  }
  return rows;
}

function sortingRun(size: number): RunRequestInput {
  const problem = sortingTask.generateProblem(size, 1);
  return { task: 'sorting', problem, goo: sortingTask.schemes.got!({ size, problem }), labels: { scheme: 'got', size } };
}

function docMergeRun(count: number): RunRequestInput {
  const problem = docMergeTask.generateProblem(count, 1);
  return { task: 'doc-merge', problem, goo: docMergeTask.schemes.got!({ size: count, problem }), labels: { scheme: 'got', size: count } };
}
