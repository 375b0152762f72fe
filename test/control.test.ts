import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryGrs, queryProgress, resultOf, startRun } from '../src/client/runs';
import { GooBuilder } from '../src/goo/builder';
import type { GoO, Scorer } from '../src/goo/schema';
import type { Grs, Thought } from '../src/grs/types';
import { inspectRun } from '../src/inspect/rebuild';
import { keepBestN } from '../src/operations/filters';
import type { HumanScores, RunRequestInput } from '../src/run/request';
import { GOT_SEARCH_ATTRIBUTES } from '../src/run/search-attributes';
import { type SortingProblem, sortingTask } from '../src/tasks/sorting';
import { bundleGotWorkflows } from '../worker/create';
import { pendingHumanScoresQuery, scoreThoughtsUpdate } from '../workflows/definitions';
import { type Harness, startHarness } from './support/harness';

/**
 * Controlling a running Controller from outside: cancelling it (the partial GRS survives), and
 * Score operations whose scores come from a person through the validated `scoreThoughts` update.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const SLOW_MS = 1500;
let h: Harness;
let bundle: Awaited<ReturnType<typeof bundleGotWorkflows>>;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: SLOW_MS } });
  bundle = await bundleGotWorkflows();
});
afterAll(async () => h?.close());

/** Polls `probe` until it returns a value (not undefined), failing after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const events = async (handle: WorkflowHandle): Promise<HistoryEvent[]> => (await handle.fetchHistory()).events ?? [];
const num = (id: unknown) => Number(String(id));
const statusOf = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(GOT_SEARCH_ATTRIBUTES.status);
const workflowId = (name: string) => `control-${name}-${randomUUID()}`;

describe('cancelling a run', () => {
  it('cancels the running LLM calls, ends as cancelled and keeps the partial GRS', async () => {
    h.llm.setLatency(SLOW_MS);
    h.llm.resetStats();
    const problem = sortingTask.generateProblem(64, 5);
    const goo = sortingTask.schemes.got!({ size: 64 });
    const handle = await startRun(
      h.client,
      { task: 'sorting', problem, goo, labels: { scheme: 'got', size: 64 } },
      { taskQueue: h.taskQueue, workflowId: workflowId('cancel') },
    );

    // The split has answered and the four part sorts are at the LLM.
    await until('a completed activity and LLM calls in flight', async () => {
      const history = await events(handle);
      return history.some((e) => e.activityTaskCompletedEventAttributes) && h.llm.stats().inFlight > 0 ? true : undefined;
    });
    expect(await statusOf(handle)).toBe('running');
    await handle.cancel();

    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);

    // Every LLM call that had not answered was asked to stop; none answered after the cancellation.
    const history = await events(handle);
    expect(history.at(-1)!.workflowExecutionCanceledEventAttributes).toBeTruthy();
    const scheduled = history.filter((e) => e.activityTaskScheduledEventAttributes);
    const completed = new Set(
      history
        .filter((e) => e.activityTaskCompletedEventAttributes)
        .map((e) => num(e.activityTaskCompletedEventAttributes!.scheduledEventId)),
    );
    const cancelRequested = new Set(
      history
        .filter((e) => e.activityTaskCancelRequestedEventAttributes)
        .map((e) => num(e.activityTaskCancelRequestedEventAttributes!.scheduledEventId)),
    );
    const unfinished = scheduled.map((e) => num(e.eventId)).filter((id) => !completed.has(id));
    expect(completed.size).toBeGreaterThanOrEqual(1);
    expect(unfinished.length).toBeGreaterThanOrEqual(1);
    expect([...cancelRequested].sort()).toEqual(unfinished.sort());
    const cancelIndex = history.findIndex((e) => e.workflowExecutionCancelRequestedEventAttributes);
    expect(cancelIndex).toBeGreaterThan(0);
    expect(history.slice(cancelIndex).some((e) => e.activityTaskScheduledEventAttributes || e.activityTaskCompletedEventAttributes)).toBe(
      false,
    );

    // The simulated LLM is idle again soon, and it never got a request the history does not account for.
    await until('the LLM to be idle', () => (h.llm.stats().inFlight === 0 ? true : undefined), 15_000);
    expect(h.llm.stats().requests).toBe(scheduled.length);

    // The partial GRS: the query (answered by replaying the closed run) and the GRS rebuilt from history agree.
    const grs = await queryGrs(handle);
    const { grs: rebuilt } = await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle });
    expect(rebuilt).toEqual(grs);
    const op = (id: string) => grs.operations.find((o) => o.id === id)!;
    expect(op('split').status).toBe('done');
    expect(grs.calls.map((c) => c.operationId)).toEqual(['split']);
    expect(grs.thoughts.filter((t) => t.operationId === 'split')).toHaveLength(4);
    for (let i = 0; i < 4; i++) expect(op(`part-${i}`).status).toBe('done');
    const sorts = goo.operations.filter((o) => o.type === 'generate' && o.inputs[0]?.startsWith('part-')).map((o) => o.id);
    expect(sorts).toHaveLength(4);
    for (const id of sorts) expect(op(id)).toMatchObject({ status: 'cancelled', note: 'the run was cancelled', outputThoughts: [] });
    // Nothing after the sorts ever started.
    const started = new Set(['split', 'part-0', 'part-1', 'part-2', 'part-3', ...sorts]);
    for (const o of grs.operations.filter((o) => !started.has(o.id))) expect(o.status, o.id).toBe('pending');

    expect(await until('GotStatus to be cancelled', async () => ((await statusOf(handle)) === 'cancelled' ? 'cancelled' : undefined))).toBe(
      'cancelled',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Human Score operations

const PROBLEM: SortingProblem = sortingTask.generateProblem(32, 9);

/** Three sortings, scored by a person, the best kept (lower is better, like the task's error count). */
function humanGoo(scorer: Extract<Scorer, { kind: 'human' }>): GoO {
  const b = new GooBuilder();
  const rated = b.score(b.generate(null, { prompt: 'sort', k: 3, id: 'sort' }), { id: 'rate' });
  b.keepBestN(rated, { n: 1, higherIsBetter: false, id: 'best' });
  const goo = b.build();
  // The builder writes local and LLM scorers only: the human Score operation is written as data.
  return { ...goo, operations: goo.operations.map((o) => (o.id === 'rate' ? { id: 'rate', type: 'score', inputs: ['sort'], scorer } : o)) };
}

