/**
 * A study survives its worker and its server: the worker process, then (in a second study) the
 * Temporal server itself is SIGKILLed in the middle of a trial, while LLM calls are in flight, and
 * the study finishes with exactly the result of an uninterrupted study, asking the LLM again only for
 * calls that had not finished (each retried attempt is one the kill interrupted), and running no
 * sample twice.
 */

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryStudyProgress, startStudy, studyResultOf } from '../src/client/studies';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { type DevServerHandle, startDevServer } from '../src/devserver/dev-server';
import { freePort, isAlive } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { RunResult } from '../src/run/request';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import type { StudyRequestInput } from '../src/tune/request';
import type { StudyResult } from '../src/tune/results';
import { startWorkerProcess, type WorkerProcess, waitFor } from './support/processes';

let tmp: string;
let binary: string;
let llm: SimulatedLlm;
const servers: DevServerHandle[] = [];
/** The uninterrupted study both crash studies must match, and what the LLM received for it. */
let reference!: StudyResult;
let referenceRequests!: number;
let connection: Connection;
let client: Client;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'got-tune-crash-'));
  binary = await ensureTemporalCli();
  llm = await startSimulatedLlm({ latencyMs: 250 });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  // The worker processes share the tests' payload store (GOT_STORE, set by the global setup): so does this client.
  client = new Client({ connection, dataConverter: dataConverterFromEnv() });
});
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.kill()));
  await Promise.allSettled(servers.map((x) => x.stop()));
  await connection?.close();
  await llm?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function worker(taskQueue: string, cacheDir: string, address = inject('temporalAddress')): Promise<WorkerProcess> {
  const w = await startWorkerProcess({
    TEMPORAL_ADDRESS: address,
    GOT_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: llm.baseURL,
    GOT_CACHE_DIR: cacheDir,
  });
  workers.push(w);
  return w;
}

const request = (): StudyRequestInput => ({
  task: 'sorting',
  source: { scheme: 'got' },
  size: 32,
  samples: [0, 1, 2, 3].map((i) => ({ id: String(i), problem: sortingTask.generateProblem(32, 20 + i) })),
  trials: 3,
  maxCostPerSample: 0.01,
  stop: { minSamples: 2, batch: 2 },
  // A call whose worker died is retried after 2 s without a heartbeat.
  llm: { heartbeatSeconds: 2 },
  seed: 11,
});

const runsOf = (result: StudyResult) => result.trials.flatMap((t) => t.samples.map((s) => s.workflowId));

/**
 * Every sample ran once (one execution per run id) and each run's calls completed once (Temporal
 * records a result once); the LLM was asked again only for attempts the kill interrupted.
 */
async function expectNothingFinishedPaidTwice(c: Client, result: StudyResult, crashRequests: number) {
  const ids = runsOf(result);
  expect(new Set(ids).size).toBe(ids.length);
  const runs = await Promise.all(ids.map((id) => c.workflow.getHandle(id).result() as Promise<RunResult>));
  const retried = runs.flatMap((r) => r.grs.calls.filter((call) => call.attempt > 1));
  const extraAttempts = retried.reduce((a, call) => a + call.attempt - 1, 0);
  expect(crashRequests).toBeGreaterThanOrEqual(referenceRequests);
  expect(crashRequests).toBeLessThanOrEqual(referenceRequests + extraAttempts);
  return { retried, extraAttempts };
}
/** What must not depend on the crash: each trial's configuration, samples, scores and recorded costs. */
const essence = (r: StudyResult) =>
  r.trials.map((t) => ({
    config: t.config,
    samples: t.samples.map((s) => [s.sample, s.score, s.costUsd, s.llmCalls]),
    feasible: t.feasible,
  }));

