import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { SteerRefusedError, steerRun } from '../src/client/steer';
import { INSTRUCTIONS_HEADING } from '../src/fork/prompt';
import type { GoO } from '../src/goo/schema';
import type { Grs } from '../src/grs/types';
import { rebuildGrs } from '../src/inspect/rebuild';
import type { RunRequestInput } from '../src/run/request';
import { QUERY } from '../src/run/wire';
import type { SteerRequest } from '../src/steering/types';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarnessBehindProxy } from './support/harness';
import type { ProviderProxy } from './support/provider-proxy';

/** Each simulated call takes this long: steps wait long enough to be steered before they start. */
const LATENCY_MS = 1500;
let h: Harness;
let proxy: ProviderProxy;

beforeAll(async () => {
  // Every request the worker sends passes a proxy that keeps its body: what was asked, with which prompt.
  ({ h, proxy } = await startHarnessBehindProxy({ llm: { latencyMs: LATENCY_MS } }));
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
});

/** Two sortings; one branch improves them, the other only scores them; the best of both is the answer. */
const BRANCHES: GoO = {
  version: 1,
  operations: [
    { id: 'gen', type: 'generate', prompt: 'sort', k: 2, inputs: [] },
    { id: 'fix', type: 'improve', prompt: 'improve', inputs: ['gen'] },
    { id: 'score-fix', type: 'score', inputs: ['fix'] },
    { id: 'score-gen', type: 'score', inputs: ['gen'] },
    { id: 'best', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['score-fix', 'score-gen'] },
  ],
} as GoO;

const request = (): RunRequestInput => ({ task: 'sorting', problem: sortingTask.generateProblem(16, 2), goo: BRANCHES });

/** A steer sent again while the run is still checking its request (refused until it runs). */
async function steerOnceRunning(handle: Parameters<typeof steerRun>[0], steer: SteerRequest) {
  for (let i = 0; ; i++) {
    try {
      return await steerRun(handle, steer);
    } catch (error) {
      if (!(error instanceof SteerRefusedError) || !/still checking/.test(error.message) || i > 100) throw error;
      await sleep(50);
    }
  }
}

async function untilDone(handle: Parameters<typeof steerRun>[0], operation: string): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    const grs = await handle.query<Grs>(QUERY.grs);
    if (grs.operations.find((o) => o.id === operation)?.status === 'done') return;
    if (waited > 30_000) throw new Error(`timed out waiting for ${operation}`);
    await sleep(50);
  }
}