const humanRun = (scorer: Extract<Scorer, { kind: 'human' }>): RunRequestInput => ({
  task: 'sorting',
  problem: PROBLEM,
  goo: humanGoo(scorer),
  labels: { scheme: 'human', size: 32 },
});

const pendingOf = async (handle: WorkflowHandle, operationId = 'rate') =>
  (await handle.query(pendingHumanScoresQuery)).find((p) => p.operationId === operationId);
const waitForPending = (handle: WorkflowHandle) => until('the human Score operation to wait', () => pendingOf(handle));
const sendScores = (handle: WorkflowHandle, scores: HumanScores) => handle.executeUpdate(scoreThoughtsUpdate, { args: [scores] });
const localScore = (state: Record<string, unknown>) => sortingTask.score!(state, PROBLEM);
const thoughtsOf = (grs: Grs, ids: string[]) => ids.map((id) => grs.thoughts.find((t) => t.id === id)!);

describe('a Score operation scored by a person', () => {
  beforeAll(() => h.llm.setLatency(20));

  it('waits for the scoreThoughts update, refuses invalid ones, and keeps the thought the person rated best', async () => {
    const handle = await startRun(h.client, humanRun({ kind: 'human', timeoutSeconds: 60, fallback: 'local' }), {
      taskQueue: h.taskQueue,
      workflowId: workflowId('human'),
    });
    const pending = await waitForPending(handle);
    const ids = pending.thoughts.map((t) => t.id);
    expect(ids).toEqual(['sort/0.0', 'sort/0.1', 'sort/0.2']);
    expect(pending.deadline).toBeGreaterThan(Date.now() + 30_000);
    expect((await queryProgress(handle)).awaitingHumanScores).toEqual(['rate']);
    expect((await queryProgress(handle)).running).toEqual(['rate']);

    // The person prefers the sorting the task's own score likes least (last one on ties), so the choice is visibly theirs.
    const local = pending.thoughts.map((t) => localScore(t.state));
    const favourite = ids[local.lastIndexOf(Math.max(...local))]!;
    const asThoughts = (scores: number[]): Thought[] =>
      ids.map((id, i) => ({ id, operationId: 'sort', parents: [], state: {}, valid: true, score: scores[i]! }));
    expect(keepBestN(asThoughts(local), 1, false)[0]!.id).not.toBe(favourite);
    const scores = Object.fromEntries(ids.map((id, i) => [id, id === favourite ? 0 : 5 + i]));

    // Refused updates: the sender gets the reason, the run goes on waiting.
    const { [ids[1]!]: _dropped, ...missingOne } = scores;
    const invalid: [string, HumanScores, RegExp][] = [
      ['an unknown operation', { operationId: 'nope', scores, by: 'tester' }, /"nope" is not waiting for human scores \(waiting: rate\)/],
      [
        'a missing thought',
        { operationId: 'rate', scores: missingOne, by: 'tester' },
        new RegExp(`scores missing for: ${ids[1]!.replace('.', '\\.')}`),
      ],
      [
        'an extra thought',
        { operationId: 'rate', scores: { ...scores, 'sort/0.9': 1 }, by: 'tester' },
        /not thoughts of "rate": sort\/0\.9/,
      ],
      [
        'a score that is not a number',
        { operationId: 'rate', scores: { ...scores, [ids[0]!]: Number.NaN }, by: 'tester' },
        /invalid scores: scores\.sort\/0\.0/,
      ],
      [
        'an infinite score',
        { operationId: 'rate', scores: { ...scores, [ids[2]!]: Number.POSITIVE_INFINITY }, by: 'tester' },
        /invalid scores: scores\.sort\/0\.2/,
      ],
    ];
    for (const [what, update, reason] of invalid) {
      const error = await sendScores(handle, update).catch((e: unknown) => e);
      expect(error, what).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(((error as WorkflowUpdateFailedError).cause as Error).message, what).toMatch(reason);
    }
    expect((await pendingOf(handle))?.thoughts.map((t) => t.id)).toEqual(ids);

    expect(await sendScores(handle, { operationId: 'rate', scores, by: 'tester' })).toEqual({ accepted: 3 });
    const result = await resultOf(handle);

    const rate = result.grs.operations.find((o) => o.id === 'rate')!;
    expect(rate).toMatchObject({ status: 'done', note: 'scored by tester', inputThoughts: ids, outputThoughts: ids });
    expect(Object.fromEntries(thoughtsOf(result.grs, ids).map((t) => [t.id, t.score]))).toEqual(scores);
    expect(result.final.map((t) => t.id)).toEqual([favourite]);
    expect(result.grs.operations.find((o) => o.id === 'best')!.outputThoughts).toEqual([favourite]);
    expect((await queryProgress(handle)).awaitingHumanScores).toEqual([]);
    expect(await pendingOf(handle)).toBeUndefined();

    // Only the valid update entered history; the refused ones left no trace.
    const history = await events(handle);
    const accepted = history.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(1);
    expect(history.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes)).toHaveLength(1);
    expect(history.some((e) => e.workflowExecutionUpdateRejectedEventAttributes)).toBe(false);

    // A late update finds nothing waiting.
    const late = await sendScores(handle, { operationId: 'rate', scores, by: 'tester' }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(Error);

    // The GRS rebuilt from history is the one the run returned, human scores included.
    const { grs } = await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle });
    expect(grs).toEqual(result.grs);
    expect(await statusOf(handle)).toBe('completed');
  });

  it('is cancelled while it waits for a person, keeping what was done before', async () => {
    const handle = await startRun(h.client, humanRun({ kind: 'human', timeoutSeconds: 600, fallback: 'local' }), {
      taskQueue: h.taskQueue,
      workflowId: workflowId('human-cancel'),
    });
    const pending = await waitForPending(handle);
    await handle.cancel();
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const grs = await queryGrs(handle);
    const op = (id: string) => grs.operations.find((o) => o.id === id)!;
    expect(op('sort')).toMatchObject({ status: 'done', outputThoughts: pending.thoughts.map((t) => t.id) });
    expect(op('rate')).toMatchObject({ status: 'cancelled', note: 'the run was cancelled' });
    expect(op('best').status).toBe('pending');
    for (const t of thoughtsOf(
      grs,
      pending.thoughts.map((t) => t.id),
    ))
      expect(t.score, t.id).toBeUndefined();
    expect(await handle.query(pendingHumanScoresQuery)).toEqual([]);
    const { grs: rebuilt } = await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle });
    expect(rebuilt).toEqual(grs);
    expect(await until('GotStatus to be cancelled', async () => ((await statusOf(handle)) === 'cancelled' ? 'cancelled' : undefined))).toBe(
      'cancelled',
    );
    // The wait's timer went with it: nothing is left to fire in ten minutes.
    const history = await events(handle);
    expect(history.some((e) => e.timerCanceledEventAttributes)).toBe(true);
  });

  it("falls back to the task's local score when nobody scores in time", async () => {
    const handle = await startRun(h.client, humanRun({ kind: 'human', timeoutSeconds: 2, fallback: 'local' }), {
      taskQueue: h.taskQueue,
      workflowId: workflowId('human-timeout-local'),
    });
    const pending = await waitForPending(handle);
    expect((await queryProgress(handle)).awaitingHumanScores).toEqual(['rate']);
    const result = await resultOf(handle);
    const rate = result.grs.operations.find((o) => o.id === 'rate')!;
    expect(rate.note).toBe('no human scores within 2s: scored locally');
    const thoughts = thoughtsOf(
      result.grs,
      pending.thoughts.map((t) => t.id),
    );
    expect(thoughts.map((t) => t.score)).toEqual(thoughts.map((t) => localScore(t.state)));
    expect(result.final.map((t) => t.id)).toEqual(keepBestN(thoughts, 1, false).map((t) => t.id));
    // The timer, not an update, ended the wait.
    const history = await events(handle);
    expect(history.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);
    expect(history.some((e) => e.timerFiredEventAttributes)).toBe(true);
  });

  it('leaves the thoughts unscored when the fallback says so', async () => {
    const handle = await startRun(h.client, humanRun({ kind: 'human', timeoutSeconds: 2, fallback: 'unscored' }), {
      taskQueue: h.taskQueue,
      workflowId: workflowId('human-timeout-unscored'),
    });
    const pending = await waitForPending(handle);
    expect((await queryProgress(handle)).awaitingHumanScores).toEqual(['rate']);
    const result = await resultOf(handle);
    const rate = result.grs.operations.find((o) => o.id === 'rate')!;
    expect(rate.note).toBe('no human scores within 2s: left unscored');
    const thoughts = thoughtsOf(
      result.grs,
      pending.thoughts.map((t) => t.id),
    );
    expect(thoughts).toHaveLength(3);
    for (const t of thoughts) expect(t.score, t.id).toBeUndefined();
    // With nothing scored, Keep keeps input order.
    expect(result.final.map((t) => t.id)).toEqual(['sort/0.0']);
    expect(result.best).toBeUndefined();
  });
});
