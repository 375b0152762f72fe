import proto from '@temporalio/proto';

const { temporal } = proto;

import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput } from '../src/run/request';
import { TASKS } from '../src/tasks/registry';
import { startBenchEnv } from './support';

/**
 * History footprint of the largest paper configurations: events, history bytes and result bytes
 * per run, against Temporal's limits (2 MB per payload, 50K events / 50 MB per history).
 */
const CONFIGS: [task: string, scheme: string, size: number][] = [
  ['sorting', 'got', 128],
  ['sorting', 'tot2', 128],
  ['set-intersection', 'got', 128],
  ['set-intersection', 'tot', 128],
  ['keyword-counting', 'gotx', 16],
  ['keyword-counting', 'tot', 16],
  ['doc-merge', 'tot', 4],
  ['doc-merge', 'got', 4],
];

export interface FootprintRow {
  config: string;
  llmCalls: number;
  thoughts: number;
  events: number;
  historyKB: number;
  resultKB: number;
  largestEventKB: number;
}

export async function measureFootprint(): Promise<FootprintRow[]> {
  const env = await startBenchEnv();
  const { taskQueue, stop } = await env.worker();
  const rows: FootprintRow[] = [];
  try {
    for (const [task, scheme, size] of CONFIGS) {
      const t = TASKS[task]!;
      const problem = t.generateProblem(size, 1);
      const request: RunRequestInput = {
        task,
        problem: problem as RunRequestInput['problem'],
        goo: t.schemes[scheme]!({ size, problem }),
        labels: { scheme, size },
      };
      const handle = await startRun(env.client, request, { taskQueue });
      const result = await resultOf(handle);
      const history = await handle.fetchHistory();
      const events = history.events ?? [];
      // Protobuf bytes: what the server stores and what its limits count.
      const eventSizes = events.map((e) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length);
      rows.push({
        config: `${task} ${scheme} ${size}`,
        llmCalls: result.grs.totals.llmCalls,
        thoughts: result.grs.thoughts.length,
        events: events.length,
        historyKB: Math.round(eventSizes.reduce((a, b) => a + b, 0) / 1024),
        resultKB: Math.round(JSON.stringify(result).length / 1024),
        largestEventKB: Math.round(Math.max(...eventSizes) / 1024),
      });
    }
  } finally {
    await stop();
    await env.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await measureFootprint();
  console.table(rows);
}
