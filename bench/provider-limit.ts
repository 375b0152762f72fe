/**
 * One provider limit for every worker (`npm run bench:limits`): four worker processes on one task
 * queue merge data rooms against a simulated endpoint that enforces an account's tokens per minute,
 * as a provider does. Three ways the workers hold the quota, each on a fresh endpoint and fresh
 * workers: the shared limit (`GOT_LLM_LIMIT_SCOPE=shared`, one limit workflow per endpoint); each
 * worker's own limiter told the account's quota (what every deployment had before); and each told a
 * quarter (the manual workaround).
 *
 * Everything is measured from the provider's side, the simulator's log of each request (arrival,
 * tokens, refused), so the three modes are judged by what the account was charged, not by what the
 * workers believe. `--quick`: a short smoke run; `--no-write`: print the section only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { providerLimitId } from '../src/limits/shared-limiter';
import type { RunRequestInput } from '../src/run/request';
import type { LimitScope } from '../src/run/wire';
import type { SimLlmStats, SimRequestRecord } from '../src/simllm/server';
import { docMergeTask } from '../src/tasks/doc-merge';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { limitStateQuery } from '../workflows/limits/definitions';
import { cpuCheckMs } from './calibration';
import { replaceSection, table } from './sections';
import { median } from './stats';
import { type BenchEnv, machine, shellFreeEnv, startBenchEnv, startRemoteLlm } from './support';

const TITLE = 'One provider limit for every worker';
const WORKERS = 4;
/** The key every worker sends: with the endpoint's URL it names the shared limit's workflow. */
const API_KEY = 'sim';
/** Large enough that no merge is cut into sections: each run is the paper's GoT merge, 23 calls in 6 steps. */
const CONTEXT_TOKENS = 32_000;
/** What the issue asks of the shared limit. */
export const LIMIT_TARGETS = { sustained: 0.85, refused: 0.02 };

/** The runs and the endpoint's quota of one measurement. */
export interface LimitWorkload {
  runs: number;
  /** Each run merges a data room of this many contracts of about `chars` characters. */
  documents: number;
  chars: number;
  tokensPerMinute: number;
  /** Seconds' worth of the quota that may go at once, on the endpoint and in every worker's limiter. */
  burstSeconds: number;
  latencyMs: number;
  /** Runs not done by then are terminated and count as not completed: a mode that stalls cannot hang the bench. */
  deadlineMs: number;
}

/**
 * About 70,000 tokens a run, and one run alone asks for several times the quota (all of a step's
 * calls at once, ~1 s each), so demand stays above the limit until the last step: 8 runs keep the
 * endpoint saturated for about two minutes.
 */
const FULL: LimitWorkload = {
  runs: 8,
  documents: 3,
  chars: 3_000,
  tokensPerMinute: 240_000,
  burstSeconds: 10,
  latencyMs: 1_000,
  deadlineMs: 15 * 60_000,
};
const QUICK: LimitWorkload = { ...FULL, runs: 3, chars: 2_000, deadlineMs: 5 * 60_000 };

/** How the four workers hold the account's quota. */
interface LimitMode {
  name: string;
  scope: LimitScope;
  /** The share of the account's tokens per minute each worker is told. */
  share: number;
}

const MODES: LimitMode[] = [
  { name: 'shared', scope: 'shared', share: 1 },
  { name: 'worker', scope: 'worker', share: 1 },
  { name: 'worker-quarter', scope: 'worker', share: 1 / WORKERS },
];

/** One mode's runs as the client and the endpoint saw them. */
export interface ModeMeasurement {
  mode: LimitMode;
  wallMs: number;
  /** Each run's start call to its result (or to the deadline), and whether it completed. */
  runs: { ms: number; completed: boolean }[];
  stats: SimLlmStats;
  log: SimRequestRecord[];
  /** Calls waiting in the shared limit, sampled every few seconds (shared mode only): the demand it held back. */
  waiting: { at: number; waiting: number }[];
}

