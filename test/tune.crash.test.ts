/**
 * A study survives its worker: the worker process is SIGKILLed in the middle of a trial, while LLM
 * calls are in flight, and a new worker finishes the study with exactly the result of an
 * uninterrupted study, asking the LLM again only for calls that had not finished (each retried
 * attempt is one the kill interrupted), and running no sample twice.
 */

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryStudyProgress, startStudy, studyResultOf } from '../src/client/studies';
import type { RunResult } from '../src/run/request';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import type { StudyRequestInput } from '../src/tune/request';
import type { StudyResult } from '../src/tune/results';
import { startWorkerProcess, type WorkerProcess, waitFor } from './support/processes';

let tmp: string;
let llm: SimulatedLlm;
let connection: Connection;
let client: Client;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'got-tune-crash-'));
  llm = await startSimulatedLlm({ latencyMs: 250 });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
});
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.kill()));
  await connection?.close();
  await llm?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function worker(taskQueue: string, cacheDir: string): Promise<WorkerProcess> {
  const w = await startWorkerProcess({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
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
const runResult = (id: string) => client.workflow.getHandle(id).result() as Promise<RunResult>;
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
    const reference = await studyResultOf(
      await startStudy(client, request(), { taskQueue: refQueue, workflowId: `tune-ref-${randomUUID()}` }),
    );
    const referenceRequests = llm.stats().requests;
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

    // Every sample ran once: one execution per run id, each run's calls completed once (Temporal records a result once).
    const ids = runsOf(result);
    expect(new Set(ids).size).toBe(ids.length);
    const runs = await Promise.all(ids.map(runResult));
    const retried = runs.flatMap((r) => r.grs.calls.filter((c) => c.attempt > 1));
    const extraAttempts = retried.reduce((a, c) => a + c.attempt - 1, 0);
    // The kill interrupted calls, and only those were asked again: no finished call was paid twice.
    expect(retried.length).toBeGreaterThanOrEqual(1);
    expect(crashRequests).toBeGreaterThanOrEqual(referenceRequests);
    expect(crashRequests).toBeLessThanOrEqual(referenceRequests + extraAttempts);

    console.log(
      `[tune crash] reference ${referenceRequests} requests; killed after ${atKill.trialsDone} of 3 trials with ${atKill.inFlight} calls in flight; ` +
        `crash study ${crashRequests} requests, ${retried.length} calls retried (${extraAttempts} extra attempts); test ${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
  }, 300_000);
});
