import { readFileSync } from 'node:fs';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure, defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryGrs, queryProgress, resultOf, startRun } from '../src/client/runs';
import { GooBuilder } from '../src/goo/builder';
import type { GoO, GoOInput } from '../src/goo/schema';
import type { Grs, OperationRecord } from '../src/grs/types';
import { inspectRun } from '../src/inspect/rebuild';
import type { RunRequestInput, RunResult } from '../src/run/request';
import type { TaskDeclarationInput } from '../src/tasks/declarative/schema';
import { docMergeTask } from '../src/tasks/doc-merge';
import { sortingTask } from '../src/tasks/sorting';
import { bundleGotWorkflows } from '../worker/create';
import { pendingHumanScoresQuery, scoreThoughtsUpdate } from '../workflows/definitions';
import { type Harness, startHarness } from './support/harness';
import { nestedChunksSortingGoo } from './support/tasks';

/**
 * forEach on real Temporal: the graph grows while the run goes on, by one copy of the body per part
 * found at run time. The grown operations are ordinary operations to the Controller (LLM calls,
 * filters, budgets, human scores, cancellation), the GRS lists them with their inputs, and
 * `inspect` rebuilds the grown graph from history alone.
 */

const FAST_MS = 20;
let h: Harness;
let bundle: Awaited<ReturnType<typeof bundleGotWorkflows>>;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: FAST_MS } });
  bundle = await bundleGotWorkflows();
});
afterAll(async () => h?.close());

const LOWER = { higherIsBetter: false } as const;
const problem32 = sortingTask.generateProblem(32, 4);

function sortingRun(goo: GoO, extra: Partial<RunRequestInput> = {}): RunRequestInput {
  return { task: 'sorting', problem: problem32, goo, labels: { scheme: 'for-each', size: 32 }, ...extra };
}
const start = (request: RunRequestInput) => startRun(h.client, request, { taskQueue: h.taskQueue });
const run = async (request: RunRequestInput) => resultOf(await start(request));
const op = (grs: Grs, id: string): OperationRecord => {
  const found = grs.operations.find((o) => o.id === id);
  if (!found) throw new Error(`no operation ${id}; the GRS has ${grs.operations.map((o) => o.id).join(', ')}`);
  return found;
};
const grownBy = (grs: Grs, forEach: string) => grs.operations.filter((o) => o.grownBy === forEach);
const thought = (grs: Grs, id: string) => grs.thoughts.find((t) => t.id === id)!;
const failureOf = async (handle: WorkflowHandle) =>
  (await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  )) as WorkflowFailedError;
const expectRebuilt = async (handle: WorkflowHandle, grs: Grs) =>
  expect((await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle })).grs).toEqual(grs);

/** GoT sorting with its LLM split, each part sorted by a forEach body instead of one branch per part. */
function splitThenEachPart(): GoO {
  const b = new GooBuilder();
  const split = b.generate(null, { id: 'split', prompt: 'split', params: { parts: 2 } });
  const sections = b.forEach(split, {
    id: 'sections',
    parts: 'each',
    maxParts: 4,
    body: (bb) => {
      bb.keepBestN(bb.score(bb.generate(null, { id: 'sort', prompt: 'sort', k: 3 }), { id: 'score' }), { id: 'best', n: 1, ...LOWER });
    },
  });
  const merged = b.keepBestN(b.score(b.aggregate(sections, { id: 'merge', prompt: 'merge', k: 3 })), { n: 1, ...LOWER, id: 'final' });
  b.groundTruth(merged, { id: 'groundtruth' });
  return b.build();
}

