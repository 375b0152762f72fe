import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryProgress, resultOf, startRun } from '../src/client/runs';
import type { Grs, Thought } from '../src/grs/types';
import { rebuildGrs, runRequestOf } from '../src/inspect/rebuild';
import { checkRun } from '../src/run/check';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { GOT_SEARCH_ATTRIBUTES as SA } from '../src/run/search-attributes';
import { FAILURE, WORKFLOW_TYPE } from '../src/run/wire';
import { docMergeTask } from '../src/tasks/doc-merge';
import { type Harness, startHarness } from './support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: 20 } });
});
afterAll(async () => h?.close());

const SAMPLE = 7;
const problem = docMergeTask.generateProblem(4, SAMPLE);

function docMergeRun(scheme: keyof typeof docMergeTask.schemes): RunRequestInput {
  return { task: 'doc-merge', problem, goo: docMergeTask.schemes[scheme]!({ size: 4 }), labels: { scheme, size: 4, sample: SAMPLE } };
}

const run = async (scheme: keyof typeof docMergeTask.schemes): Promise<RunResult> => {
  h.llm.resetStats();
  return resultOf(await startRun(h.client, docMergeRun(scheme), { taskQueue: h.taskQueue }));
};

const createdBy = (grs: Grs, prefix: string) => grs.thoughts.filter((t) => t.operationId.startsWith(prefix));
const byId = (grs: Grs) => new Map(grs.thoughts.map((t) => [t.id, t]));

function expectConsistentGraph(grs: Grs) {
  const ids = byId(grs);
  for (const t of grs.thoughts) for (const p of t.parents) expect(ids.has(p)).toBe(true);
  expect(grs.operations.every((o) => o.status === 'done')).toBe(true);
  // Every LLM thought was judged; scores are harmonic means of 0-10 marks.
  for (const t of grs.thoughts.filter((t) => t.id !== 'root/0')) {
    expect(t.score).toBeGreaterThanOrEqual(0);
    expect(t.score).toBeLessThanOrEqual(10);
  }
}

/** The final Keep picks the highest score among its inputs. */
function expectBestOfFinal(result: RunResult) {
  const { grs } = result;
  const final = grs.operations.find((o) => o.id === 'final')!;
  const candidates = final.inputThoughts.map((id) => byId(grs).get(id)!.score!);
  expect(result.best!.score).toBe(Math.max(...candidates));
  expect(result.final.map((t) => t.id)).toEqual([result.best!.id]);
}

describe('the Controller workflow on document merging', () => {
  it('runs IO: one merge, judged three times in one call', async () => {
    const result = await run('io');
    const { grs } = result;
    expect(grs.thoughts.map((t) => t.id)).toEqual(['root/0', 'merge/0.0']);
    expect(grs.calls.map((c) => [c.purpose, c.samples])).toEqual([
      ['generate', 1],
      ['score', 3],
    ]);
    expect(h.llm.stats().byKind).toEqual({ 'doc-merge.merge': 1, 'doc-merge.judge': 1 });
    expect(h.llm.stats().completions).toBe(4);
    const best = result.best as Thought;
    expect(best.id).toBe('merge/0.0');
    expect(best.valid).toBe(true);
    expect(best.score).toBeGreaterThan(0);
    expect(best.score).toBeLessThan(10);
    expect(best.state.documents).toEqual([0, 1, 2, 3]);
    expect(docMergeTask.answerText(best.state)).toMatch(/AGREEMENT/);
    expectConsistentGraph(grs);
  });

  it('runs GoT: 5 merges, the best 3 aggregated, the best improved', async () => {
    const result = await run('got');
    const { grs } = result;
    // generate 1 + judge 5, aggregate 1 + judge 5, improve 1 + judge 10
    expect(grs.calls).toHaveLength(23);
    expect(h.llm.stats().requests).toBe(23);
    expect(grs.calls.filter((c) => c.purpose === 'score').every((c) => c.samples === 3)).toBe(true);
    expect(createdBy(grs, 'merge')).toHaveLength(5);
    expect(createdBy(grs, 'aggregate')).toHaveLength(5);
    expect(createdBy(grs, 'improve')).toHaveLength(10);
    expect(grs.thoughts).toHaveLength(1 + 5 + 5 + 10);

    // Each aggregate merges the three kept drafts; each improvement has one parent, the best so far.
    const keep3 = grs.operations.find((o) => o.id === 'keep-1')!;
    expect(keep3.outputThoughts).toHaveLength(3);
    for (const t of createdBy(grs, 'aggregate')) expect(t.parents).toEqual(keep3.outputThoughts);
    const keep1 = grs.operations.find((o) => o.id === 'keep-2')!;
    for (const t of createdBy(grs, 'improve')) expect(t.parents).toEqual(keep1.outputThoughts);
    // The kept drafts are the best three merges.
    const merges = createdBy(grs, 'merge')
      .map((t) => t.score!)
      .sort((a, b) => b - a);
    expect(keep3.outputThoughts.map((id) => byId(grs).get(id)!.score!).sort((a, b) => b - a)).toEqual(merges.slice(0, 3));

    expectBestOfFinal(result);
    expect(result.best!.score).toBeGreaterThanOrEqual(merges[0]!);
    expect(typeof result.best!.state.merged).toBe('string');
    expectConsistentGraph(grs);
    // The sources stay in the problem: thoughts carry only indices and their own draft, so the result stays small.
    for (const t of grs.thoughts)
      expect(Object.keys(t.state).sort()).toEqual(t.id === 'root/0' ? ['documents'] : expect.arrayContaining(['documents']));
    for (const t of grs.thoughts) expect(t.state).not.toHaveProperty('sources');
    expect(JSON.stringify(result).length).toBeLessThan(250_000);
  });

  it('runs GoT2: each half merged on its own, then aggregated and improved', async () => {
    const result = await run('got2');
    const { grs } = result;
    // 2 merges + 10 judges, aggregate + 5 judges, improve + 5 judges
    expect(grs.calls).toHaveLength(24);
    expect(grs.thoughts).toHaveLength(1 + 10 + 5 + 5);
    expect(createdBy(grs, 'merge-half-1').map((t) => t.state.documents)).toEqual(Array(5).fill([0, 1]));
    expect(createdBy(grs, 'merge-half-2').map((t) => t.state.documents)).toEqual(Array(5).fill([2, 3]));
    // The two halves ran side by side.
    const halves = grs.operations.filter((o) => o.id.startsWith('merge-half'));
    expect(Math.max(...halves.map((o) => o.startedAt!))).toBeLessThan(Math.min(...halves.map((o) => o.endedAt!)));
    for (const t of createdBy(grs, 'aggregate')) {
      expect(t.parents.map((p) => byId(grs).get(p)!.operationId)).toEqual(['merge-half-1', 'merge-half-2']);
      expect(t.state.documents).toEqual([0, 1, 2, 3]);
    }
    expectBestOfFinal(result);
    expect(result.best!.state.documents).toEqual([0, 1, 2, 3]);
    expectConsistentGraph(grs);
  });

  it('refuses an empty document before any LLM call', async () => {
    h.llm.resetStats();
    const request = { ...docMergeRun('io'), problem: { documents: [problem.documents[0], problem.documents[1], ''] } };
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `doc-merge-bad-${Date.now()}`,
      args: [request],
    });
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(((error as WorkflowFailedError).cause as Error).message).toMatch(/problem\.documents\[2\]: the document is empty/);
    expect(h.llm.stats().requests).toBe(0);
  });
});

