/**
 * The data rooms we state as limits, merged from the CLI on the deployed shape (`npm run bench:rooms`):
 * 200 contracts of 200,000 characters (`generateDataRoom`), and 50 of about a million characters with
 * 999 numbered clauses each (`generateClauseRoom`), written as .txt files and merged with
 * `got run --task doc-merge --docs <folder> --scheme got --no-worker` against
 * `got cluster up --workers 2 --simulated --latency 50` on a state folder and ports of its own (its own
 * Temporal server on PostgreSQL, MinIO as the payload store, two worker processes). Each room is
 * merged twice on the same problem: undisturbed, then disturbed: a third of the way in (by the
 * simulator's requests) the busiest worker is SIGKILLed while LLM calls are in flight and
 * `got cluster up` starts its replacement; two thirds of the way in the Temporal server is stopped
 * (SIGTERM) while calls are in flight and `got cluster up` starts it again on its database. The
 * disturbed merge must have the undisturbed one's SHA-256.
 *
 * Per run: wall time, LLM calls, the child workflows (decision 71), the largest history among the
 * run and its children (events, and bytes of its events encoded as protobuf, as the server keeps
 * them, stored payloads as references), all their events, and the bytes of the payload store's bucket
 * on disk. `--room 1|2` measures one room; `--undisturbed 2` measures room 2 undisturbed only;
 * `--deadline-min N` stops waiting for a run N minutes after the bench started (default 40) and
 * reports it as it stands (its histories so far); `--with FILE` puts the rows an earlier invocation
 * printed (its stdout) first in the table; `--stuck-after N` is passed to `got run` (0: the CLI
 * waits for the run however often its workflow tasks fail); `--no-write` prints the section only. The cluster is brought down with --purge at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { RunReport } from '../src/cli/report';
import type { ClusterInfo } from '../src/cluster/cluster';
import { MINIO_DEFAULT_BUCKET } from '../src/devserver/minio';
import { isAlive } from '../src/devserver/process';
import type { SimLlmStats } from '../src/simllm/server';
import { generateClauseRoom, generateDataRoom } from '../src/tasks/doc-merge/contracts';
import type { DocMergeProblem } from '../src/tasks/doc-merge/dataset';
import { cpuCheckMs } from './calibration';
import { clusterState, got, simulatedClusterUp } from './cluster';
import { replaceSection, table } from './sections';
import { cpuSeconds, machine, shellFreeEnv } from './support';

const { temporal } = proto;
const TITLE = 'Data rooms beyond one history';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKERS = 2;
const LATENCY_MS = 50;
/** A run that has not ended by then is stopped waiting for, and reported as it stands. */
/** Every run ends, or is stopped waiting for, by then (`--deadline-min`, from the bench's start). */
let deadline = Date.now() + 40 * 60_000;

interface Room {
  key: '1' | '2';
  label: string;
  make: () => DocMergeProblem;
  /** What `got run` is told besides the room, as a user would tell it for such a room. */
  runArgs: string[];
}

const ROOMS: Room[] = [
  {
    key: '1',
    label: '200 × 200,000 chars',
    make: () => generateDataRoom(200, 200_000, 1),
    // Prompts of ~50,000 tokens take one simulator process a CPU second each on a busy machine: at the
    // default 500 calls in flight they queue there past the call timeout (measured: 943 of 2,250 timed out).
    runArgs: ['--max-concurrent-calls', '16', '--call-timeout', '600'],
  },
  { key: '2', label: '50 × ~990,000 chars, 999 clauses', make: () => generateClauseRoom(50, 990_000, 999, 1), runArgs: [] },
];

const inherited = shellFreeEnv();
const log = (line: string) => console.error(`[large-rooms] ${line}`);

/**
 * The simulator's counters. It answers between the prompts it works on (long ones take it seconds of
 * CPU on a busy machine), so it is given time, and asked again.
 */
async function simStats(info: ClusterInfo): Promise<SimLlmStats> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await (await fetch(`${info.llm.replace(/\/v1$/, '')}/stats`, { signal: AbortSignal.timeout(60_000) })).json()) as SimLlmStats;
    } catch (e) {
      if (attempt >= 5) throw e;
      await sleep(1_000);
    }
  }
}

function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
}

/** The CLI runs under way: stopped with the cluster when the bench is interrupted. */
const cliRuns = new Set<ChildProcess>();