function dataRoomMerge(w: LimitWorkload, seed: number): RunRequestInput {
  const problem = generateDataRoom(w.documents, w.chars, seed);
  return {
    task: 'doc-merge',
    problem,
    goo: docMergeTask.schemes.got!({ size: w.documents, problem, contextTokens: CONTEXT_TOKENS }),
    llm: { contextTokens: CONTEXT_TOKENS },
    labels: { scheme: 'got', size: w.documents, sample: seed },
  };
}

/** The shared limit's queue every few seconds until `done`; a query that fails (the limit not started yet) is skipped. */
async function sampleWaiting(env: BenchEnv, baseURL: string, done: () => boolean): Promise<{ at: number; waiting: number }[]> {
  const handle = env.client.workflow.getHandle(providerLimitId({ baseURL, apiKey: API_KEY }));
  const samples: { at: number; waiting: number }[] = [];
  while (!done()) {
    const state = await handle.query(limitStateQuery).catch(() => undefined);
    if (typeof state?.waiting === 'number') samples.push({ at: Date.now(), waiting: state.waiting });
    await sleep(3_000);
  }
  return samples;
}

async function measureMode(env: BenchEnv, w: LimitWorkload, mode: LimitMode, store: string): Promise<ModeMeasurement> {
  // A fresh endpoint: its buckets start full, and its log holds this mode's requests only.
  const llm = await startRemoteLlm({
    latencyMs: w.latencyMs,
    limits: { tokensPerMinute: w.tokensPerMinute, burstSeconds: w.burstSeconds },
  });
  const taskQueue = `bench-limits-${mode.name}-${Date.now()}`;
  const workerEnv = {
    OPENAI_BASE_URL: llm.baseURL,
    OPENAI_API_KEY: API_KEY,
    GOT_LLM_TPM: String(w.tokensPerMinute * mode.share),
    GOT_LLM_LIMIT_BURST_SECONDS: String(w.burstSeconds),
    GOT_LLM_LIMIT_SCOPE: mode.scope,
    GOT_STORE: store,
  };
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => env.workerProcess(taskQueue, workerEnv)));
  try {
    const requests = Array.from({ length: w.runs }, (_, i) => dataRoomMerge(w, i + 1));
    const started = Date.now();
    const deadline = started + w.deadlineMs;
    let finished = 0;
    const sampling = mode.scope === 'shared' ? sampleWaiting(env, llm.baseURL, () => finished === w.runs) : Promise.resolve([]);
    const runs = await Promise.all(
      requests.map(async (request, i) => {
        const handle = await startRun(env.client, request, { taskQueue, workflowId: `bench-limits-${mode.name}-${i}-${started}` });
        const completed = await Promise.race([
          resultOf(handle).then(
            () => true,
            () => false,
          ),
          sleep(Math.max(0, deadline - Date.now()), undefined, { ref: false }).then(() => undefined),
        ]);
        if (completed === undefined) await handle.terminate('the bench deadline passed').catch(() => undefined);
        const ms = Date.now() - started;
        finished++;
        console.error(
          `  ${mode.name}: run ${i + 1} ${completed ? 'completed' : completed === false ? 'failed' : 'cut at the deadline'} after ${Math.round(ms / 1000)} s`,
        );
        return { ms, completed: completed === true };
      }),
    );
    const wallMs = Date.now() - started;
    return { mode, wallMs, runs, stats: await llm.stats(), log: await llm.requestLog(), waiting: await sampling };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await llm.close();
  }
}

/** The steady window: from 2 × the burst after the first request's arrival to the last request's arrival. */
export function steadyWindow(log: SimRequestRecord[], burstSeconds: number): { from: number; to: number } | undefined {
  if (!log.length) return undefined;
  const from = Math.min(...log.map((r) => r.at)) + 2 * burstSeconds * 1000;
  const to = Math.max(...log.map((r) => r.at));
  return to > from ? { from, to } : undefined;
}

