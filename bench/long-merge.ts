import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import proto, { type temporal as Temporal } from '@temporalio/proto';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import type { RunRequestInput } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { comparePaired } from './paired-runs';
import { startBenchEnv } from './support';

const { temporal } = proto;

/** One long merge to measure: its label and the request that runs it. */
export interface LongMergeCase {
  label: string;
  request: () => RunRequestInput;
}

/** A GoT merge of `count` generated contracts of about `chars` characters, for a model with `contextTokens` of context. */
function dataRoomMerge(count: number, chars: number, contextTokens: number): RunRequestInput {
  const problem = generateDataRoom(count, chars, 1);
  return {
    task: 'doc-merge',
    problem,
    goo: docMergeTask.schemes.got!({ size: count, problem, contextTokens }),
    llm: { contextTokens },
    labels: { scheme: 'got', size: count },
  };
}

/** The cases: eight documents of 95,000 characters (a 128K window holds them), and a data room of thirty of 200,000 in a 32K window. */
export const LONG_MERGES: LongMergeCase[] = [
  { label: '8 × 95,000 chars, 128K window', request: () => dataRoomMerge(8, 95_000, 128_000) },
  { label: '30 × 200,000 chars, 32K window', request: () => dataRoomMerge(30, 200_000, 32_000) },
];

export interface LongMergeRow {
  merge: string;
  operations: number;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  events: number;
  historyKB: number;
  largestEventKB: number;
  storedMB: number;
  wallS: number;
  score: string;
}

/**
 * The history as the server keeps it, in small pages: a page of a long history can exceed the
 * client's 4 MB message limit, which `fetchHistory` (one page per server default) runs into.
 */
async function rawEvents(client: Client, workflowId: string): Promise<Temporal.api.history.v1.IHistoryEvent[]> {
  const events: Temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      maximumPageSize: 50,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** Kilobytes of history per event type, largest first (for finding what fills a history). */
function bytesByEventType(events: Temporal.api.history.v1.IHistoryEvent[], sizes: number[]): string {
  const by = new Map<string, { count: number; bytes: number }>();
  events.forEach((e, i) => {
    const type = String(temporal.api.enums.v1.EventType[e.eventType ?? 0]);
    const row = by.get(type) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += sizes[i]!;
    by.set(type, row);
  });
  return [...by.entries()]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .map(([type, r]) => `${type}: ${r.count} events, ${Math.round(r.bytes / 1024)} KB`)
    .join('\n');
}

/** Every file's bytes under a folder. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
}

/**
 * Long document merges end to end on the simulator, with the payload store (a folder, the default
 * threshold): what the history keeps (read by a client without the store, as the server holds it),
 * what went to the store, and what the run cost.
 */
export async function measureLongMerges(cases: LongMergeCase[]): Promise<LongMergeRow[]> {
  const rows: LongMergeRow[] = [];
  for (const c of cases) {
    const store = mkdtempSync(join(tmpdir(), 'got-bench-store-'));
    const env = await startBenchEnv({ latencyMs: 0 }, dataConverterFromEnv({ ...process.env, GOT_STORE: store }));
    const { taskQueue, stop } = await env.worker();
    try {
      const started = Date.now();
      const handle = await startRun(env.client, c.request(), { taskQueue });
      const result = await resultOf(handle);
      const wallS = (Date.now() - started) / 1000;
      const events = await rawEvents(env.client, handle.workflowId);
      const sizes = events.map((e) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length);
      if (process.env.GOT_BENCH_EVENT_SIZES) {
        console.error(bytesByEventType(events, sizes));
        for (const e of events.filter((e) => e.workflowTaskFailedEventAttributes).slice(0, 3)) {
          const f = e.workflowTaskFailedEventAttributes!;
          console.error(`workflow task failed: ${f.cause} ${f.failure?.message?.slice(0, 300)}`);
        }
      }
      const { totals } = result.grs;
      rows.push({
        merge: c.label,
        operations: result.grs.operations.length,
        llmCalls: totals.llmCalls,
        promptTokens: totals.promptTokens,
        completionTokens: totals.completionTokens,
        events: sizes.length,
        historyKB: Math.round(sizes.reduce((a, b) => a + b, 0) / 1024),
        largestEventKB: Math.round(Math.max(...sizes) / 1024),
        storedMB: Math.round(bytesUnder(store) / 1e5) / 10,
        wallS: Math.round(wallS * 10) / 10,
        score: result.best?.score?.toFixed(2) ?? '-',
      });
    } finally {
      await stop();
      await env.close();
    }
  }
  return rows;
}

export interface StoreOverheadRow {
  run: string;
  inlineMs: number;
  storedMs: number;
  ratio: number;
}

/**
 * What the payload store costs a paper-sized run: the same run with every payload inline
 * (`GOT_STORE=off`) and with the default store, alternating, each on its own private server and
 * worker, the simulator at 50 ms per call; median wall time of `repeats` runs after a warm-up.
 */
export async function measureStoreOverhead(repeats: number): Promise<StoreOverheadRow[]> {
  const store = mkdtempSync(join(tmpdir(), 'got-bench-store-'));
  const inline = await startBenchEnv({ latencyMs: 50 }, dataConverterFromEnv({ GOT_STORE: 'off' }));
  const stored = await startBenchEnv({ latencyMs: 50 }, dataConverterFromEnv({ GOT_STORE: store }));
  const workers = [await inline.worker(), await stored.worker()];
  try {
    const rows = await comparePaired(
      [
        { client: inline.client, taskQueue: workers[0]!.taskQueue },
        { client: stored.client, taskQueue: workers[1]!.taskQueue },
      ],
      repeats,
    );
    return rows.map(({ run, firstMs, secondMs, ratio }) => ({ run, inlineMs: firstMs, storedMs: secondMs, ratio }));
  } finally {
    for (const w of workers) await w.stop();
    await inline.close();
    await stored.close();
  }
}