/** `got run` of the room's merge against the cluster, as a user runs it; its JSON report and stderr at the end. */
function startCliRun(info: ClusterInfo, docs: string, workflowId: string, extra: string[]) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/got.js'),
      'run',
      '--task',
      'doc-merge',
      '--docs',
      docs,
      '--scheme',
      'got',
      '--no-worker',
      '--json',
      '--workflow-id',
      workflowId,
      ...extra,
    ],
    { cwd: ROOT, env: { ...inherited, ...info.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cliRuns.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const timeout = setTimeout(() => child.kill('SIGINT'), Math.max(0, deadline - Date.now()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timeout);
      cliRuns.delete(child);
      resolve({ code, stdout, stderr });
    }),
  );
  return { done };
}

interface HistorySize {
  workflowId: string;
  events: number;
  bytes: number;
  status: string;
}

/** A history as the server keeps it, in small pages, and the ids of the child workflows it started. */
async function historyOf(client: Client, workflowId: string): Promise<HistorySize & { children: string[] }> {
  let events = 0;
  let bytes = 0;
  const children = new Set<string>();
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      maximumPageSize: 200,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const e of page.history?.events ?? []) {
      events++;
      bytes += temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
      const started = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (started) children.add(started);
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  const description = await client.workflow.getHandle(workflowId).describe();
  return { workflowId, events, bytes, status: description.status.name, children: [...children] };
}

/** The run's history and its children's (and theirs), each once. */
async function histories(client: Client, workflowId: string): Promise<HistorySize[]> {
  const out: HistorySize[] = [];
  const queue = [workflowId];
  const seen = new Set(queue);
  while (queue.length) {
    const { children, ...size } = await historyOf(client, queue.shift()!);
    out.push(size);
    for (const c of children.filter((c) => !seen.has(c))) {
      seen.add(c);
      queue.push(c);
    }
  }
  return out;
}

/** What a run that did not end shows: its status, pending activities and children, the last events of each history. */
async function diagnose(client: Client, workflowId: string): Promise<string> {
  const lines: string[] = [];
  for (const h of await histories(client, workflowId)) {
    const handle = client.workflow.getHandle(h.workflowId);
    const d = await handle.describe();
    const raw = d.raw;
    lines.push(
      `${h.workflowId}: ${h.status}, ${h.events} events, ${(h.bytes / 1e6).toFixed(2)} MB, pending activities ${raw.pendingActivities?.length ?? 0}, pending children ${raw.pendingChildren?.length ?? 0}`,
    );
    const history = await handle.fetchHistory().catch(() => undefined);
    const last = (history?.events ?? []).slice(-6);
    for (const e of last) {
      const type = String(temporal.api.enums.v1.EventType[e.eventType ?? 0]);
      const failure =
        e.workflowTaskFailedEventAttributes?.failure?.message ??
        e.activityTaskFailedEventAttributes?.failure?.message ??
        e.workflowExecutionFailedEventAttributes?.failure?.message ??
        e.workflowExecutionTerminatedEventAttributes?.reason ??
        '';
      lines.push(`  ${type}${failure ? `: ${failure.slice(0, 400)}` : ''}`);
    }
  }
  return lines.join('\n');
}

interface Disturbance {
  what: string;
  atS: number;
  callsInFlight: number;
  downS: number;
}

/** Waits until the run has asked `requests` calls of the simulator and some are in flight. */
async function waitForCalls(info: ClusterInfo, from: number, requests: number, done: () => boolean): Promise<SimLlmStats | undefined> {
  for (;;) {
    if (done()) return undefined;
    const stats = await simStats(info).catch(() => undefined);
    if (stats && stats.requests - from >= requests && stats.inFlight > 0) return stats;
    await sleep(100);
  }
}

interface RunRow {
  room: string;
  run: string;
  status: string;
  wallS: string;
  llmCalls: number | string;
  simRequests: number;
  extraRequests: number | string;
  children: number;
  largestHistory: string;
  totalEvents: number;
  storeMB: string;
  sameSha256: string;
  disturbances: string;
}