/** Tokens of the answered requests that arrived in the steady window, over the quota for that window. */
export function sustainedShare(log: SimRequestRecord[], w: LimitWorkload): number | undefined {
  const window = steadyWindow(log, w.burstSeconds);
  if (!window) return undefined;
  const tokens = log.filter((r) => r.at >= window.from && r.at <= window.to).reduce((sum, r) => sum + (r.tokens ?? 0), 0);
  return tokens / ((w.tokensPerMinute * (window.to - window.from)) / 60_000);
}

/** Ten-second slices of a mode's requests (stderr): how far the served rate is from the quota, when refusals came, what waited. */
function timeline(m: ModeMeasurement, w: LimitWorkload): string {
  if (!m.log.length) return `${m.mode.name}: no requests`;
  const first = Math.min(...m.log.map((r) => r.at));
  const sliceMs = 10_000;
  const lines: string[] = [];
  for (let from = first; from <= Math.max(...m.log.map((r) => r.at)); from += sliceMs) {
    const slice = m.log.filter((r) => r.at >= from && r.at < from + sliceMs);
    const tokens = slice.reduce((sum, r) => sum + (r.tokens ?? 0), 0);
    const waiting = m.waiting.filter((s) => s.at >= from && s.at < from + sliceMs).map((s) => s.waiting);
    lines.push(
      `  ${String((from - first) / 1000).padStart(4)} s: ${String(Math.round((tokens / ((w.tokensPerMinute * sliceMs) / 60_000)) * 100)).padStart(3)}% of the quota, ` +
        `${slice.filter((r) => r.tokens !== undefined).length} answered, ${slice.filter((r) => r.limited).length} refused` +
        (waiting.length ? `, ${Math.max(...waiting)} waiting in the limit` : ''),
    );
  }
  return [`${m.mode.name} (arrivals by 10 s slice):`, ...lines].join('\n');
}

