/**
 * The fault tier on the deployed shape: `got cluster up` (Temporal on PostgreSQL, the Web UI, the
 * codec server, MinIO, two workers, the simulated LLM with a latency) on ports and a state folder of
 * its own. A document merge started from the CLI and one started from the Python client run while a
 * worker is SIGKILLed (and brought back by `got cluster up`, the other worker going on), the Temporal
 * server is killed and restarted, and PostgreSQL is shut down and restarted. Both must end with the
 * answer of an undisturbed run of the same request, pay no finished LLM call twice, be found by
 * their typed search attributes, and show in the Web UI with the codec server decrypting them.
 * Everything is real: processes, databases, browser; `got cluster down --purge` removes it all.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webUiLink } from '../src/client/runs';
import type { ClusterInfo, ClusterStatus } from '../src/cluster/cluster';
import { clusterPorts, MAX_PORT_BASE, PORT_SPAN, portsInUse } from '../src/cluster/ports';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { isAlive, isPortFree, LOOPBACK } from '../src/devserver/process';
import type { Grs } from '../src/grs/types';
import type { RunResult } from '../src/run/request';
import type { SimLlmStats } from '../src/simllm/server';
import { docMergeTask } from '../src/tasks/doc-merge';
import { launchBrowser } from './support/browser';
import { REPO_ROOT, waitFor } from './support/processes';
import { scrape, total } from './support/prometheus';

type History = temporal.api.history.v1.IHistory;
const exec = promisify(execFile);

/** Per simulated LLM call: long enough for a run to outlast three disturbances. */
const LATENCY_MS = 2500;

const dir = mkdtempSync(join(tmpdir(), 'got-cluster-faults-'));
const stateDir = join(dir, 'cluster');
let portBase: number;
let info: ClusterInfo;
let upSeconds: number;
let python: string;
let browser: Browser | undefined;
let connection: Connection | undefined;
let client: Client;
const children: ChildProcess[] = [];

// The user's GOT_* settings (and the test run's own store) must not leak into the cluster's clients.
const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_') && !k.startsWith('TEMPORAL_')));

