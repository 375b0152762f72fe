/**
 * Many runs at once on the deployed shape (`npm run bench:cluster`): `got cluster up --workers 4
 * --simulated --latency 500` on a state folder and ports of its own, then 200 document merges started
 * together by the Python client (examples/python/start_many.py, which knows only the published
 * contract) twice: undisturbed, then the same 200 requests under new workflow ids while one worker
 * is SIGKILLed a few seconds in (and left dead: three workers finish the batch). Every run of the
 * second batch must complete with the answer its request got in the first, compared by the SHA-256
 * of the merged text. Times are the Python client's, from each start call to its result in hand.
 * `--count N`: a smaller batch (a smoke run); `--no-write`: print the section only. The cluster is
 * brought down with --purge at the end, also on failure.
 *
 * `--busy` (decision 90): the workers call a busy provider instead of `--simulated`: a simulator in a
 * process of its own that serves one choice per request and, for the second batch only, refuses 10%
 * of requests with 429 (Retry-After 1-2 s) and 5% with 5xx. Its section is a separate one.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { ClusterInfo } from '../src/cluster/cluster';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { isAlive } from '../src/devserver/process';
import type { SimLlmStats } from '../src/simllm/server';
import { docMergeTask } from '../src/tasks/doc-merge';
import { cpuCheckMs } from './calibration';
import { clusterState, endpointClusterUp, got, simulatedClusterUp } from './cluster';
import { replaceSection, table } from './sections';
import { percentile } from './stats';
import { cpuSeconds, machine, type RemoteLlm, shellFreeEnv, startRemoteLlm } from './support';

const BUSY = process.argv.includes('--busy');
const TITLE = BUSY ? 'Many runs on the deployed shape against a busy provider' : 'Many runs on the deployed shape';
/** The busy provider's refusals in the disturbed batch (`--busy`). */
const BUSY_FAULTS = { rates: { rateLimited: 0.1, serverError: 0.05 }, seed: 9, retryAfterSeconds: [1, 2] };
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKERS = 4;
const LATENCY_MS = 500;
const FULL_COUNT = 200;
/** The worker dies this long after the second batch was launched, once LLM calls are in flight. */
const KILL_AFTER_MS = 5_000;
/** A batch that has not ended by then is stopped and reported as it stands. */
const BATCH_TIMEOUT_MS = 45 * 60_000;
/** Three small generated NDAs, the fault tier's Python documents. */
const DOCUMENTS = docMergeTask.generateProblem(3, 21).documents;

/** One run as start_many.py reports it. */
interface RunLine {
  workflowId: string;
  requestKey: string;
  startedAt: number;
  endedAt: number;
  status: 'completed' | 'noAnswer' | 'failed';
  answerSha256?: string;
  error?: string;
}

interface Batch {
  lines: RunLine[];
  code: number | null;
  stderr: string;
  /** The simulator's requests during the batch. */
  llmRequests: number;
  /** Requests it refused (its injected faults) during the batch. */
  refused: number;
}

interface Kill {
  worker: string;
  pid: number;
  at: number;
  runsDone: number;
  callsInFlight: number;
}

// The user's settings must not leak into the cluster or its clients.
const inherited = shellFreeEnv();

const simStats = async (info: ClusterInfo): Promise<SimLlmStats> =>
  (await (await fetch(`${info.llm.replace(/\/v1$/, '')}/stats`, { signal: AbortSignal.timeout(30_000) })).json()) as SimLlmStats;