describe('pruning and instructing a running run (decision 103)', () => {
  it('prunes a branch and a thought before they are read, refuses what would leave nothing, and records who asked', async () => {
    const handle = await startRun(h.client, request(), { taskQueue: h.taskQueue });
    // gen is done, fix is asking the model; score-fix and best wait for it.
    await untilDone(handle, 'gen');
    await expect(steerRun(handle, { action: 'prune', operation: 'fix' })).rejects.toThrow('operation "fix" has started');
    await steerRun(handle, { action: 'prune', operation: 'score-fix', by: 'Ann', reason: 'the first scores are enough' });
    await expect(steerRun(handle, { action: 'prune', operation: 'score-fix' })).rejects.toThrow('operation "score-fix" is pruned already');
    await expect(steerRun(handle, { action: 'prune', operation: 'best' })).rejects.toThrow(/leaves the run nothing to answer with/);
    await expect(steerRun(handle, { action: 'prune', operation: 'nope' })).rejects.toThrow('operation: the run has no operation "nope"');
    // gen's thoughts reach best through score-gen; best has not started.
    await steerRun(handle, { action: 'prune', thought: 'gen/0.0', by: 'Ann' });
    await expect(steerRun(handle, { action: 'prune', thought: 'gen/0.1' })).rejects.toThrow(/leaves the run nothing/);

    const result = await resultOf(handle);
    const pruned = result.grs.operations.find((o) => o.id === 'score-fix')!;
    expect(pruned).toMatchObject({ status: 'skipped', note: 'pruned by Ann (the first scores are enough)', outputThoughts: [] });
    expect(result.grs.operations.find((o) => o.id === 'best')!.inputThoughts).toEqual(['gen/0.1']);
    expect(result.best?.id).toBe('gen/0.1');
    expect(result.grs.steering?.map((s) => s.action)).toEqual(['prune', 'prune']);
    expect(await rebuildGrs(await handle.fetchHistory(), { workflowId: handle.workflowId })).toEqual(result.grs);
  }, 120_000);

  it("adds a reviewer's instructions to the steps of an operation that has not started, and refuses one that ended", async () => {
    const handle = await startRun(h.client, request(), { taskQueue: h.taskQueue });
    const instruction = 'List every number once, smallest first.';
    const sent = proxy.bodies.length;
    await steerOnceRunning(handle, { action: 'instruct', operation: 'fix', text: instruction, by: 'Ann' });
    await untilDone(handle, 'gen');
    await expect(steerRun(handle, { action: 'instruct', operation: 'gen', text: 'x' })).rejects.toThrow(/has ended: fork the run/);
    const result = await resultOf(handle);
    const asked = proxy.bodies.slice(sent) as { messages: { content: string }[] }[];
    const instructed = asked.filter((b) => b.messages.some((m) => m.content.includes(`${INSTRUCTIONS_HEADING}\n${instruction}`)));
    expect(asked).toHaveLength(result.grs.calls.length);
    expect(instructed).toHaveLength(result.grs.calls.filter((c) => c.operationId === 'fix').length);
    expect(instructed.length).toBeGreaterThan(0);
  }, 120_000);

  it('adds one more improve round to a running graph, checked as a GoO is, and the answer comes from it', async () => {
    const handle = await startRun(h.client, request(), { taskQueue: h.taskQueue });
    const round = [
      { id: 'polish', type: 'improve', prompt: 'improve', inputs: ['best'] },
      { id: 'score-polish', type: 'score', inputs: ['polish'] },
      { id: 'final', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['best', 'score-polish'] },
    ] as Extract<SteerRequest, { action: 'add' }>['operations'];
    await steerOnceRunning(handle, { action: 'add', operations: round, by: 'Ann', reason: 'one more round' });
    // Refused before anything joins: an id the run has, an input it has not, a type that cannot join, a prompt the task lacks.
    const add = (operations: unknown[]) => steerRun(handle, { action: 'add', operations } as SteerRequest);
    await expect(add([{ id: 'gen', type: 'improve', prompt: 'improve', inputs: ['best'] }])).rejects.toThrow(
      'operations.0.id: the run has an operation "gen" already',
    );
    await expect(add([{ id: 'x', type: 'improve', prompt: 'improve', inputs: ['nowhere'] }])).rejects.toThrow(
      'operations.0.inputs: the run has no operation "nowhere"',
    );
    await expect(add([{ id: 'x', type: 'forEach', inputs: ['best'] }])).rejects.toThrow(/operations\.0\.type: expected one of/);
    await expect(add([{ id: 'x', type: 'improve', prompt: 'polish', inputs: ['best'] }])).rejects.toThrow(/has no prompt "polish"/);

    const result = await resultOf(handle);
    expect(result.grs.finalOperations).toEqual(['final']);
    expect(result.final.map((t) => t.id)).toEqual(result.grs.operations.find((o) => o.id === 'final')?.outputThoughts);
    expect(result.final).toHaveLength(1);
    expect(result.grs.calls.map((c) => c.operationId)).toContain('polish');
    expect(result.grs.operations.find((o) => o.id === 'final')?.status).toBe('done');
    expect(result.grs.steering?.map((s) => s.action)).toEqual(['add']);
    expect(await rebuildGrs(await handle.fetchHistory(), { workflowId: handle.workflowId })).toEqual(result.grs);
  }, 120_000);
});