describe('a study whose worker is killed mid-trial', () => {
  it('finishes with the uninterrupted result, paying only the calls in flight again', async () => {
    const started = Date.now();
    // The uninterrupted reference, with a response cache of its own.
    const refQueue = `tune-ref-${randomUUID()}`;
    const refWorker = await worker(refQueue, join(tmp, 'cache-ref'));
    llm.resetStats();
    reference = await studyResultOf(await startStudy(client, request(), { taskQueue: refQueue, workflowId: `tune-ref-${randomUUID()}` }));
    referenceRequests = llm.stats().requests;
    await refWorker.kill();

    const queue = `tune-crash-${randomUUID()}`;
    const cache = join(tmp, 'cache-crash');
    const first = await worker(queue, cache);
    llm.resetStats();
    const handle = await startStudy(client, request(), { taskQueue: queue, workflowId: `tune-crash-${randomUUID()}` });
    // Mid-trial: one trial done, another under way with LLM calls at the simulator.
    const atKill = await waitFor(
      'a trial under way with LLM calls in flight',
      async () => {
        const p = await queryStudyProgress(handle).catch(() => undefined);
        if (p && p.trialsDone >= p.trialsPlanned) throw new Error('the study finished before its worker could be killed');
        const stats = llm.stats();
        if (!p || p.trialsDone < 1 || !p.running || stats.inFlight < 1) return undefined;
        process.kill(first.pid, 'SIGKILL');
        return { trialsDone: p.trialsDone, inFlight: stats.inFlight, requests: stats.requests };
      },
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    expect(await first.exit).toEqual({ code: null, signal: 'SIGKILL' });

    const second = await worker(queue, cache);
    const result = await Promise.race([
      studyResultOf(handle),
      second.exit.then(() => {
        throw new Error(`the second worker exited:\n${second.output()}`);
      }),
    ]);
    const crashRequests = llm.stats().requests;

    // The same study, trial for trial, as if nothing had happened.
    expect(essence(result)).toEqual(essence(reference));
    expect(result.costUsd).toBeCloseTo(reference.costUsd, 12);

    const { retried, extraAttempts } = await expectNothingFinishedPaidTwice(client, result, crashRequests);

    // The kill interrupted calls, which were asked again.
    expect(retried.length).toBeGreaterThanOrEqual(1);
    console.log(
      `[tune crash] reference ${referenceRequests} requests; killed after ${atKill.trialsDone} of 3 trials with ${atKill.inFlight} calls in flight; ` +
        `crash study ${crashRequests} requests, ${retried.length} calls retried (${extraAttempts} extra attempts); test ${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
  }, 300_000);

  it('the server SIGKILLed mid-trial and restarted on the same SQLite file: the study finishes as if nothing happened', async () => {
    const started = Date.now();
    const port = await freePort();
    const dbFile = join(tmp, 'server-crash.sqlite');
    const server = await startDevServer({ binary, port, ui: false, dbFile });
    servers.push(server);
    const own = await Connection.connect({ address: server.address });
    const ownClient = new Client({ connection: own, dataConverter: dataConverterFromEnv() });
    const queue = `tune-server-crash-${randomUUID()}`;
    const w = await worker(queue, join(tmp, 'cache-server-crash'), server.address);
    llm.resetStats();
    const handle = await startStudy(ownClient, request(), { taskQueue: queue, workflowId: `tune-server-crash-${randomUUID()}` });
    const atKill = await waitFor(
      'a trial under way with LLM calls in flight',
      async () => {
        const p = await queryStudyProgress(handle).catch(() => undefined);
        if (p && p.trialsDone >= p.trialsPlanned) throw new Error('the study finished before the server could be killed');
        if (!p || p.trialsDone < 1 || !p.running || llm.stats().inFlight < 1) return undefined;
        process.kill(server.pid, 'SIGKILL');
        return { trialsDone: p.trialsDone, inFlight: llm.stats().inFlight };
      },
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    await waitFor('the server process to die', () => !isAlive(server.pid), { timeoutMs: 10_000 });
    await server.stop(); // only detaches its exit hook: the process is gone
    servers.splice(servers.indexOf(server), 1);
    await own.close().catch(() => undefined);

    // Same port, same database; the worker process is left alone and reconnects by itself.
    const restarted = await waitFor(
      'the server to restart',
      () => startDevServer({ binary, port, ui: false, dbFile }).catch(() => undefined),
      {
        timeoutMs: 60_000,
        intervalMs: 500,
      },
    );
    servers.push(restarted);
    const again = await Connection.connect({ address: restarted.address });
    const againClient = new Client({ connection: again, dataConverter: dataConverterFromEnv() });
    try {
      const result = await Promise.race([
        studyResultOf(againClient.workflow.getHandle(handle.workflowId)),
        w.exit.then(() => {
          throw new Error(`the worker exited:\n${w.output()}`);
        }),
      ]);
      const crashRequests = llm.stats().requests;
      expect(w.exited()).toBe(false);
      expect(essence(result)).toEqual(essence(reference));
      const { retried, extraAttempts } = await expectNothingFinishedPaidTwice(againClient, result, crashRequests);
      console.log(
        `[tune crash] server SIGKILL after ${atKill.trialsDone} of 3 trials with ${atKill.inFlight} calls in flight; ` +
          `${crashRequests} requests against ${referenceRequests}, ${retried.length} calls retried (${extraAttempts} extra attempts); test ${((Date.now() - started) / 1000).toFixed(1)}s`,
      );
    } finally {
      await again.close();
    }
  }, 300_000);
});