/** Runs the compiled `got` as a user would; resolves with its output whatever its exit code. */
async function got(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [join(REPO_ROOT, 'bin/got.js'), ...args], {
      env: { ...inherited, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** `got cluster up` on this test's cluster; fails the test with its output when it fails. */
async function clusterUp(extra: string[] = []): Promise<ClusterInfo & { seconds: number }> {
  const { code, stdout, stderr } = await got(['cluster', 'up', '--state-dir', stateDir, '--json', ...extra]);
  if (code !== 0) throw new Error(`got cluster up exited with ${code}:\n${stderr}`);
  return JSON.parse(stdout) as ClusterInfo & { seconds: number };
}

async function clusterStatus(): Promise<ClusterStatus> {
  return JSON.parse((await got(['cluster', 'status', '--state-dir', stateDir, '--json'])).stdout) as ClusterStatus;
}

/** A port base whose whole range is free: ports of its own, never Temporal's usual ones. */
async function freePortBase(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const base = 20_000 + Math.floor(Math.random() * (MAX_PORT_BASE - 20_000));
    const ports = portsInUse(clusterPorts(base), 2).map((p) => p.port);
    if ((await Promise.all(ports.map((p) => isPortFree(LOOPBACK, p)))).every(Boolean)) return base;
  }
  throw new Error('no free range of ports found');
}

const simStats = async (): Promise<SimLlmStats> =>
  (await (await fetch(`${info.llm.replace(/\/v1$/, '')}/stats`, { signal: AbortSignal.timeout(5_000) })).json()) as SimLlmStats;

/** The simulator's counters, sampled in the background: how many calls had been answered when. */
const samples: { at: number; requests: number; answered: number }[] = [];
let sampling = true;
async function sampleStats(): Promise<void> {
  while (sampling) {
    const s = await simStats().catch(() => undefined);
    if (s) samples.push({ at: Date.now(), requests: s.requests, answered: s.requests - s.inFlight });
    await sleep(100);
  }
}
/** Answered calls at `at` (the last sample before it). */
const answeredAt = (at: number) => samples.filter((s) => s.at <= at).at(-1)?.answered ?? 0;

/**
 * A disturbance's share of calls that may be asked again: those in flight when it began (taken a
 * second early, so that an answer whose report to the server was on its way counts too) and those
 * started until the cluster was whole again.
 */
interface Window {
  what: string;
  startedAt: number;
  requestsAtEnd: number;
  answeredBefore: number;
  downMs: number;
}

async function disturb(what: string, act: () => Promise<void>): Promise<Window> {
  const startedAt = Date.now();
  const answeredBefore = answeredAt(startedAt - 1_000);
  await act();
  const restored = await clusterUp();
  const end = await simStats();
  const window = { what, startedAt, requestsAtEnd: end.requests, answeredBefore, downMs: Date.now() - startedAt };
  // The cluster is whole again: every part runs, the same ports.
  expect(restored.frontend).toBe(info.frontend);
  return window;
}
const mayAskAgain = (w: Window) => w.requestsAtEnd - w.answeredBefore;

beforeAll(async () => {
  portBase = await freePortBase();
  const startedAt = Date.now();
  info = await clusterUp(['--port-base', String(portBase), '--simulated', '--latency', String(LATENCY_MS), '--workers', '2']);
  upSeconds = (Date.now() - startedAt) / 1000;
  connection = await Connection.connect({ address: info.frontend });
  // The cluster's data converter: its codec keys and its S3 store.
  client = new Client({ connection, namespace: info.env.TEMPORAL_NAMESPACE, dataConverter: dataConverterFromEnv(info.env) });
  python = (await exec('bash', [join(REPO_ROOT, 'scripts/python-env.sh')])).stdout.trim();
  void sampleStats();
}, 600_000);

afterAll(async () => {
  sampling = false;
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await browser?.close();
  await connection?.close();
  // Stops everything the cluster started, and deletes its database and objects.
  const { code, stderr } = await got(['cluster', 'down', '--state-dir', stateDir, '--purge']);
  if (code !== 0) console.error(stderr);
}, 120_000);

/** Documents of a merge, written to files for the CLI or the Python client. */
function writeDocs(name: string, documents: string[]): string[] {
  return documents.map((text, i) => {
    const path = join(dir, `${name}-${i}.txt`);
    writeFileSync(path, text);
    return path;
  });
}
const cliDocs = docMergeTask.generateProblem(4, 7).documents;
const pythonDocs = docMergeTask.generateProblem(3, 21).documents;
const cliFiles = writeDocs('cli', cliDocs);
const pythonFiles = writeDocs('python', pythonDocs);

/** `got run` of a document merge against the cluster, its workers doing the work. */
function startCliRun(workflowId: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return got(
    [
      'run',
      '--task',
      'doc-merge',
      '--scheme',
      'got',
      ...cliFiles.flatMap((f) => ['--doc', f]),
      '--no-worker',
      '--json',
      '--workflow-id',
      workflowId,
    ],
    info.env,
  );
}

/** The Python client's merge; resolves its workflow id as soon as it is printed, and its end. */
function startPythonRun(): {
  workflowId: Promise<string>;
  done: Promise<{ code: number | null; events: Record<string, unknown>[]; stderr: string }>;
} {
  const child = spawn(
    python,
    [
      join(REPO_ROOT, 'examples/python/start_merge.py'),
      '--address',
      info.frontend,
      '--task-queue',
      info.env.GOT_TASK_QUEUE!,
      '--codec-endpoint',
      info.codec,
      ...pythonFiles.flatMap((f) => ['--doc', f]),
    ],
    { cwd: REPO_ROOT, env: inherited, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let announce: (id: string) => void;
  const workflowId = new Promise<string>((resolve) => {
    announce = resolve;
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    // The SDK's own log lines may come on stdout too; the client's events are the JSON lines.
    if (!line.startsWith('{')) return;
    const event = JSON.parse(line) as Record<string, unknown>;
    events.push(event);
    if (event.event === 'started') announce(event.workflowId as string);
  });
  const done = new Promise<{ code: number | null; events: Record<string, unknown>[]; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, events, stderr })),
  );
  return {
    workflowId: Promise.race([workflowId, done.then(() => Promise.reject(new Error(`the Python client ended early:\n${stderr}`)))]),
    done,
  };
}

const resultOf = (workflowId: string) => client.workflow.getHandle(workflowId).result() as Promise<RunResult>;

/** LLM activities completed in a history. */
const completedIn = (history: History) => (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
const isClosed = (history: History) =>
  (history.events ?? []).some((e) => e.workflowExecutionCompletedEventAttributes || e.workflowExecutionFailedEventAttributes);

/** LLM activities completed so far in both runs; fails when a run has already finished (a disturbance would come too late). */
async function progress(handles: WorkflowHandle[]): Promise<number | undefined> {
  const histories = await Promise.all(handles.map((h) => h.fetchHistory())).catch(() => undefined);
  if (!histories) return undefined; // the server is coming back
  if (histories.some(isClosed)) throw new Error('a run finished before every disturbance was made: raise LATENCY_MS');
  return histories.reduce((n, h) => n + completedIn(h), 0);
}
const atLeast = async (handles: WorkflowHandle[], n: number) => {
  const done = await progress(handles);
  return done !== undefined && done >= n ? done : undefined;
};

/** Every thought with its parents, content, score and validity, by id (see crash.test.ts). */
const thoughtsOf = (grs: Grs) =>
  grs.thoughts
    .map((t) => ({ id: t.id, parents: t.parents, state: t.state, score: t.score, valid: t.valid, solved: t.solved }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const retriesIn = (grs: Grs) => grs.calls.reduce((n, c) => n + c.attempt - 1, 0);

describe('the deployed shape under faults', () => {
  it('merges from the CLI and from Python survive a killed worker, a restarted server and a restarted database', async () => {
    const started = Date.now();
    const tag = Date.now().toString(36);

    // The undisturbed reference: the same two requests.
    const before = await simStats();
    const referencePython = startPythonRun();
    const referenceCli = await startCliRun(`cluster-reference-cli-${tag}`);
    expect(referenceCli.code, referenceCli.stderr).toBe(0);
    const referencePythonDone = await referencePython.done;
    expect(referencePythonDone.code, referencePythonDone.stderr).toBe(0);
    const reference = {
      cli: await resultOf(`cluster-reference-cli-${tag}`),
      python: await resultOf(await referencePython.workflowId),
    };
    const referenceRequests = (await simStats()).requests - before.requests;
    // One request per call when nothing is disturbed: the baseline the disturbed runs are held to.
    expect(referenceRequests).toBe(reference.cli.grs.calls.length + reference.python.grs.calls.length);
    const referenceSeconds = (Date.now() - started) / 1000;

    // The same requests again, disturbed three times while they run.
    const atStart = await simStats();
    const cliId = `cluster-faults-cli-${tag}`;
    const cliRun = startCliRun(cliId);
    const pythonRun = startPythonRun();
    const handles = [client.workflow.getHandle(cliId), client.workflow.getHandle(await pythonRun.workflowId)];
    await waitFor(
      'the CLI run to start',
      () =>
        handles[0]!
          .describe()
          .then(() => true)
          .catch(() => false),
      { timeoutMs: 60_000 },
    );
    const windows: Window[] = [];

    // The worker to kill: the one running the most LLM calls of the two runs right now, so that the
    // kill interrupts calls (each run's calls tend to stay on the worker that ran its last workflow task).
    let done = await waitFor('2 LLM calls completed', () => atLeast(handles, 2), { timeoutMs: 120_000, intervalMs: 100 });
    const [victimName, victim] = await waitFor(
      'LLM calls in flight on a worker',
      async () => {
        const pending = (await Promise.all(handles.map((h) => h.describe()))).flatMap((d) => d.raw.pendingActivities ?? []);
        const byWorker = Object.entries(info.processes)
          .filter(([name]) => name.startsWith('worker-'))
          .map(([name, p]) => [name, p, pending.filter((a) => a.lastWorkerIdentity?.startsWith(`${p.pid}@`)).length] as const)
          .sort((a, b) => b[2] - a[2]);
        return byWorker[0]![2] > 0 ? ([byWorker[0]![0], byWorker[0]![1]] as const) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    const kept = Object.entries(info.processes).filter(([name]) => name.startsWith('worker-') && name !== victimName);
    windows.push(
      await disturb('worker SIGKILL', async () => {
        process.kill(victim.pid, 'SIGKILL');
        await waitFor('the worker to die', () => !isAlive(victim.pid), { timeoutMs: 10_000 });
      }),
    );
    const afterWorker = (await clusterStatus()).info!.processes;
    expect(afterWorker[victimName]!.pid).not.toBe(victim.pid);
    // The other worker kept going: the same process throughout.
    for (const [name, p] of kept) {
      expect(afterWorker[name]!.pid).toBe(p.pid);
      expect(isAlive(p.pid)).toBe(true);
    }

    done = await waitFor('1 more LLM call completed', () => atLeast(handles, done + 1), { timeoutMs: 120_000, intervalMs: 100 });
    const server = (await clusterStatus()).info!.processes.temporal!;
    windows.push(
      await disturb('Temporal server SIGKILL and restart', async () => {
        process.kill(server.pid, 'SIGKILL');
        await waitFor('the server to die', () => !isAlive(server.pid), { timeoutMs: 10_000 });
      }),
    );
    expect((await clusterStatus()).info!.processes.temporal!.pid).not.toBe(server.pid);

    await waitFor('1 more LLM call completed', () => atLeast(handles, done + 1), { timeoutMs: 120_000, intervalMs: 100 });
    const database = (await clusterStatus()).info!.processes.postgres!;
    windows.push(
      await disturb('PostgreSQL immediate shutdown and restart', async () => {
        // Immediate shutdown: no checkpoint, the next start recovers from the write-ahead log, as after a crash.
        process.kill(database.pid, 'SIGQUIT');
        await waitFor('PostgreSQL to stop', () => !isAlive(database.pid), { timeoutMs: 30_000 });
      }),
    );
    expect((await clusterStatus()).info!.processes.postgres!.pid).not.toBe(database.pid);

    const cliOutcome = await cliRun;
    expect(cliOutcome.code, cliOutcome.stderr).toBe(0);
    const pythonOutcome = await pythonRun.done;
    expect(pythonOutcome.code, pythonOutcome.stderr).toBe(0);
    const disturbedRequests = (await simStats()).requests - atStart.requests;
    const result = { cli: await resultOf(cliId), python: await resultOf(handles[1]!.workflowId) };

    // The answers of the undisturbed runs, down to every thought.
    const cliReport = JSON.parse(cliOutcome.stdout) as { best: { answer: string; score: number } };
    expect(cliReport.best.answer).toBe(reference.cli.best!.state.merged);
    const pythonDone = pythonOutcome.events.find((e) => e.event === 'completed') as { merged: string; bestScore: number };
    expect(pythonDone.merged).toBe(reference.python.best!.state.merged);
    expect(pythonDone.bestScore).toBe(reference.python.best!.score);
    for (const run of ['cli', 'python'] as const) {
      expect(result[run].best!.state.merged).toBe(reference[run].best!.state.merged);
      expect(thoughtsOf(result[run].grs)).toEqual(thoughtsOf(reference[run].grs));
      expect(result[run].grs.operations.every((o) => o.status === 'done')).toBe(true);
    }

    // No finished call paid twice: every request beyond the reference's is a later attempt of a call
    // whose earlier attempt never finished, and those are calls a disturbance caught in flight.
    const askedAgain = disturbedRequests - referenceRequests;
    const retries = retriesIn(result.cli.grs) + retriesIn(result.python.grs);
    expect(askedAgain).toBeGreaterThanOrEqual(0);
    expect(askedAgain).toBeLessThanOrEqual(retries);
    expect(retries).toBeLessThanOrEqual(windows.reduce((n, w) => n + mayAskAgain(w), 0));

    // Each live worker serves its metrics; both disturbed runs ended after the kill, so a live worker counted them.
    const live = (await clusterStatus()).info!.workers;
    expect(live).toHaveLength(2);
    const scraped = (await Promise.all(live.map((w) => scrape(w.metrics)))).flat();
    expect(total(scraped, 'got_runs_finished_total', { task: 'doc-merge', outcome: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(total(scraped, 'got_llm_calls_total', { task: 'doc-merge', outcome: 'answered' })).toBeGreaterThan(0);
    expect(total(scraped, 'got_llm_cost_microdollars_total', { task: 'doc-merge' })).toBeGreaterThan(0);
    expect(scraped.some((s) => s.name.startsWith('temporal_'))).toBe(true);

    console.log(
      `[cluster-faults] cluster up ${upSeconds.toFixed(1)} s (first start); reference runs ${referenceSeconds.toFixed(1)} s, ` +
        `${referenceRequests} requests; disturbed runs ${disturbedRequests} requests: ${askedAgain} asked again, ${retries} retried attempts; ` +
        `${windows.map((w) => `${w.what}: whole again after ${(w.downMs / 1000).toFixed(1)} s, ≤${mayAskAgain(w)} in flight`).join('; ')}; ` +
        `test ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    // The typed search attributes find the runs, through the cluster's PostgreSQL visibility store.
    const list = async (query: string) => {
      const ids: string[] = [];
      for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
      return ids.sort();
    };
    await expect
      .poll(() => list("GotTask = 'doc-merge' AND GotScheme = 'got' AND GotStatus = 'completed'"), { timeout: 30_000 })
      .toEqual(expect.arrayContaining([cliId, `cluster-reference-cli-${tag}`]));
    await expect
      .poll(() => list(`WorkflowId = '${handles[1]!.workflowId}' AND GotStatus = 'completed' AND GotCostUsd > 0 AND GotBestScore > 0`), {
        timeout: 30_000,
      })
      .toEqual([handles[1]!.workflowId]);
    expect(await list("GotTask = 'sorting'")).toEqual([]);

    // The server holds only ciphertext and references: the documents' text is nowhere in the history.
    const snippet = cliDocs[0]!
      .split('\n')
      .find((line) => line.length > 40 && !/["\\]/.test(line))!
      .slice(0, 40);
    const raw = await new Client({ connection: connection! }).workflow.getHandle(cliId).fetchHistory();
    expect(Buffer.from(proto.temporal.api.history.v1.History.encode(raw).finish()).toString('latin1')).not.toContain(snippet);

    // The Web UI shows the run, its input decrypted (and fetched from the store) by the codec server.
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
    await page.goto(webUiLink(info.webUi, info.env.TEMPORAL_NAMESPACE!, cliId));
    await expect.poll(async () => page.locator('body').innerText(), { timeout: 60_000, interval: 500 }).toContain(snippet);
    const text = await page.locator('body').innerText();
    expect(text).toContain(cliId);
    expect(text).toMatch(/Completed/);
    mkdirSync(join(REPO_ROOT, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: join(REPO_ROOT, 'test-artifacts', 'cluster-web-ui-run.png'), fullPage: true });
  }, 900_000);

  it('up on a running cluster changes nothing, refuses other ports, and down stops exactly what it started', async () => {
    const before = await clusterStatus();
    expect(before.parts.every((p) => p.running)).toBe(true);
    const again = await clusterUp();
    expect(again.processes).toEqual(before.info!.processes);

    const other = await got(['cluster', 'up', '--state-dir', stateDir, '--port-base', String(portBase - PORT_SPAN)]);
    expect(other.code).toBe(3);
    expect(other.stderr).toMatch(/running with port base/);

    // down signals the processes the cluster recorded, and no other.
    const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(bystander);
    const down = await got(['cluster', 'down', '--state-dir', stateDir]);
    expect(down.code, down.stderr).toBe(0);
    for (const p of before.parts) expect(isAlive(p.pid), p.name).toBe(false);
    expect(isAlive(bystander.pid!)).toBe(true);
    const after = await clusterStatus();
    expect(after.parts).toEqual([]);
    for (const { port } of portsInUse(clusterPorts(portBase), 2)) expect(await isPortFree(LOOPBACK, port), String(port)).toBe(true);
  }, 300_000);
});
