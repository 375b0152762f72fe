import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryProgress, resultOf, startRun } from '../src/client/runs';
import { GooBuilder } from '../src/goo/builder';
import type { GoO } from '../src/goo/schema';
import type { Grs } from '../src/grs/types';
import { inspectRun } from '../src/inspect/rebuild';
import type { RunRequestInput } from '../src/run/request';
import { PARTS_WORKFLOW_TYPE, WORKFLOW_TASK_TIMEOUT_SECONDS } from '../src/run/wire';
import { docMergeTask } from '../src/tasks/doc-merge';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { sortingTask } from '../src/tasks/sorting';
import { bundleGotWorkflows } from '../worker/create';
import { type Harness, startHarness } from './support/harness';

/**
 * A forEach whose parts may make more LLM calls than `children.maxCalls` runs them in child
 * workflows (decision 71): the run's answer, thoughts, calls and totals are those of the same run in
 * one history; the children are linked to the run; `inspect` rebuilds the whole GRS from the run's
 * history; a budget holds across the children.
 */

let h: Harness;
let bundle: Awaited<ReturnType<typeof bundleGotWorkflows>>;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: 20 } });
  bundle = await bundleGotWorkflows();
});
afterAll(async () => h?.close());

const LOWER = { higherIsBetter: false } as const;
const problem = sortingTask.generateProblem(32, 4);

/** Sorting split into 4 parts, each sorted (k samples) and improved by a forEach body: 2 calls a part. */
function splitSortImprove(k = 3): GoO {
  const b = new GooBuilder();
  const split = b.generate(null, { id: 'split', prompt: 'split', params: { parts: 4 } });
  const parts = b.forEach(split, {
    id: 'parts',
    parts: 'each',
    maxParts: 8,
    body: (bb) => {
      const best = bb.keepBestN(bb.score(bb.generate(null, { id: 'sort', prompt: 'sort', k }), { id: 'score' }), {
        id: 'best',
        n: 1,
        ...LOWER,
      });
      bb.keepBestN(bb.score(bb.improve(best, { id: 'improve', prompt: 'improve' }), { id: 'score-2' }), { id: 'kept', n: 1, ...LOWER });
    },
  });
  const merged = b.keepBestN(b.score(b.aggregate(parts, { id: 'merge', prompt: 'merge', k: 2 })), { n: 1, ...LOWER, id: 'final' });
  b.groundTruth(merged, { id: 'groundtruth' });
  return b.build();
}

const request = (goo: GoO, extra: Partial<RunRequestInput> = {}): RunRequestInput => ({
  task: 'sorting',
  problem,
  goo,
  labels: { scheme: 'parts-in-children' },
  ...extra,
});
const start = (r: RunRequestInput) => startRun(h.client, r, { taskQueue: h.taskQueue });

/** What a GRS says, without when things happened or the order facts arrived in. */
function content(grs: Grs) {
  const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));
  return {
    thoughts: byId(grs.thoughts),
    operations: byId(grs.operations).map(({ startedAt: _s, endedAt: _e, ...o }) => o),
    calls: byId(grs.calls).map(({ latencyMs: _l, startedAt: _s, finishedAt: _f, ...c }) => c),
    totals: { ...grs.totals, costUsd: Math.round(grs.totals.costUsd * 1e9) },
    finalOperations: grs.finalOperations,
  };
}

