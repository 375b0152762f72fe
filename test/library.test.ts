import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
// Only the package's public entry point, by its published name: what an embedding service sees.
import {
  bestThought,
  createGotWorker,
  GooBuilder,
  getTask,
  inspectRun,
  resultOf,
  type SimulatedLlm,
  startRun,
  startSimulatedLlm,
  toMermaid,
  validateGoO,
} from 'durable-got';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

let llm: SimulatedLlm;
let stop: () => Promise<void>;
let client: Client;
const taskQueue = `library-${randomUUID()}`;

beforeAll(async () => {
  const address = inject('temporalAddress');
  llm = await startSimulatedLlm();
  const native = await NativeConnection.connect({ address });
  const worker = await createGotWorker({ connection: native, taskQueue, llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true } });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  client = new Client({ connection });
  stop = async () => {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    await llm.close();
  };
});
afterAll(async () => stop?.());

describe('the library API (public exports only)', () => {
  it('builds a GoO, runs it, awaits it and inspects it', async () => {
    // A small ToT-like scheme written by the embedding service itself.
    const b = new GooBuilder();
    const first = b.keepBestN(b.score(b.generate(null, { prompt: 'sort', k: 4 })), { n: 1, higherIsBetter: false });
    const better = b.keepBestN(b.score([b.generate(first, { prompt: 'improve', k: 4 }), first]), {
      n: 1,
      higherIsBetter: false,
      id: 'best',
    });
    b.groundTruth(better);
    const goo = b.build();
    expect(validateGoO(goo).sinks).toEqual(['groundtruth-1']);

    const problem = getTask('sorting').generateProblem(24, 3);
    const handle = await startRun(client, { task: 'sorting', problem: problem as never, goo, labels: { scheme: 'mine' } }, { taskQueue });
    const result = await resultOf(handle);
    expect(result.best?.score).toBeTypeOf('number');
    expect(result.grs.calls).toHaveLength(2);

    const { grs } = await inspectRun(client, handle.workflowId);
    expect(grs).toEqual(result.grs);
    expect(bestThought(grs, false)?.id).toBe(result.best!.id);
    expect(toMermaid(grs, result.best!.id)).toContain('flowchart TD');
  });
});