async function main(): Promise<void> {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const only = arg('--room');
  const undisturbedOnly = new Set((arg('--undisturbed') ?? '').split(',').filter(Boolean));
  const rooms = ROOMS.filter((r) => !only || only.split(',').includes(r.key));
  const stuckAfter = arg('--stuck-after');
  if (arg('--deadline-min')) deadline = Date.now() + Number(arg('--deadline-min')) * 60_000;

  const dir = mkdtempSync(join(tmpdir(), 'got-large-rooms-'));
  const stateDir = join(dir, 'cluster');
  let up = false;
  const down = async () => {
    for (const child of cliRuns) child.kill('SIGINT');
    if (!up) return;
    up = false;
    await got(['cluster', 'down', '--state-dir', stateDir, '--purge']).catch((e: unknown) => console.error(String(e)));
    rmSync(dir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void down().then(() => process.exit(130)));

  // Rows an earlier invocation printed (its stdout), so rooms measured one at a time share one table.
  const earlier = arg('--with');
  const rows: RunRow[] = earlier
    ? readFileSync(earlier, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => {
          const { workflowId: _id, sha256: _sha, histories: _h, ...row } = JSON.parse(line) as RunRow & Record<string, unknown>;
          return row as RunRow;
        })
    : [];
  const notes: string[] = [];
  let connection: Connection | undefined;
  try {
    const cpuBefore = cpuCheckMs();
    const load = loadavg()[0]!.toFixed(1);
    const folders = rooms.map((room) => {
      const folder = join(dir, `room-${room.key}`);
      mkdirSync(folder);
      const started = Date.now();
      const { documents } = room.make();
      documents.forEach((text, i) => {
        writeFileSync(join(folder, `contract-${String(i + 1).padStart(3, '0')}.txt`), text);
      });
      const chars = documents.reduce((a, d) => a + d.length, 0);
      log(`room ${room.key}: ${documents.length} files, ${chars.toLocaleString('en')} characters, written in ${Date.now() - started} ms`);
      return folder;
    });

    up = true;
    const info = await simulatedClusterUp(stateDir, WORKERS, LATENCY_MS);
    log(`cluster up at ${info.frontend}, ${WORKERS} workers, simulator at ${LATENCY_MS} ms a call`);
    connection = await Connection.connect({ address: info.frontend });
    const client = new Client({ connection, namespace: info.env.TEMPORAL_NAMESPACE });
    const storeDir = join(stateDir, 'minio', MINIO_DEFAULT_BUCKET);
    const tag = Date.now().toString(36);

    for (const [r, room] of rooms.entries()) {
      let reference: { sha?: string; requests: number } | undefined;
      for (const disturbed of undisturbedOnly.has(room.key) ? [false] : [false, true]) {
        const workflowId = `rooms-${tag}-${room.key}-${disturbed ? 'disturbed' : 'undisturbed'}`;
        if (Date.now() > deadline - 60_000) {
          notes.push(`room ${room.key} ${disturbed ? 'disturbed' : 'undisturbed'}: not started, the bench's deadline had come`);
          continue;
        }
        const before = (await simStats(info)).requests;
        const storeBefore = bytesUnder(storeDir);
        const started = Date.now();
        log(`room ${room.key} ${disturbed ? 'disturbed' : 'undisturbed'}: starting ${workflowId}`);
        const run = startCliRun(info, folders[r]!, workflowId, [
          ...room.runArgs,
          ...(stuckAfter === undefined ? [] : ['--stuck-after', stuckAfter]),
        ]);
        let ended = false;
        const outcome = run.done.then((o) => {
          ended = true;
          return o;
        });
        const disturbances: Disturbance[] = [];
        if (disturbed && reference) {
          const kill = await waitForCalls(info, before, Math.floor(reference.requests / 3), () => ended);
          if (kill) {
            const [worker, { pid }] = Object.entries(clusterState(stateDir).processes)
              .filter(([name]) => name.startsWith('worker-'))
              .sort(([, a], [, b]) => cpuSeconds(b.pid) - cpuSeconds(a.pid))[0]!;
            const at = Date.now();
            process.kill(pid, 'SIGKILL');
            while (isAlive(pid)) await sleep(50);
            await got(['cluster', 'up', '--state-dir', stateDir, '--json']);
            disturbances.push({
              what: `${worker} SIGKILLed`,
              atS: (at - started) / 1000,
              callsInFlight: kill.inFlight,
              downS: (Date.now() - at) / 1000,
            });
            log(`SIGKILLed ${worker} (pid ${pid}) at ${((at - started) / 1000).toFixed(1)} s, ${kill.inFlight} calls in flight; replaced`);
          }
          const restart = await waitForCalls(info, before, Math.floor((2 * reference.requests) / 3), () => ended);
          if (restart) {
            const { pid } = clusterState(stateDir).processes.temporal!;
            const at = Date.now();
            process.kill(pid, 'SIGTERM');
            for (let waited = 0; isAlive(pid); waited += 50) {
              if (waited > 30_000) process.kill(pid, 'SIGKILL');
              await sleep(50);
            }
            const stoppedS = (Date.now() - at) / 1000;
            await got(['cluster', 'up', '--state-dir', stateDir, '--json']);
            disturbances.push({
              what: `Temporal server stopped (${stoppedS.toFixed(1)} s) and started`,
              atS: (at - started) / 1000,
              callsInFlight: restart.inFlight,
              downS: (Date.now() - at) / 1000,
            });
            log(
              `stopped the Temporal server at ${((at - started) / 1000).toFixed(1)} s, ${restart.inFlight} calls in flight; started again`,
            );
          }
        }
        const { code, stdout, stderr } = await outcome;
        const wallS = (Date.now() - started) / 1000;
        // A simulator still busy with a run that goes on may not answer: the row then says so rather than the bench failing.
        const after = await simStats(info).catch(() => undefined);
        const requests = after ? after.requests - before : Number.NaN;
        let report: RunReport | undefined;
        try {
          report = JSON.parse(stdout) as RunReport;
        } catch {
          report = undefined;
        }
        const sha = report?.best ? createHash('sha256').update(report.best.answer).digest('hex') : undefined;
        const sizes = await histories(client, workflowId).catch((e: unknown) => {
          notes.push(`room ${room.key}: could not read the histories of ${workflowId}: ${String(e)}`);
          return [] as HistorySize[];
        });
        const largest = [...sizes].sort((a, b) => b.bytes - a.bytes)[0];
        if (code !== 0 || !report) {
          const why = await diagnose(client, workflowId).catch((e: unknown) => `diagnosis failed: ${String(e)}`);
          log(`room ${room.key} run ${workflowId} exited with ${code}:\n${stderr.slice(-3000)}\n${why}`);
          notes.push(
            `room ${room.key} ${disturbed ? 'disturbed' : 'undisturbed'} (${workflowId}) exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`,
          );
        }
        if (!disturbed) reference = { ...(sha ? { sha } : {}), requests };
        const row: RunRow = {
          room: room.label,
          run: disturbed ? 'disturbed' : 'undisturbed',
          status: report ? (report.status ?? 'answered') : Date.now() >= deadline ? 'unfinished at the deadline' : `exit ${code}`,
          wallS: wallS.toFixed(1),
          llmCalls: report?.llmCalls ?? '-',
          simRequests: requests,
          extraRequests: disturbed && reference ? requests - reference.requests : '',
          children: sizes.length ? sizes.length - 1 : 0,
          largestHistory: largest
            ? `${largest.workflowId === workflowId ? 'run' : largest.workflowId.slice(workflowId.length + 1)}: ${largest.events} events, ${(largest.bytes / 1e6).toFixed(2)} MB`
            : '-',
          totalEvents: sizes.reduce((a, s) => a + s.events, 0),
          storeMB: `${(bytesUnder(storeDir) / 1e6).toFixed(1)} (+${((bytesUnder(storeDir) - storeBefore) / 1e6).toFixed(1)})`,
          sameSha256: disturbed ? (sha && reference?.sha === sha ? 'yes' : 'NO') : '(reference)',
          disturbances: disturbances
            .map((d) => `${d.what} at ${d.atS.toFixed(0)} s, ${d.callsInFlight} calls in flight, back after ${d.downS.toFixed(1)} s`)
            .join('; '),
        };
        rows.push(row);
        console.log(JSON.stringify({ ...row, workflowId, sha256: sha, histories: sizes }));
      }
    }

    const cpuAfter = cpuCheckMs();
    const section = `## ${TITLE}

Measured by \`npm run bench:rooms\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}, CPU check ${cpuBefore} ms before and ${cpuAfter} ms after, load average ${load} at the start.
The two data rooms we state as limits, written as .txt files and merged from the CLI as a user runs it
(\`got run --task doc-merge --docs <folder> --scheme got --no-worker\`, the simulator's 128K window) on
\`got cluster up --workers ${WORKERS} --simulated --latency ${LATENCY_MS}\` (Temporal on PostgreSQL, MinIO as the payload
store, two worker processes) on a state folder and ports of its own. Each room twice on the same problem:
undisturbed, then disturbed: a third of the way in (by the simulator's requests) the busiest worker is
SIGKILLed with calls in flight and \`got cluster up\` starts another; two thirds in the Temporal server is
stopped (SIGTERM) with calls in flight and \`got cluster up\` starts it again on its database.
\`llmCalls\`: the run's GRS; \`simRequests\`: what the simulator served during the run; \`extraRequests\`: beyond
the undisturbed run's. \`children\`: child workflows (\`<run>.parts.<forEach>[<first>-<last>]\`, decision 71).
\`largestHistory\`: the largest of the run's and its children's histories, its events and the bytes of its
events encoded as protobuf, as the server keeps them (stored payloads as references); \`totalEvents\`: all
of them. \`storeMB\`: the bucket's bytes on MinIO's disk after the run (and what the run added).
\`sameSha256\`: the disturbed merge's SHA-256 is the undisturbed one's.

${table(rows)}
${notes.length ? `\n${notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
    if (process.argv.includes('--no-write')) console.log(section);
    else replaceSection(TITLE, section);
  } finally {
    await connection?.close();
    await down();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
