/**
 * Crash tests on a real Temporal dev server of their own (SQLite-backed, so it can be killed and
 * restarted): a worker process SIGKILLed in the middle of a run, and the server itself killed and
 * restarted on the same database in the middle of a run. In both cases the run must finish with the
 * answer an uninterrupted run gives, pay no completed LLM call twice, and keep a history from which
 * `inspect` rebuilds exactly the GRS the run returned. Client and workers share a payload store with
 * a low threshold, so the problem and the drafts live outside the history and must survive too.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { type DevServerHandle, startDevServer } from '../src/devserver/dev-server';
import { freePort, isAlive } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { Grs } from '../src/grs/types';
import { inspectRun } from '../src/inspect/rebuild';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { docMergeTask } from '../src/tasks/doc-merge';
import { sortingTask } from '../src/tasks/sorting';
import { bundleGotWorkflows } from '../worker/create';
import { startWorkerProcess, type WorkerProcess, waitFor } from './support/processes';

type History = temporal.api.history.v1.IHistory;

const LATENCY_MS = 300;
/** A call whose worker died is retried after this many seconds without a heartbeat (the default is 30). */
const HEARTBEAT_SECONDS = 2;

let binary: string;
let bundle: WorkflowBundleWithSourceMap;
let tmp: string;
const servers: DevServerHandle[] = [];
const workers: WorkerProcess[] = [];
const llms: SimulatedLlm[] = [];
const connections: Connection[] = [];

beforeAll(async () => {
  // Replays (inspect) would otherwise log every workflow task at INFO.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  binary = await ensureTemporalCli();
  bundle = await bundleGotWorkflows();
  tmp = await mkdtemp(join(tmpdir(), 'got-crash-'));
});