describe('a forEach over every input thought (parts: "each")', () => {
  it('runs the body once per part under instantiated ids, outputs in part order, and the aggregate merges them', async () => {
    const handle = await start(sortingRun(splitThenEachPart()));
    const result: RunResult = await resultOf(handle);
    const { grs } = result;
    const split = op(grs, 'split').outputThoughts;
    expect(split).toEqual(['split/0.0', 'split/0.1']);

    // Every body operation, once per part, with its inputs renamed into the part.
    expect(grownBy(grs, 'sections').map((o) => [o.id, o.part, o.inputs])).toEqual([
      ['sections[0].sort', 0, []],
      ['sections[0].score', 0, ['sections[0].sort']],
      ['sections[0].best', 0, ['sections[0].score']],
      ['sections[1].sort', 1, []],
      ['sections[1].score', 1, ['sections[1].sort']],
      ['sections[1].best', 1, ['sections[1].score']],
    ]);
    expect(grs.operations.every((o) => o.status === 'done')).toBe(true);
    // Body operations without inputs start from their part's thought.
    expect(op(grs, 'sections[0].sort').inputThoughts).toEqual(['split/0.0']);
    expect(op(grs, 'sections[1].sort').inputThoughts).toEqual(['split/0.1']);
    expect(op(grs, 'sections').parts).toEqual([{ thoughts: ['split/0.0'] }, { thoughts: ['split/0.1'] }]);
    expect(op(grs, 'sections').note).toBe('2 parts');
    // Thoughts and calls are named after the instantiated ids; each part asks its own question (seeds differ).
    expect(thought(grs, 'sections[1].sort/0.2').parents).toEqual(['split/0.1']);
    const sortCalls = grs.calls.filter((c) => c.operationId.endsWith('.sort'));
    expect(sortCalls.map((c) => c.id)).toEqual(expect.arrayContaining(['sections[0].sort/call-0', 'sections[1].sort/call-0']));
    expect(sortCalls.map((c) => c.inputThoughts)).toEqual(expect.arrayContaining([['split/0.0'], ['split/0.1']]));

    // The forEach's output: part 0's best, then part 1's; the merge takes them in that order.
    const outputs = op(grs, 'sections').outputThoughts;
    expect(outputs).toEqual([...op(grs, 'sections[0].best').outputThoughts, ...op(grs, 'sections[1].best').outputThoughts]);
    expect(outputs[0]).toMatch(/^sections\[0\]\.sort\//);
    expect(outputs[1]).toMatch(/^sections\[1\]\.sort\//);
    expect(op(grs, 'merge').inputThoughts).toEqual(outputs);
    expect(thought(grs, 'merge/0.0').parents).toEqual(outputs);
    // The merge starts when the forEach ends, which ends with its last grown operation.
    expect(op(grs, 'sections').endedAt).toBe(Math.max(op(grs, 'sections[0].best').endedAt!, op(grs, 'sections[1].best').endedAt!));
    expect(op(grs, 'merge').startedAt).toBe(op(grs, 'sections').endedAt);
    expect(result.final.map((t) => t.id)).toEqual(op(grs, 'groundtruth').outputThoughts);

    // The progress total grew with the graph: 6 operations declared, 6 grown.
    const progress = await queryProgress(handle);
    expect(progress).toMatchObject({ operationsTotal: 12, operationsDone: 12, running: [] });
    await expectRebuilt(handle, grs);
  });

  it('grows nothing for zero parts: the forEach outputs nothing and its successors run as usual', async () => {
    const b = new GooBuilder();
    const sorted = b.generate(null, { id: 'sort', prompt: 'sort' });
    const none = b.selector(sorted, { id: 'none', where: { part: 99 } });
    const repaired = b.forEach(none, { id: 'repair', parts: 'each', maxParts: 4, body: (bb) => bb.generate(null, { prompt: 'improve' }) });
    b.keepBestN([repaired, sorted], { id: 'best', n: 1, ...LOWER });
    const { grs } = await run(sortingRun(b.build()));
    expect(op(grs, 'repair')).toMatchObject({ status: 'done', inputThoughts: [], outputThoughts: [], parts: [], note: '0 parts' });
    expect(grownBy(grs, 'repair')).toEqual([]);
    expect(op(grs, 'best')).toMatchObject({ status: 'done', outputThoughts: ['sort/0.0'] });
  });

  it('fails the run, naming the operation and the count, when there are more input thoughts than maxParts', async () => {
    const b = new GooBuilder();
    const sorted = b.generate(null, { id: 'sort', prompt: 'sort', k: 5 });
    b.forEach(sorted, { id: 'each', parts: 'each', maxParts: 3, body: (bb) => bb.generate(null, { prompt: 'improve' }) });
    const handle = await start(sortingRun(b.build()));
    const error = await failureOf(handle);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(error.cause?.message).toBe(
      'run failed in operation each: forEach "each": 5 input thoughts (one part each), more than its maxParts = 3',
    );
    const grs = await queryGrs(handle);
    expect(op(grs, 'each')).toMatchObject({ status: 'failed' });
    expect(grownBy(grs, 'each')).toEqual([]);
  });
});

describe("a forEach over the task's split (parts: { split })", () => {
  it('makes a new thought per part (recorded from the split activity), and grows nested forEach bodies inside each part', async () => {
    const handle = await start(sortingRun(nestedChunksSortingGoo()));
    const { grs } = await resultOf(handle);

    const list = problem32.list;
    // The outer split's parts are new thoughts made by the forEach, children of its input (the root).
    expect(thought(grs, 'halves/0.0')).toMatchObject({ parents: ['root/0'], state: { unsorted: list.slice(0, 16), part: 0 } });
    expect(thought(grs, 'halves/1.0')).toMatchObject({ parents: ['root/0'], state: { unsorted: list.slice(16), part: 1 } });
    // Each part grows its own copy of the inner forEach, which grows inside it.
    expect(grownBy(grs, 'halves').map((o) => o.id)).toEqual([
      'halves[0].quarters',
      'halves[0].merge',
      'halves[1].quarters',
      'halves[1].merge',
    ]);
    expect(grownBy(grs, 'halves[1].quarters').map((o) => [o.id, o.inputs])).toEqual([
      ['halves[1].quarters[0].sort', []],
      ['halves[1].quarters[1].sort', []],
    ]);
    expect(thought(grs, 'halves[1].quarters/1.0')).toMatchObject({ parents: ['halves/1.0'], state: { unsorted: list.slice(24) } });
    expect(op(grs, 'halves[1].quarters[1].sort').inputThoughts).toEqual(['halves[1].quarters/1.0']);
    expect(op(grs, 'halves[1].merge').inputThoughts).toEqual([
      ...op(grs, 'halves[1].quarters[0].sort').outputThoughts,
      ...op(grs, 'halves[1].quarters[1].sort').outputThoughts,
    ]);
    expect(op(grs, 'merge').inputThoughts).toEqual([
      ...op(grs, 'halves[0].merge').outputThoughts,
      ...op(grs, 'halves[1].merge').outputThoughts,
    ]);
    expect(grs.operations.every((o) => o.status === 'done')).toBe(true);
    expect(grs.calls).toHaveLength(4 + 2 + 1);
    // The split ran in local activities, recorded once per forEach copy that split.
    const history = (await handle.fetchHistory()).events ?? [];
    const splits = history.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
    expect(splits).toBe(1 + 1 + 2);
    expect((await queryProgress(handle)).operationsTotal).toBe(2 + 4 + 4);
    await expectRebuilt(handle, grs);
  });

  it('passes kept parts on without running the body, in part order; an empty body passes every part on', async () => {
    // The first half is sorted already: `unsolvedParts` keeps it and runs the body only on the second.
    const sortedHalf = [0, 0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9];
    const problem = { list: [...sortedHalf, 9, 3, 7, 1, 0, 8, 2, 6, 4, 5, 5, 1, 7, 3, 0, 9] };
    const b = new GooBuilder();
    const chunks = b.forEach(null, { id: 'chunks', parts: { split: 'chunks', params: { size: 16 } }, maxParts: 4 });
    const repair = b.forEach(chunks, {
      id: 'repair',
      parts: { split: 'unsolvedParts' },
      maxParts: 4,
      body: (bb) =>
        bb.keepBestN(bb.score(bb.generate(null, { id: 'sort', prompt: 'sort', k: 2 }), { id: 'score' }), { id: 'best', n: 1, ...LOWER }),
    });
    b.aggregate(repair, { id: 'merge', prompt: 'merge' });
    const handle = await start(sortingRun(b.build(), { problem }));
    const { grs } = await resultOf(handle);

    // The empty body: the forEach outputs the split's thoughts.
    expect(op(grs, 'chunks')).toMatchObject({
      outputThoughts: ['chunks/0.0', 'chunks/1.0'],
      parts: [{ thoughts: ['chunks/0.0'] }, { thoughts: ['chunks/1.0'] }],
    });
    expect(grownBy(grs, 'chunks')).toEqual([]);
    // Part 0 is kept; only part 1 grew a copy of the body.
    expect(op(grs, 'repair').parts).toEqual([{ thoughts: ['chunks/0.0'], kept: true }, { thoughts: ['chunks/1.0'] }]);
    expect(grownBy(grs, 'repair').map((o) => o.id)).toEqual(['repair[1].sort', 'repair[1].score', 'repair[1].best']);
    expect(op(grs, 'repair[1].sort').inputThoughts).toEqual(['chunks/1.0']);
    expect(op(grs, 'repair').outputThoughts).toEqual(['chunks/0.0', ...op(grs, 'repair[1].best').outputThoughts]);
    expect(op(grs, 'merge').inputThoughts).toEqual(op(grs, 'repair').outputThoughts);
    await expectRebuilt(handle, grs);
  });

  it('fails the operation with a validation error naming the op, the count and maxParts when the split makes too many parts', async () => {
    const b = new GooBuilder();
    b.forEach(null, {
      id: 'many',
      parts: { split: 'chunks', params: { size: 4 } },
      maxParts: 4,
      body: (bb) => bb.generate(null, { prompt: 'sort' }),
    });
    h.llm.resetStats();
    const handle = await start(sortingRun(b.build()));
    const error = await failureOf(handle);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(error.cause?.message).toBe(
      'run failed in operation many: forEach "many": split "chunks" made 8 parts, more than its maxParts = 4',
    );
    // Refused at once (not retried), before anything grew or any LLM call.
    const history = (await handle.fetchHistory()).events ?? [];
    expect(history.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(2);
    expect(h.llm.stats().requests).toBe(0);
    const grs = await queryGrs(handle);
    expect(op(grs, 'many').status).toBe('failed');
    expect(grs.thoughts.map((t) => t.id)).toEqual(['root/0']);
  });

  it('refuses a split the task does not have before the run starts', async () => {
    const b = new GooBuilder();
    b.forEach(null, { id: 'f', parts: { split: 'nope' }, maxParts: 2 });
    await expect(start(sortingRun(b.build()))).rejects.toThrow(
      /goo\.operations\[0\]\.parts\.split: task "sorting" has no split "nope"; expected one of: chunks, equalParts, unsolvedParts/,
    );
  });
});

describe('grown operations are ordinary operations', () => {
  it('skips a body LLM operation the budget starves, and the run still ends', async () => {
    const b = new GooBuilder();
    b.forEach(null, {
      id: 'halves',
      parts: { split: 'chunks', params: { size: 16 } },
      maxParts: 2,
      body: (bb) => bb.generate(bb.generate(null, { id: 'sort', prompt: 'sort' }), { id: 'improve', prompt: 'improve' }),
    });
    const result = await run(sortingRun(b.build(), { budget: { maxTokens: 100 } }));
    const { grs } = result;
    expect(grs.budgetExhausted).toBe(true);
    // Both parts' sorts started before anything was spent; their improvements found the budget gone.
    expect(op(grs, 'halves[0].sort').status).toBe('done');
    expect(op(grs, 'halves[1].sort').status).toBe('done');
    for (const id of ['halves[0].improve', 'halves[1].improve'])
      expect(op(grs, id)).toMatchObject({ status: 'skipped', note: 'budget exhausted', outputThoughts: [] });
    expect(op(grs, 'halves')).toMatchObject({ status: 'done', outputThoughts: [] });
    expect(result.status).toBe('noAnswer');
    expect(result.noAnswer?.operation).toBe('halves[0].improve');
  });

  it('fails the run when a body operation fails, naming the grown operation; its forEach fails with it', async () => {
    const b = new GooBuilder();
    const halves = b.forEach(null, {
      id: 'halves',
      parts: { split: 'chunks', params: { size: 16 } },
      maxParts: 2,
      body: (bb) => bb.generate(null, { id: 'sort', prompt: 'sort' }),
    });
    b.aggregate(halves, { id: 'merge', prompt: 'merge' });
    // One part's call is answered, the other's key is rejected (401, not retried).
    h.llm.injectFaults(['pass', { status: 401, message: 'Incorrect API key provided' }]);
    const handle = await start(sortingRun(b.build()));
    const error = await failureOf(handle);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const failed = /^run failed in operation (halves\[[01]\]\.sort): API key rejected by .*\(401\)/.exec(error.cause?.message ?? '');
    expect(failed, error.cause?.message).not.toBeNull();
    const grs = await queryGrs(handle);
    expect(op(grs, failed![1]!).status).toBe('failed');
    expect(op(grs, 'halves')).toMatchObject({ status: 'failed', outputThoughts: [] });
    expect(op(grs, 'halves').note).toMatch(/API key rejected/);
    expect(op(grs, 'merge').status).toBe('pending');
    await expectRebuilt(handle, grs);
  });

  it('waits for human scores under the instantiated ids', async () => {
    const goo: GoO = {
      version: 1,
      operations: [
        {
          id: 'halves',
          type: 'forEach',
          inputs: [],
          parts: { split: 'chunks', params: { size: 16 } },
          maxParts: 2,
          body: [
            { id: 'sort', type: 'generate', inputs: [], prompt: 'sort', k: 2 },
            { id: 'rate', type: 'score', inputs: ['sort'], scorer: { kind: 'human', timeoutSeconds: 600, fallback: 'local' } },
            { id: 'best', type: 'keepBestN', inputs: ['rate'], n: 1, higherIsBetter: true },
          ],
        },
      ],
    };
    const handle = await start(sortingRun(goo));
    const pending = await until(async () => {
      const waiting = await handle.query(pendingHumanScoresQuery);
      return waiting.length === 2 ? waiting : undefined;
    });
    expect(pending.map((p) => p.operationId).sort()).toEqual(['halves[0].rate', 'halves[1].rate']);
    expect((await queryProgress(handle)).awaitingHumanScores.sort()).toEqual(['halves[0].rate', 'halves[1].rate']);
    for (const p of pending) {
      const scores = Object.fromEntries(p.thoughts.map((t, i) => [t.id, i + 1]));
      await handle.executeUpdate(scoreThoughtsUpdate, { args: [{ operationId: p.operationId, scores, by: 'tester' }] });
    }
    const { grs } = await resultOf(handle);
    expect(op(grs, 'halves[0].rate').note).toBe('scored by tester');
    expect(op(grs, 'halves[1].rate').note).toBe('scored by tester');
    // Each part kept the thought the person scored highest: its second sample.
    expect(op(grs, 'halves').outputThoughts).toEqual(['halves[0].sort/0.1', 'halves[1].sort/0.1']);
    await expectRebuilt(handle, grs);
  });

  it('is cancelled mid-body: the running grown operations and their forEach end cancelled, the rest stays pending', async () => {
    h.llm.setLatency(3_000);
    try {
      const b = new GooBuilder();
      const halves = b.forEach(null, {
        id: 'halves',
        parts: { split: 'chunks', params: { size: 16 } },
        maxParts: 2,
        body: (bb) => bb.generate(bb.generate(null, { id: 'sort', prompt: 'sort' }), { id: 'improve', prompt: 'improve' }),
      });
      b.aggregate(halves, { id: 'merge', prompt: 'merge' });
      const handle = await start(sortingRun(b.build()));
      const progress = await until(async () => {
        const now = await queryProgress(handle);
        return now.running.includes('halves[1].sort') ? now : undefined;
      });
      // While the parts run, progress counts the grown operations and the Web UI names them.
      expect(progress).toMatchObject({
        operationsTotal: 2 + 4,
        operationsDone: 0,
        running: ['halves', 'halves[0].sort', 'halves[1].sort'],
      });
      const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      expect(currentDetails).toContain('**0 of 6 operations done**');
      expect(currentDetails).toContain('running: halves, halves[0].sort, halves[1].sort');
      expect(currentDetails).toContain('grown at run time: halves: 2 parts, 4 operations');
      const summaries = ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
        const summary = e.activityTaskScheduledEventAttributes ? e.userMetadata?.summary : undefined;
        return summary ? [defaultPayloadConverter.fromPayload<string>(summary)] : [];
      });
      expect(summaries.sort()).toEqual(['halves[0].sort: generate ×1 from halves/0.0', 'halves[1].sort: generate ×1 from halves/1.0']);
      await handle.cancel();
      const error = await failureOf(handle);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      expect(error.cause).toBeInstanceOf(CancelledFailure);
      const grs = await queryGrs(handle);
      for (const id of ['halves[0].sort', 'halves[1].sort', 'halves'])
        expect(op(grs, id)).toMatchObject({ status: 'cancelled', note: 'the run was cancelled' });
      for (const id of ['halves[0].improve', 'halves[1].improve', 'merge']) expect(op(grs, id).status).toBe('pending');
      await expectRebuilt(handle, grs);
    } finally {
      h.llm.setLatency(FAST_MS);
    }
  });
});

describe('a forEach in a task declared as data', () => {
  const declaration = JSON.parse(
    readFileSync(new URL('../examples/tasks/doc-merge-lite.json', import.meta.url), 'utf8'),
  ) as TaskDeclarationInput & {
    prompts: Record<string, { system?: string; user: string }>;
  };

  it('splits a list field into parts (an items split) and runs the body on each', async () => {
    const merge = declaration.prompts.merge!;
    const condense: GoOInput = {
      operations: [
        {
          id: 'docs',
          type: 'forEach',
          parts: { split: 'documents' },
          maxParts: 8,
          body: [{ id: 'redraft', type: 'generate', prompt: 'redraft' }],
        },
        { id: 'fuse', type: 'aggregate', prompt: 'aggregate', inputs: ['docs'] },
      ],
    };
    const task = {
      ...declaration,
      id: 'doc-merge-parts',
      // The merge prompt on one document at a time: each part's thought is one of the problem's documents.
      prompts: {
        ...declaration.prompts,
        redraft: { ...merge, user: merge.user.replace('{{documents | tagged:Doc}}', '{{thought | tagged:Doc}}') },
      },
      splits: { documents: { kind: 'items', field: 'documents' } },
      schemes: { ...declaration.schemes, parts: condense },
    } as TaskDeclarationInput;
    const problem = docMergeTask.generateProblem(3, 2);
    const handle = await startRun(h.client, { task, problem, goo: condense, labels: { scheme: 'parts' } } as RunRequestInput, {
      taskQueue: h.taskQueue,
    });
    const { grs } = await resultOf(handle);
    expect(op(grs, 'docs').parts).toEqual([{ thoughts: ['docs/0.0'] }, { thoughts: ['docs/1.0'] }, { thoughts: ['docs/2.0'] }]);
    problem.documents.forEach((doc, i) => {
      expect(thought(grs, `docs/${i}.0`).state).toEqual({ output: doc });
    });
    expect(grownBy(grs, 'docs').map((o) => o.id)).toEqual(['docs[0].redraft', 'docs[1].redraft', 'docs[2].redraft']);
    expect(grs.calls.filter((c) => c.operationId.endsWith('.redraft')).every((c) => c.inputThoughts.length === 1)).toBe(true);
    expect(op(grs, 'fuse').inputThoughts).toEqual(['docs[0].redraft/0.0', 'docs[1].redraft/0.0', 'docs[2].redraft/0.0']);
    expect(thought(grs, 'fuse/0.0').valid).toBe(true);
    await expectRebuilt(handle, grs);
  });
});

/** Polls `probe` until it returns a value, failing after 30 s. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