/** The batch's lines as they come, and its end. */
function startBatch(o: { python: string; info: ClusterInfo; docs: string[]; count: number; idPrefix: string }) {
  const child: ChildProcess = spawn(
    o.python,
    [
      join(ROOT, 'examples/python/start_many.py'),
      '--address',
      o.info.frontend,
      '--namespace',
      o.info.env.TEMPORAL_NAMESPACE!,
      '--task-queue',
      o.info.env.GOT_TASK_QUEUE!,
      '--codec-endpoint',
      o.info.codec,
      '--count',
      String(o.count),
      '--id-prefix',
      o.idPrefix,
      '--docs',
      ...o.docs,
    ],
    { cwd: ROOT, env: inherited, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: RunLine[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    // The SDK may log on stdout too; the client's report is the JSON lines.
    if (!line.startsWith('{')) return;
    const event = JSON.parse(line) as RunLine & { event: string };
    if (event.event === 'run') lines.push(event);
  });
  const timeout = setTimeout(() => child.kill('SIGKILL'), BATCH_TIMEOUT_MS);
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timeout);
      resolve({ code, stderr });
    }),
  );
  return { lines, done };
}

async function runBatch(o: Parameters<typeof startBatch>[0], during?: (lines: RunLine[]) => Promise<void>): Promise<Batch> {
  const refusedOf = (s: SimLlmStats) => Object.values(s.faults).reduce((a, b) => a + b, 0);
  const before = await simStats(o.info);
  const batch = startBatch(o);
  await during?.(batch.lines);
  const { code, stderr } = await batch.done;
  const after = await simStats(o.info);
  return { lines: batch.lines, code, stderr, llmRequests: after.requests - before.requests, refused: refusedOf(after) - refusedOf(before) };
}

/** SIGKILLs the worker that has worked most so far, once LLM calls are in flight `afterMs` after `from`. */
async function killBusiestWorker(info: ClusterInfo, stateDir: string, lines: RunLine[], from: number): Promise<Kill> {
  await sleep(Math.max(0, from + KILL_AFTER_MS - Date.now()));
  let stats = await simStats(info);
  for (let waited = 0; stats.inFlight === 0; waited += 100) {
    if (waited > 60_000) throw new Error('no LLM call in flight for a minute: nothing for the kill to interrupt');
    await sleep(100);
    stats = await simStats(info);
  }
  const [worker, { pid }] = Object.entries(clusterState(stateDir).processes)
    .filter(([name]) => name.startsWith('worker-'))
    .sort(([, a], [, b]) => cpuSeconds(b.pid) - cpuSeconds(a.pid))[0]!;
  const at = Date.now();
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(50);
  return { worker, pid, at, runsDone: lines.length, callsInFlight: stats.inFlight };
}

/** What the history of a run that did not end as asked shows: its status and last events. */
async function diagnose(info: ClusterInfo, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const connection = await Connection.connect({ address: info.frontend });
  try {
    const client = new Client({ connection, namespace: info.env.TEMPORAL_NAMESPACE, dataConverter: dataConverterFromEnv(info.env) });
    for (const id of ids.slice(0, 10)) {
      const handle = client.workflow.getHandle(id);
      const seen = await Promise.all([handle.describe(), handle.fetchHistory()]).catch((e: unknown) => String(e));
      if (typeof seen === 'string') {
        console.error(`[cluster-runs] ${id}: ${seen}`);
        continue;
      }
      const [description, history] = seen;
      const events = (history.events ?? []).map((e) => String(e.eventType).replace('EVENT_TYPE_', ''));
      console.error(`[cluster-runs] ${id}: ${description.status.name}, ${events.length} events, last: ${events.slice(-8).join(', ')}`);
    }
  } finally {
    await connection.close();
  }
}