describe('a forEach whose parts run in child workflows', () => {
  it('answers as the same run in one history does, with its children linked and its GRS rebuilt from history', async () => {
    const goo = splitSortImprove();
    const alone = await resultOf(await start(request(goo)));
    // 2 calls a part, 4 parts: at most 3 calls a history puts one part in each child.
    const handle = await start(request(goo, { children: { maxCalls: 3 } }));
    const spread = await resultOf(handle);

    expect(spread.best).toEqual(alone.best);
    expect(content(spread.grs)).toEqual(content(alone.grs));
    expect(spread.grs.operations.filter((o) => o.grownBy === 'parts')).toHaveLength(4 * 6);

    // One child per part, each a workflow of its own whose parent is the run.
    for (const part of [0, 1, 2, 3]) {
      const child = await h.client.workflow.getHandle(`${handle.workflowId}.parts.parts[${part}]`).describe();
      expect(child.type).toBe(PARTS_WORKFLOW_TYPE);
      expect(child.status.name).toBe('COMPLETED');
      expect(child.parentExecution?.workflowId).toBe(handle.workflowId);
      // A worker that lost a child's cached state replays it in one workflow task: it gets more than Temporal's 10 s (decision 72).
      expect(Number(child.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(WORKFLOW_TASK_TIMEOUT_SECONDS);
    }
    const run = await handle.describe();
    expect(Number(run.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(WORKFLOW_TASK_TIMEOUT_SECONDS);
    // The run's own history holds no LLM call of the parts: only the split, the merge and its children.
    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).length;
    expect(scheduled).toBe(2);
    const children = (history.events ?? []).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length;
    expect(children).toBe(4);

    expect(await queryProgress(handle)).toMatchObject({ operationsDone: spread.grs.operations.length, running: [] });
    expect((await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle })).grs).toEqual(spread.grs);
  });

  it('batches parts so each child holds at most maxCalls calls', async () => {
    const handle = await start(request(splitSortImprove(), { children: { maxCalls: 5 } }));
    const result = await resultOf(handle);
    expect(result.status).toBe('answered');
    for (const batch of ['parts[0-1]', 'parts[2-3]']) {
      const child = await h.client.workflow.getHandle(`${handle.workflowId}.parts.${batch}`).describe();
      expect(child.status.name).toBe('COMPLETED');
    }
  });

  it('keeps the budget across its children: it overspends by no more than the calls in flight', async () => {
    const goo = splitSortImprove(1);
    const alone = await resultOf(await start(request(goo)));
    const perCall = Math.max(...alone.grs.calls.map((c) => c.usage.promptTokens + c.usage.completionTokens));
    const maxTokens = Math.floor(alone.grs.totals.promptTokens / 2);
    const inFlight = 2;
    const result = await resultOf(
      await start(request(goo, { children: { maxCalls: 2 }, budget: { maxTokens }, llm: { maxConcurrentCalls: inFlight } })),
    );
    const spent = result.grs.totals.promptTokens + result.grs.totals.completionTokens;
    expect(result.grs.budgetExhausted).toBe(true);
    expect(spent).toBeLessThan(alone.grs.totals.promptTokens + alone.grs.totals.completionTokens);
    expect(spent).toBeLessThanOrEqual(maxTokens + inFlight * perCall);
  });

  it('fails the run naming the operation that failed in a child, with what the child did in its GRS', async () => {
    // The split passes, then the endpoint rejects the key (401, never retried) in the first part's child.
    h.llm.injectFaults(['pass', { status: 401, message: 'Incorrect API key provided' }]);
    const handle = await start(request(splitSortImprove(), { children: { maxCalls: 2 }, llm: { maxConcurrentCalls: 1 } }));
    const error = (await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    )) as WorkflowFailedError;
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(String(error.cause?.message)).toMatch(/run failed in operation parts\[0\]\.sort: .*Incorrect API key/);
    const { grs } = await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle });
    expect(grs.operations.find((o) => o.id === 'parts[0].sort')).toMatchObject({ status: 'failed' });
  });

  it('merges a data room section by section across children into the document one history makes', async () => {
    // Four contracts in a 4K window: dozens of section parts; 60 calls a history spreads them over children.
    const room = generateDataRoom(4, 6_000, 3);
    const merge = (extra: Partial<RunRequestInput>): RunRequestInput => ({
      task: 'doc-merge',
      problem: room,
      goo: docMergeTask.schemes.got!({ size: 4, problem: room, contextTokens: 4_000 }),
      llm: { contextTokens: 4_000 },
      labels: { scheme: 'got', size: 4 },
      ...extra,
    });
    const alone = await resultOf(await start(merge({})));
    const handle = await start(merge({ children: { maxCalls: 60 } }));
    const spread = await resultOf(handle);
    expect(spread.best?.state).toEqual(alone.best?.state);
    expect(spread.grs.totals.llmCalls).toBe(alone.grs.totals.llmCalls);
    const history = (await handle.fetchHistory()).events ?? [];
    const children = history.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length;
    expect(children).toBeGreaterThan(1);
    // No child holds more than its share: at most 60 calls, so at most 60 LLM activities.
    for (const e of history.filter((e) => e.childWorkflowExecutionCompletedEventAttributes)) {
      const id = e.childWorkflowExecutionCompletedEventAttributes!.workflowExecution!.workflowId!;
      const events = (await h.client.workflow.getHandle(id).fetchHistory()).events ?? [];
      expect(events.filter((x) => x.activityTaskScheduledEventAttributes).length).toBeLessThanOrEqual(60);
    }
  });

  it('is cancelled with its children: they end cancelled, and so do the run and its forEach', async () => {
    h.llm.setLatency(3_000);
    try {
      const handle = await start(request(splitSortImprove(), { children: { maxCalls: 3 } }));
      const progress = await until(async () => {
        const now = await queryProgress(handle);
        return now.running.some((r) => r.startsWith('parts[')) ? now : undefined;
      });
      // The run names its children running now; the progress the client reads adds what they have done.
      expect(progress.children?.sort()).toEqual([0, 1, 2, 3].map((part) => `${handle.workflowId}.parts.parts[${part}]`));
      expect(progress.running).toEqual(expect.arrayContaining(['parts', 'parts[0]', 'parts[3]']));
      await handle.cancel();
      const error = (await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      )) as WorkflowFailedError;
      expect(error.cause).toBeInstanceOf(CancelledFailure);
      for (const part of [0, 1, 2, 3]) {
        const child = await h.client.workflow.getHandle(`${handle.workflowId}.parts.parts[${part}]`).describe();
        expect(child.status.name).toBe('CANCELLED');
      }
      const { grs } = await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle });
      expect(grs.operations.find((o) => o.id === 'parts')).toMatchObject({ status: 'cancelled' });
      expect(grs.operations.find((o) => o.id === 'parts[0].sort')).toMatchObject({ status: 'cancelled', note: 'the run was cancelled' });
    } finally {
      h.llm.setLatency(20);
    }
  });
});

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
