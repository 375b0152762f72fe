import { setTimeout as sleep } from 'node:timers/promises';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { queryProgress, resultOf, startRun } from '../src/client/runs';
import { steerRun } from '../src/client/steer';
import { GooBuilder } from '../src/goo/builder';
import { toHtml } from '../src/grs/html';
import { rebuildGrs } from '../src/inspect/rebuild';
import type { Progress, RunRequestInput } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import { bundleGotWorkflows, createGotWorker } from '../worker/create';
import { type Harness, startHarness } from './support/harness';

/** Each call of the simulated LLM takes this long, so a GoT run on 64 numbers has levels of calls to steer between. */
const LATENCY_MS = 400;
let h: Harness;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [h, bundle] = await Promise.all([startHarness({ llm: { latencyMs: LATENCY_MS } }), bundleGotWorkflows()]);
});
afterAll(async () => h?.close());

const gotRun = (): RunRequestInput => ({
  task: 'sorting',
  problem: sortingTask.generateProblem(64, 11),
  goo: sortingTask.schemes.got!({ size: 64 }),
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; !(await check()); waited += 50) {
    if (waited > 30_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('steering a running run (decision 100)', () => {
  it('pauses new LLM calls while calls in flight finish, takes a new budget, resumes, and records who asked', async () => {
    h.llm.resetStats();
    const handle = await startRun(h.client, gotRun(), { taskQueue: h.taskQueue });
    await until(async () => (await queryProgress(handle)).llmCalls >= 1, 'the first call');

    expect(await steerRun(handle, { action: 'pause', by: 'Ann', reason: 'checking the split' })).toMatchObject({ paused: true });
    await expect(steerRun(handle, { action: 'pause' })).rejects.toThrow('the run is paused already');

    // The calls started before the pause finish; none starts after it.
    await sleep(3 * LATENCY_MS);
    const held = h.llm.stats().requests;
    let progress: Progress = await queryProgress(handle);
    await sleep(4 * LATENCY_MS);
    expect(h.llm.stats().requests).toBe(held);
    progress = await queryProgress(handle);
    expect(progress).toMatchObject({ paused: true, llmCalls: held });
    expect(progress.operationsDone).toBeLessThan(progress.operationsTotal);

    const used = progress.promptTokens + progress.completionTokens;
    await expect(steerRun(handle, { action: 'budget', budget: { maxTokens: used } })).rejects.toThrow(
      `budget.maxTokens ${used} is not above the tokens the run has used (${used})`,
    );
    expect(await steerRun(handle, { action: 'budget', budget: { maxTokens: 10 * used + 100_000 }, by: 'Ann' })).toEqual({
      paused: true,
      budget: { maxTokens: 10 * used + 100_000 },
    });
    expect(await steerRun(handle, { action: 'resume', by: 'Ann' })).toMatchObject({ paused: false });

    const result = await resultOf(handle);
    // The whole graph ran: the same 11 calls as a run nobody steered.
    expect(result.grs.calls).toHaveLength(11);
    expect(result.grs.operations.every((o) => o.status === 'done')).toBe(true);
    expect(result.grs.steering?.map((s) => [s.action, s.by])).toEqual([
      ['pause', 'Ann'],
      ['budget', 'Ann'],
      ['resume', 'Ann'],
    ]);
    // Every call that started after the pause started after the resume.
    const [pausedAt, , resumedAt] = result.grs.steering!.map((s) => s.at);
    const startedWhilePaused = result.grs.calls.filter((c) => c.startedAt > pausedAt! + 50 && c.startedAt < resumedAt!);
    expect(startedWhilePaused).toEqual([]);
    await expect(steerRun(handle, { action: 'resume' })).rejects.toThrow();
    // The run's page names each steer and who asked.
    const page = toHtml(result.grs, { title: 'steered' });
    expect(page).toContain('paused: no new LLM call starts until it is resumed by Ann (checking the split)');
    expect(page).toContain('resumed by Ann');

    // Steered histories replay and rebuild the same GRS, steers included.
    const history = await handle.fetchHistory();
    const noSinks = { grsReplay: { fact: { fn: () => undefined, callDuringReplay: false } } };
    await Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'steered', sinks: noSinks }, history);
    expect(await rebuildGrs(history, { workflowBundle: bundle })).toEqual(result.grs);
  });

  it('stops at a budget lowered during the run, as at a budget set at its start', async () => {
    const handle = await startRun(h.client, gotRun(), { taskQueue: h.taskQueue });
    await until(async () => (await queryProgress(handle)).llmCalls >= 1, 'the first call');
    const p = await queryProgress(handle);
    await steerRun(handle, { action: 'budget', budget: { maxTokens: p.promptTokens + p.completionTokens + 1 } });
    const result = await resultOf(handle);
    expect(result.grs.budgetExhausted).toBe(true);
    expect(result.grs.calls.length).toBeLessThan(11);
    await expect(steerRun(handle, { action: 'pause' })).rejects.toThrow();
  });

  it('keeps a pause across the worker going away: a new worker rebuilds the paused run from history and holds it', async () => {
    const taskQueue = `steer-restart-${Date.now()}`;
    const worker = () =>
      NativeConnection.connect({ address: inject('temporalAddress') }).then(async (connection) => {
        const w = await createGotWorker({
          connection,
          taskQueue,
          llm: { baseURL: h.llm.baseURL, apiKey: 'sim', supportsN: true },
          workflowBundle: bundle,
        });
        return { w, running: w.run(), connection };
      });
    const first = await worker();
    const handle = await startRun(h.client, gotRun(), { taskQueue });
    await until(async () => (await queryProgress(handle)).llmCalls >= 1, 'the first call');
    await steerRun(handle, { action: 'pause', by: 'Ann' });
    await sleep(3 * LATENCY_MS);
    const before = (await queryProgress(handle)).llmCalls;
    first.w.shutdown();
    await first.running;
    await first.connection.close();

    // A new worker (no cache: it replays the history, the pause included) serves the run and holds it.
    const second = await worker();
    try {
      await sleep(4 * LATENCY_MS);
      expect(await queryProgress(handle)).toMatchObject({ paused: true, llmCalls: before });
      await steerRun(handle, { action: 'resume', by: 'Ann' });
      const result = await resultOf(handle);
      expect(result.grs.calls).toHaveLength(11);
      expect(result.grs.steering?.map((s) => s.action)).toEqual(['pause', 'resume']);
    } finally {
      second.w.shutdown();
      await second.running;
      await second.connection.close();
    }
  });

  it('holds the calls of the child workflows running its parts too, and lets them go on resume (decision 104)', async () => {
    const b = new GooBuilder();
    const split = b.generate(null, { id: 'split', prompt: 'split', params: { parts: 4 } });
    const lower = { higherIsBetter: false } as const;
    const parts = b.forEach(split, {
      id: 'parts',
      parts: 'each',
      maxParts: 8,
      body: (bb) => {
        const best = bb.keepBestN(bb.score(bb.generate(null, { id: 'sort', prompt: 'sort', k: 2 })), { id: 'best', n: 1, ...lower });
        const kept = bb.keepBestN(bb.score(bb.improve(best, { id: 'improve', prompt: 'improve' })), { id: 'kept', n: 1, ...lower });
        bb.improve(kept, { id: 'again', prompt: 'improve' });
      },
    });
    b.keepBestN(b.score(b.aggregate(parts, { id: 'merge', prompt: 'merge' })), { id: 'final', n: 1, ...lower });
    h.llm.resetStats();
    // Slow calls here: the pause must reach the children (a workflow task of the run, a signal, one of each child) while they are still sorting.
    const slow = 2000;
    h.llm.setLatency(slow);
    onTestFinished(() => h.llm.setLatency(LATENCY_MS));
    const handle = await startRun(
      h.client,
      { task: 'sorting', problem: sortingTask.generateProblem(32, 4), goo: b.build(), children: { maxCalls: 3 } },
      { taskQueue: h.taskQueue },
    );
    await until(
      async () => ((await queryProgress(handle)).children?.length ?? 0) > 0 && h.llm.stats().inFlight > 0,
      'parts running in children',
    );
    await steerRun(handle, { action: 'pause', by: 'Ann' });
    // The children's calls in flight finish; none starts after, in the run or in a child.
    await sleep(1.5 * slow);
    const held = h.llm.stats().requests;
    await sleep(1.5 * slow);
    expect(h.llm.stats().requests).toBe(held);
    // Each part sorts, then improves twice: what was not in flight at the pause waits in the children (1 split + 4 × 3 calls in all).
    expect(held).toBeLessThan(13);
    expect((await queryProgress(handle)).children?.length).toBeGreaterThan(0);
    await steerRun(handle, { action: 'resume', by: 'Ann' });
    const result = await resultOf(handle);
    expect(result.grs.operations.every((o) => o.status === 'done')).toBe(true);
    expect(result.grs.calls.filter((c) => c.operationId.endsWith('.again'))).toHaveLength(4);
  }, 120_000);

  it('refuses a steer with a reason naming the field, and records nothing', async () => {
    const handle = await startRun(h.client, gotRun(), { taskQueue: h.taskQueue });
    await until(async () => (await queryProgress(handle)).llmCalls >= 1, 'the first call');
    await expect(steerRun(handle, { action: 'stop' } as never)).rejects.toThrow(
      /^action: expected "pause", "resume", "budget", "prune", "instruct" or "add"/,
    );
    await expect(steerRun(handle, { action: 'resume' })).rejects.toThrow('the run is not paused');
    const result = await resultOf(handle);
    expect(result.grs.steering).toBeUndefined();
    expect(result.grs.calls).toHaveLength(11);
  });
});
