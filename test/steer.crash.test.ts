/**
 * A worker SIGKILLed between a steer and its effect (issue 41): the update was accepted and is in
 * history, the operations it adds or prunes had not run yet. A new worker rebuilds the run from
 * history and carries the steer out: nothing is lost and nothing is asked twice.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, WorkflowUpdateStage } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import type { GoO } from '../src/goo/schema';
import { UPDATE } from '../src/run/wire';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import type { SteerRequest } from '../src/steering/types';
import { sortingTask } from '../src/tasks/sorting';
import { startWorkerProcess, type WorkerProcess } from './support/processes';

let llm: SimulatedLlm;
let connection: Connection;
let client: Client;
let tmp: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  // Calls slow enough for a steer to land while the first one is still being answered.
  llm = await startSimulatedLlm({ latencyMs: 1500 });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  // As the worker process's: large payloads (the run's result) are kept in the store the environment names.
  client = new Client({ connection, dataConverter: dataConverterFromEnv() });
  tmp = await mkdtemp(join(tmpdir(), 'got-steer-crash-'));
});
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.kill()));
  await connection?.close();
  await llm?.close();
  await rm(tmp, { recursive: true, force: true });
});

async function worker(taskQueue: string): Promise<WorkerProcess> {
  const w = await startWorkerProcess({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    GOT_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: llm.baseURL,
    GOT_CACHE_DIR: join(tmp, taskQueue),
  });
  workers.push(w);
  return w;
}

const BRANCHES: GoO = {
  version: 1,
  operations: [
    { id: 'gen', type: 'generate', prompt: 'sort', k: 2, inputs: [] },
    { id: 'fix', type: 'improve', prompt: 'improve', inputs: ['gen'] },
    { id: 'best', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['gen', 'fix'] },
  ],
} as GoO;

describe('a worker SIGKILLed between a steer and its effect', () => {
  it('a new worker carries out the accepted prune and added round: the pruned step never runs, the added ones do', async () => {
    const queue = `steer-crash-${randomUUID()}`;
    const first = await worker(queue);
    const handle = await startRun(
      client,
      { task: 'sorting', problem: sortingTask.generateProblem(16, 7), goo: BRANCHES },
      { taskQueue: queue },
    );
    const steer = (s: SteerRequest) => handle.startUpdate(UPDATE.steer, { args: [s], waitForStage: WorkflowUpdateStage.ACCEPTED });
    // Refused while the run is still checking its request: asked again until it runs.
    for (let i = 0; ; i++) {
      try {
        await (await steer({ action: 'prune', operation: 'fix', by: 'Ann' })).result();
        break;
      } catch (error) {
        if (i > 200 || !/still checking/.test(String((error as Error).cause ?? error))) throw error;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const round = [
      { id: 'polish', type: 'improve', prompt: 'improve', inputs: ['best'] },
      { id: 'final', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['best', 'polish'] },
    ] as Extract<SteerRequest, { action: 'add' }>['operations'];
    // Accepted (in history), then the worker dies before the round is checked and joined.
    await steer({ action: 'add', operations: round, by: 'Ann' });
    process.kill(first.pid, 'SIGKILL');
    expect(await first.exit).toEqual({ code: null, signal: 'SIGKILL' });

    await worker(queue);
    const result = await resultOf(handle);
    expect(result.grs.operations.find((o) => o.id === 'fix')).toMatchObject({ status: 'skipped', note: 'pruned by Ann' });
    expect(result.grs.finalOperations).toEqual(['final']);
    expect(result.grs.operations.find((o) => o.id === 'polish')?.status).toBe('done');
    expect(result.grs.calls.map((c) => c.operationId).sort()).toEqual(['gen', 'polish']);
    expect(result.grs.steering?.map((s) => s.action)).toEqual(['prune', 'add']);
  }, 180_000);
});