/** One batch as a row: wall from the first start call to the last result, run times from each run's own. */
function row(phase: string, batch: Batch, count: number, reference?: Map<string, string>, kill?: Kill) {
  const done = batch.lines.filter((l) => l.status === 'completed');
  const seconds = done.map((l) => l.endedAt - l.startedAt);
  const first = Math.min(...batch.lines.map((l) => l.startedAt));
  const wall = Math.max(...batch.lines.map((l) => l.endedAt)) - first;
  const equal = reference ? done.filter((l) => reference.get(l.requestKey) === l.answerSha256).length : undefined;
  return {
    phase,
    completed: `${done.length}/${count}`,
    answersEqual: equal === undefined ? '(reference)' : `${equal}/${count}`,
    wallS: wall.toFixed(1),
    runsPerMin: ((done.length / wall) * 60).toFixed(1),
    p50RunS: seconds.length ? percentile(seconds, 50).toFixed(1) : '',
    p95RunS: seconds.length ? percentile(seconds, 95).toFixed(1) : '',
    llmRequests: batch.llmRequests,
    ...(BUSY ? { refused: batch.refused } : {}),
    kill: kill
      ? `${kill.worker} at ${(kill.at / 1000 - first).toFixed(1)} s (${kill.runsDone} runs done, ${kill.callsInFlight} calls in flight)`
      : '',
  };
}