describe('a document merge whose request names its scheme instead of sending a GoO', () => {
  it('runs the GoO the worker expands, seen everywhere exactly as if the client had sent it', async () => {
    const byGoo = await run('got');
    h.llm.resetStats();
    // Started as a client in another language starts it: no check or expansion on this side, no labels.
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `doc-merge-by-name-${Date.now()}`,
      args: [{ task: 'doc-merge', problem, scheme: { name: 'got' } } satisfies RunRequestInput],
    });
    const result = (await handle.result()) as RunResult;
    // The same questions (same seed) in the same graph: the same thoughts, calls and answer.
    const shape = (grs: Grs) => grs.operations.map((o) => [o.id, o.type, o.inputThoughts, o.outputThoughts]);
    expect(shape(result.grs)).toEqual(shape(byGoo.grs));
    expect(result.grs.calls.map((c) => [c.operationId, c.samples])).toEqual(byGoo.grs.calls.map((c) => [c.operationId, c.samples]));
    expect(result.best!.state.merged).toBe(byGoo.best!.state.merged);
    expect(h.llm.stats().requests).toBe(23);
    // Labels and search attributes as `got run` sets them; the progress query and the details line count the expanded graph.
    expect(result.labels).toEqual({ scheme: 'got', size: 4 });
    const { typedSearchAttributes } = await handle.describe();
    expect(typedSearchAttributes.get(SA.scheme)).toBe('got');
    expect((await queryProgress(handle)).operationsTotal).toBe(9);
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toMatch(/^\*\*9 of 9 operations done\*\*/);
    // Rebuilt from history alone: the same GRS, and the request with the GoO the worker built.
    const history = await handle.fetchHistory();
    expect(await rebuildGrs(history)).toEqual(result.grs);
    const ran = await runRequestOf(history);
    expect(ran.scheme).toBeUndefined();
    expect(ran.goo).toEqual(checkRun(docMergeRun('got')).request.goo);
    expect(ran.problem).toEqual(problem);
  });

  it('refuses a scheme the task does not have before any LLM call, naming the field in the failure details', async () => {
    h.llm.resetStats();
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `doc-merge-bad-scheme-${Date.now()}`,
      args: [{ task: 'doc-merge', problem, scheme: { name: 'magic', params: { merges: 3 } } } satisfies RunRequestInput],
    });
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe(FAILURE.validation);
    // The failure's first detail is the list of issues, each with the path of the field it is about.
    expect(cause.details).toEqual([
      [{ path: 'scheme.name', message: expect.stringMatching(/no scheme "magic"; expected one of: io, cot, tot, got, got2/) }],
    ]);
    expect(h.llm.stats().requests).toBe(0);
    // Refused before it was expanded: the history has the request as sent.
    expect((await runRequestOf(await handle.fetchHistory())).scheme).toEqual({ name: 'magic', params: { merges: 3 } });
  });
});