afterAll(async () => {
  // Everything started here is stopped even when a test failed half way.
  await Promise.allSettled(workers.map((w) => w.kill()));
  await Promise.allSettled(connections.map((c) => c.close()));
  await Promise.allSettled(servers.map((s) => s.stop()));
  await Promise.allSettled(llms.map((l) => l.close()));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function ownServer(port: number, dbFile: string): Promise<DevServerHandle> {
  // The dev server picks its internal ports itself; with many test files starting servers at once it can
  // lose one to another process and exit at start (seen once in a full run): a second start is what a user does.
  const start = () => startDevServer({ binary, port, ui: false, dbFile });
  const server = await start().catch(async (e: unknown) => {
    if (!/exited before becoming healthy/.test(String(e))) throw e;
    await new Promise((r) => setTimeout(r, 1_000));
    return start();
  });
  servers.push(server);
  return server;
}

/** The store every process of these tests shares: a folder, and a threshold low enough that the documents and drafts go there. */
const storeEnv = () => ({ GOT_STORE: join(tmp, 'store'), GOT_STORE_THRESHOLD_BYTES: '2048' });

async function connect(address: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  connections.push(connection);
  return new Client({ connection, dataConverter: dataConverterFromEnv(storeEnv()) });
}

async function simLlm(): Promise<SimulatedLlm> {
  const llm = await startSimulatedLlm({ latencyMs: LATENCY_MS });
  llms.push(llm);
  return llm;
}

async function workerProcess(address: string, taskQueue: string, llm: SimulatedLlm): Promise<WorkerProcess> {
  const worker = await startWorkerProcess({
    TEMPORAL_ADDRESS: address,
    GOT_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: llm.baseURL,
    OPENAI_API_KEY: 'sim',
    ...storeEnv(),
  });
  workers.push(worker);
  return worker;
}

/** The run's result, or a failure naming the worker's last output if the worker process dies first. */
async function resultWhileAlive(handle: WorkflowHandle, worker: WorkerProcess): Promise<RunResult> {
  return Promise.race([
    resultOf(handle),
    worker.exit.then((e) => {
      throw new Error(`the worker process exited (${JSON.stringify(e)}) before the run finished. Output:\n${worker.output()}`);
    }),
  ]);
}

/** LLM activities in a history: scheduled, and closed (completed, failed, timed out or cancelled). */
function activityCounts(history: History) {
  let scheduled = 0;
  let completed = 0;
  let closed = 0;
  for (const e of history.events ?? []) {
    if (e.activityTaskScheduledEventAttributes) scheduled++;
    if (e.activityTaskCompletedEventAttributes) completed++;
    if (
      e.activityTaskCompletedEventAttributes ||
      e.activityTaskFailedEventAttributes ||
      e.activityTaskTimedOutEventAttributes ||
      e.activityTaskCanceledEventAttributes
    )
      closed++;
  }
  return { scheduled, completed, open: scheduled - closed };
}

const isClosed = (history: History) =>
  (history.events ?? []).some((e) => e.workflowExecutionCompletedEventAttributes || e.workflowExecutionFailedEventAttributes);

/**
 * What must not depend on crashes: every thought with its parents, content, score and validity. By
 * id: ids are positional, but the GRS lists thoughts in the order their calls finished, which
 * varies from run to run.
 */
const thoughtsOf = (grs: Grs) =>
  grs.thoughts
    .map((t) => ({ id: t.id, parents: t.parents, state: t.state, score: t.score, valid: t.valid, solved: t.solved }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const idsOf = (grs: Grs) => thoughtsOf(grs).map((t) => t.id);

const docMergeProblem = docMergeTask.generateProblem(4, 5);
const docMergeRun = (): RunRequestInput => ({
  task: 'doc-merge',
  problem: docMergeProblem,
  goo: docMergeTask.schemes.got!({ size: 4 }),
  llm: { heartbeatSeconds: HEARTBEAT_SECONDS },
  seed: 5,
  labels: { scheme: 'got', size: 4, sample: 5 },
});

const sortingProblem = sortingTask.generateProblem(128, 3);
const sortingRun = (): RunRequestInput => ({
  task: 'sorting',
  problem: sortingProblem,
  goo: sortingTask.schemes.got!({ size: 128, problem: sortingProblem }),
  llm: { heartbeatSeconds: HEARTBEAT_SECONDS },
  seed: 3,
  labels: { scheme: 'got', size: 128, sample: 3 },
});

describe('crashes in the middle of a run', () => {
  it('a worker process SIGKILLed mid-run: a new worker finishes it with the same answer, paying only the calls in flight again', async () => {
    const started = Date.now();
    const server = await ownServer(await freePort(), join(tmp, 'worker-crash.sqlite'));
    const client = await connect(server.address);
    const llm = await simLlm();
    const taskQueue = `crash-worker-${randomUUID()}`;
    const first = await workerProcess(server.address, taskQueue, llm);

    // The uninterrupted reference: same problem, same seed.
    const reference = await resultWhileAlive(
      await startRun(client, docMergeRun(), { taskQueue, workflowId: `crash-reference-${randomUUID()}` }),
      first,
    );
    const referenceRequests = llm.stats().requests;
    const llmActivities = reference.grs.calls.length;
    expect(referenceRequests).toBe(llmActivities);
    expect(llm.stats().inFlight).toBe(0);

    llm.resetStats();
    const handle = await startRun(client, docMergeRun(), { taskQueue, workflowId: `crash-run-${randomUUID()}` });
    // Kill in the middle of an LLM stage, at a moment when (a) every answer the simulator gave is
    // recorded in history, so no completed call can be lost, and (b) every open activity has its
    // request at the simulator, so `inFlight` counts exactly the calls the crash interrupts.
    const atKill = await waitFor(
      'a mid-run moment with LLM calls in flight',
      async () => {
        const history = await handle.fetchHistory();
        const { completed, open } = activityCounts(history);
        if (isClosed(history)) throw new Error('the run finished before the worker could be killed');
        const stats = llm.stats();
        const answered = stats.requests - stats.inFlight;
        if (completed < 3 || stats.inFlight < 1 || answered !== completed || open !== stats.inFlight) return undefined;
        // Same tick as the stats read: the simulator (in this process) cannot start or finish a request in between.
        process.kill(first.pid, 'SIGKILL');
        return { completed, inFlight: stats.inFlight, requests: stats.requests };
      },
      { timeoutMs: 60_000, intervalMs: 20 },
    );
    expect(await first.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(isAlive(first.pid)).toBe(false);

    const killedAt = Date.now();
    const second = await workerProcess(server.address, taskQueue, llm);
    const secondPollingAfter = Date.now() - killedAt;
    const result = await resultWhileAlive(handle, second);
    const recoveredIn = Date.now() - killedAt;
    const crashRequests = llm.stats().requests;

    // The same answer as the uninterrupted run, down to every thought's id, content and score.
    expect(result.best).toBeDefined();
    expect(result.best!.state.merged).toBe(reference.best!.state.merged);
    expect(result.best!.score).toBe(reference.best!.score);
    expect(result.best!.id).toBe(reference.best!.id);
    expect(idsOf(result.grs)).toEqual(idsOf(reference.grs));
    expect(thoughtsOf(result.grs)).toEqual(thoughtsOf(reference.grs));
    expect(result.grs.operations.every((o) => o.status === 'done')).toBe(true);

    // No completed call paid twice: only the calls in flight at the kill were asked again.
    expect(crashRequests).toBeLessThanOrEqual(referenceRequests + atKill.inFlight);
    expect(crashRequests).toBeGreaterThanOrEqual(referenceRequests + atKill.inFlight);
    // The interrupted calls succeeded on a later attempt, and the GRS says so.
    const retried = result.grs.calls.filter((c) => c.attempt > 1);
    expect(retried.length).toBeGreaterThanOrEqual(atKill.inFlight);
    expect(retried.length).toBeGreaterThanOrEqual(1);
    expect(result.grs.calls.filter((c) => c.attempt === 1).length).toBeGreaterThanOrEqual(atKill.completed);

    // The history (with the crash in it) still replays to exactly the GRS the run returned.
    const { grs, history } = await inspectRun(client, handle.workflowId, undefined, { workflowBundle: bundle });
    expect(grs).toEqual(result.grs);
    // The problem went to the steps by reference: the stored copy outlived the worker that wrote it.
    const raw = await new Client({ connection: client.connection }).workflow.getHandle(handle.workflowId).fetchHistory();
    expect(Buffer.from(proto.temporal.api.history.v1.History.encode(raw).finish()).toString('latin1')).toContain(
      'ExternalStorageReference',
    );
    expect(history.events!.length).toBe(raw.events!.length);

    console.log(
      `[crash] worker SIGKILL: reference ${referenceRequests} requests; crash run ${crashRequests} requests ` +
        `(killed after ${atKill.completed}/${llmActivities} LLM activities completed, ${atKill.inFlight} in flight); ` +
        `${retried.length} call(s) retried (attempts ${retried.map((c) => `${c.id}#${c.attempt}`).join(', ')}); ` +
        `new worker polling ${(secondPollingAfter / 1000).toFixed(1)}s and the run done ${(recoveredIn / 1000).toFixed(1)}s after the kill; test ${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
  }, 240_000);

  it('the server SIGKILLed mid-run and restarted on the same SQLite file: the run finishes, its history intact', async () => {
    const started = Date.now();
    const port = await freePort();
    const dbFile = join(tmp, 'server-crash.sqlite');
    const server = await ownServer(port, dbFile);
    const client = await connect(server.address);
    const llm = await simLlm();
    const taskQueue = `crash-server-${randomUUID()}`;
    const worker = await workerProcess(server.address, taskQueue, llm);

    const reference = await resultWhileAlive(
      await startRun(client, sortingRun(), { taskQueue, workflowId: `crash-reference-${randomUUID()}` }),
      worker,
    );
    const referenceRequests = llm.stats().requests;
    expect(referenceRequests).toBe(reference.grs.calls.length);

    llm.resetStats();
    const handle = await startRun(client, sortingRun(), { taskQueue, workflowId: `crash-server-run-${randomUUID()}` });
    const before = await waitFor(
      'some LLM activities completed',
      async () => {
        const history = await handle.fetchHistory();
        if (isClosed(history)) throw new Error('the run finished before the server could be killed');
        return activityCounts(history).completed >= 3 ? history : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 20 },
    );
    const inFlightAtKill = llm.stats().inFlight;
    process.kill(server.pid, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor('the server process to die', () => !isAlive(server.pid), { timeoutMs: 10_000 });
    // Only detaches its exit hook (the process is gone); forgotten so that cleanup never signals a reused pid.
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
    const completedBeforeKill = activityCounts(before).completed;

    // Same port, same database. The worker process is left alone: it has to reconnect by itself.
    const restarted = await waitFor('the server to restart on the same port', () => ownServer(port, dbFile).catch(() => undefined), {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const downFor = Date.now() - killedAt;
    expect(restarted.address).toBe(server.address);
    const client2 = await connect(restarted.address);
    const handle2 = client2.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    const result = await resultWhileAlive(handle2, worker);
    const recoveredIn = Date.now() - killedAt;
    expect(worker.exited()).toBe(false);

    // A valid result, the same as the uninterrupted run's.
    expect(result.best).toBeDefined();
    expect(result.best!.state.list).toEqual(reference.best!.state.list);
    expect(result.best!.score).toBe(reference.best!.score);
    expect(idsOf(result.grs)).toEqual(idsOf(reference.grs));
    expect(thoughtsOf(result.grs)).toEqual(thoughtsOf(reference.grs));
    expect(result.grs.operations.every((o) => o.status === 'done')).toBe(true);

    // The history recorded before the kill survived the restart, event for event.
    const { grs, history } = await inspectRun(client2, handle.workflowId, handle.firstExecutionRunId, { workflowBundle: bundle });
    const brief = (h: History) => (h.events ?? []).map((e) => `${String(e.eventId)}:${String(e.eventType)}`);
    expect(brief(history).slice(0, brief(before).length)).toEqual(brief(before));
    expect(activityCounts(history).completed).toBe(reference.grs.calls.length);
    expect(isClosed(history)).toBe(true);
    // ...and replays to exactly the GRS the run returned.
    expect(grs).toEqual(result.grs);

    const requests = llm.stats().requests;
    expect(requests).toBeGreaterThanOrEqual(referenceRequests);
    console.log(
      `[crash] server SIGKILL: killed after ${completedBeforeKill}/${reference.grs.calls.length} LLM activities completed ` +
        `(${inFlightAtKill} in flight); server down ${(downFor / 1000).toFixed(1)}s; run finished ${(recoveredIn / 1000).toFixed(1)}s after the kill; ` +
        `reference ${referenceRequests} requests, crash run ${requests}; ` +
        `retried calls: ${result.grs.calls.filter((c) => c.attempt > 1).length}; test ${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
  }, 300_000);
});