async function main(): Promise<void> {
  const countAt = process.argv.indexOf('--count');
  const count = countAt > 0 ? Number(process.argv[countAt + 1]) : FULL_COUNT;
  if (!Number.isInteger(count) || count < 1) throw new Error('--count takes a positive integer');

  const dir = mkdtempSync(join(tmpdir(), 'got-cluster-runs-'));
  const stateDir = join(dir, 'cluster');
  const docs = DOCUMENTS.map((text, i) => {
    const path = join(dir, `nda-${i}.txt`);
    writeFileSync(path, text);
    return path;
  });
  let up = false;
  let provider: RemoteLlm | undefined;
  const down = async () => {
    await provider?.close();
    provider = undefined;
    if (!up) return;
    up = false;
    await got(['cluster', 'down', '--state-dir', stateDir, '--purge']).catch((e: unknown) => console.error(String(e)));
    rmSync(dir, { recursive: true, force: true });
  };
  // Interrupted, the cluster still goes: it is a dozen processes and a database.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void down().then(() => process.exit(130)));

  try {
    const cpuBefore = cpuCheckMs();
    const load = loadavg()[0]!.toFixed(1);
    const python = (await promisify(execFile)('bash', [join(ROOT, 'scripts/python-env.sh')])).stdout.trim();
    up = true;
    // A busy provider: one choice per request, and refusals switched on for the disturbed batch.
    provider = BUSY ? await startRemoteLlm({ latencyMs: LATENCY_MS, seed: 1, maxChoices: 1 }) : undefined;
    const info = provider
      ? await endpointClusterUp(stateDir, WORKERS, provider.baseURL)
      : await simulatedClusterUp(stateDir, WORKERS, LATENCY_MS);
    console.error(`[cluster-runs] cluster up at ${info.frontend}, ${WORKERS} workers; ${count} runs a batch`);
    const tag = Date.now().toString(36);

    const undisturbed = await runBatch({ python, info, docs, count, idPrefix: `many-${tag}-undisturbed` });
    const reference = new Map(undisturbed.lines.filter((l) => l.answerSha256).map((l) => [l.requestKey, l.answerSha256!]));
    console.error(`[cluster-runs] undisturbed: ${reference.size}/${count} completed`);

    if (provider) {
      const set = await fetch(`${provider.baseURL.replace(/\/v1$/, '')}/faults`, { method: 'POST', body: JSON.stringify(BUSY_FAULTS) });
      if (!set.ok) throw new Error(`the busy provider refused its faults: ${await set.text()}`);
    }
    let kill: Kill | undefined;
    const launched = Date.now();
    const killed = await runBatch({ python, info, docs, count, idPrefix: `many-${tag}-killed` }, async (lines) => {
      kill = await killBusiestWorker(info, stateDir, lines, launched);
      console.error(`[cluster-runs] SIGKILLed ${kill.worker} (pid ${kill.pid}) ${((kill.at - launched) / 1000).toFixed(1)} s after launch`);
    });
    const workersLeft = Object.entries(clusterState(stateDir).processes).filter(
      ([name, p]) => name.startsWith('worker-') && isAlive(p.pid),
    ).length;

    // What did not end with its undisturbed answer, by workflow id, with what the history shows.
    const amiss = [
      ...undisturbed.lines.filter((l) => l.status !== 'completed'),
      ...killed.lines.filter((l) => l.status !== 'completed' || reference.get(l.requestKey) !== l.answerSha256),
    ];
    for (const l of amiss) console.error(`[cluster-runs] amiss: ${JSON.stringify(l)}`);
    const unreported = (
      [
        [`many-${tag}-undisturbed`, undisturbed],
        [`many-${tag}-killed`, killed],
      ] as const
    ).flatMap(([prefix, b]) => {
      const seen = new Set(b.lines.map((l) => l.workflowId));
      return Array.from({ length: count }, (_, i) => `${prefix}-${i}`).filter((id) => !seen.has(id));
    });
    if (unreported.length)
      console.error(
        `[cluster-runs] never reported: ${unreported.join(' ')}\n${undisturbed.stderr.slice(-2000)}\n${killed.stderr.slice(-2000)}`,
      );
    await diagnose(info, [...amiss.map((l) => l.workflowId), ...unreported]);

    const rows = [row('undisturbed', undisturbed, count), row('worker SIGKILLed', killed, count, reference, kill)];
    const cpuAfter = cpuCheckMs();
    const distinct = new Set(reference.values()).size;
    const allEqual = rows[1]!.answersEqual === `${count}/${count}` && reference.size === count;
    const flags = [...(BUSY ? ['--busy'] : []), ...(count === FULL_COUNT ? [] : ['--count', String(count)])];
    const busyNote = BUSY
      ? `\nThe workers call a busy provider, not \`--simulated\`: a simulator in a process of its own at ${LATENCY_MS} ms a request that serves one
choice per request (n > 1 refused with a 400, learnt by each worker) and, in the disturbed batch only, refuses 10% of requests
with 429 (Retry-After 1-2 s) and 5% with 500/502/503 (\`refused\`): each refused request is sent again inside its call (decision 90).\n`
      : '';
    const section = `## ${TITLE}
${busyNote}
Measured by \`npm run bench:cluster${flags.length ? ` -- ${flags.join(' ')}` : ''}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}, CPU check ${cpuBefore} ms before and ${cpuAfter} ms after, load average ${load} at the start.
${
  BUSY
    ? `\`got cluster up --workers ${WORKERS}\` with OPENAI_BASE_URL at the busy provider (Temporal on PostgreSQL, MinIO, the codec server
encrypting every payload)`
    : `\`got cluster up --workers ${WORKERS} --simulated --latency ${LATENCY_MS}\` (Temporal on PostgreSQL, MinIO, the codec server
encrypting every payload, the simulated LLM at ${LATENCY_MS} ms a call)`
} on a state folder and ports of its own; ${count} GoT
merges of three small generated NDAs, all started at once by the Python client (\`examples/python/start_many.py\`,
the published contract only, payloads through the codec server), run i with the request's seed i. Then the same
${count} requests under new workflow ids, and a few seconds in the busiest worker (by CPU time) is SIGKILLed and left
dead: ${WORKERS - 1} workers finish the batch. \`answersEqual\`: runs whose merged text has the SHA-256 of its request's undisturbed answer
(${distinct} distinct answers among the ${reference.size} requests); run times are the client's, start call to result in hand
(p50/p95 by nearest rank); \`wallS\` from the first start call to the last result; \`llmRequests\`: the simulator's.
${allEqual ? `Every run of the disturbed batch completed with its undisturbed answer; ${workersLeft} of ${WORKERS} workers were running at the end.` : `Not every run ended with its undisturbed answer: see the bench's output for the workflow ids and their histories; ${workersLeft} of ${WORKERS} workers were running at the end.`}

${table(rows)}
`;
    if (process.argv.includes('--no-write')) console.log(section);
    else replaceSection(TITLE, section);
    if (!allEqual) process.exitCode = 1;
  } finally {
    await down();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