/** One table row per mode. */
export interface LimitRow {
  mode: string;
  workerTpm: number;
  runsDone: string;
  wallS: number;
  p50RunS: number;
  tokensServed: number;
  sustained: string;
  requests: number;
  refused: string;
  targets: string;
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/** The endpoint's 429s as a share of the requests it received. */
const refusedShare = (m: ModeMeasurement) => (m.stats.requests ? m.stats.rateLimited / m.stats.requests : 0);

export function rowOf(m: ModeMeasurement, w: LimitWorkload): LimitRow {
  const sustained = sustainedShare(m.log, w);
  const refused = refusedShare(m);
  const missed = [
    sustained !== undefined && sustained >= LIMIT_TARGETS.sustained ? undefined : 'sustained',
    refused <= LIMIT_TARGETS.refused ? undefined : 'refused',
  ].filter(Boolean);
  const done = m.runs.filter((r) => r.completed);
  return {
    mode: m.mode.name,
    workerTpm: w.tokensPerMinute * m.mode.share,
    runsDone: `${done.length}/${m.runs.length}`,
    wallS: Math.round(m.wallMs / 100) / 10,
    p50RunS: done.length ? Math.round(median(done.map((r) => r.ms)) / 100) / 10 : Number.NaN,
    tokensServed: m.stats.tokensServed,
    sustained: sustained === undefined ? '-' : percent(sustained),
    requests: m.stats.requests,
    refused: `${m.stats.rateLimited} (${percent(refused)})`,
    targets: missed.length ? `no: ${missed.join(', ')}` : 'met',
  };
}

/** Every mode in turn on one private dev server, each with its own endpoint and workers. */
export async function measureProviderLimit(w: LimitWorkload): Promise<ModeMeasurement[]> {
  // The workers keep large payloads in a store of their own; the bench's client reads results from it too.
  const store = mkdtempSync(join(tmpdir(), 'got-bench-limits-store-'));
  // The env's own simulator stays idle: every mode gets a fresh, limited one.
  const env = await startBenchEnv({ latencyMs: w.latencyMs }, dataConverterFromEnv({ ...shellFreeEnv(), GOT_STORE: store }));
  try {
    const measured: ModeMeasurement[] = [];
    for (const mode of MODES) {
      console.error(`${mode.name}: ${WORKERS} workers, each told ${w.tokensPerMinute * mode.share} tokens a minute (scope ${mode.scope})`);
      const m = await measureMode(env, w, mode, store);
      console.error(timeline(m, w));
      measured.push(m);
    }
    return measured;
  } finally {
    await env.close();
    rmSync(store, { recursive: true, force: true });
  }
}

function section(w: LimitWorkload, measured: ModeMeasurement[], cpu: { before: number; after: number }): string {
  const rows = measured.map((m) => rowOf(m, w));
  const today = measured.find((m) => m.mode.name === 'worker')!;
  const quarter = measured.find((m) => m.mode.name === 'worker-quarter')!;
  const sustained = (m: ModeMeasurement) => {
    const share = sustainedShare(m.log, w);
    return share === undefined ? 'an unmeasured share' : percent(share);
  };
  return `## ${TITLE}

Measured by \`npm run bench:limits\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}, CPU check ${cpu.before} ms before and ${cpu.after} ms after.
${WORKERS} worker processes on one task queue run ${w.runs} GoT merges of generated data rooms (${w.documents} contracts of about
${w.chars.toLocaleString('en-US')} characters each, one seed per run, 23 calls in 6 steps), all started at once by one client, against
the simulator in a process of its own (${w.latencyMs.toLocaleString('en-US')} ms a request) that enforces an account's quota of
${w.tokensPerMinute.toLocaleString('en-US')} tokens a minute with a ${w.burstSeconds} s burst: it charges a request its prompt plus n × its
max tokens at arrival, settles to the real usage at the answer, and refuses what does not fit with a 429. A private dev server;
each mode has a fresh simulator and fresh workers, all with \`GOT_LLM_TPM\` and \`GOT_LLM_LIMIT_BURST_SECONDS=${w.burstSeconds}\`.
\`shared\`: every worker is told the account's quota and holds it with the others through the endpoint's limit workflow
(\`GOT_LLM_LIMIT_SCOPE=shared\`, the default); \`worker\`: each worker's own limiter, told the account's quota (what every
deployment had before); \`worker-quarter\`: each told a quarter, the manual workaround. \`sustained\`: tokens of the answered
requests that arrived in the steady window (from ${2 * w.burstSeconds} s, twice the burst, after the first request's arrival to the last
request's arrival) over the quota for that window; \`refused\`: the simulator's 429s, and their share of the requests it received;
\`p50RunS\`: the median completed run's start to result; \`wallS\`: all of them. Targets (the issue): ≥ ${LIMIT_TARGETS.sustained * 100}% sustained,
≤ ${LIMIT_TARGETS.refused * 100}% refused. With per-worker limiters told the account's quota, the workers sustain ${sustained(today)} of it with
${percent(refusedShare(today))} of calls refused and ${rowOf(today, w).runsDone} runs completed; told a quarter each, ${sustained(quarter)} with ${percent(refusedShare(quarter))} refused.

${table(rows)}
`;
}

async function main() {
  const w = process.argv.includes('--quick') ? QUICK : FULL;
  console.error(
    `Quota ${w.tokensPerMinute} tokens a minute, burst ${w.burstSeconds} s; ${w.runs} merges of ${w.documents} × ${w.chars} characters; ${WORKERS} workers; ${w.latencyMs} ms a request.`,
  );
  const before = cpuCheckMs();
  const measured = await measureProviderLimit(w);
  const after = cpuCheckMs();
  const text = section(w, measured, { before, after });
  if (process.argv.includes('--no-write')) console.log(text);
  else replaceSection(TITLE, text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
