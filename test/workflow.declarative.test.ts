import { readFileSync } from 'node:fs';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun, workflowIdFor } from '../src/client/runs';
import type { GoOInput } from '../src/goo/schema';
import type { Grs } from '../src/grs/types';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { WORKFLOW_TYPE } from '../src/run/wire';
import type { TaskDeclarationInput } from '../src/tasks/declarative/schema';
import { docMergeTask } from '../src/tasks/doc-merge';
import { resolveTask } from '../src/tasks/registry';
import { type Harness, startHarness } from './support/harness';

/**
 * A task declared as data runs end to end: the declaration travels in the run request (nothing is
 * deployed to the worker), the Controller runs its GoT scheme on real Temporal, and the simulated
 * LLM answers its prompts, which open with the doc-merge marker sentences and use its input format.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: 20 } });
});
afterAll(async () => h?.close());

const declaration = JSON.parse(
  readFileSync(new URL('../examples/tasks/doc-merge-lite.json', import.meta.url), 'utf8'),
) as TaskDeclarationInput & { schemes: Record<string, GoOInput> };
const SAMPLE = 7;
const problem = docMergeTask.generateProblem(4, SAMPLE);

const request = (scheme: string, task: unknown = declaration): RunRequestInput =>
  ({ task, problem, goo: declaration.schemes[scheme]!, labels: { scheme, size: 4, sample: SAMPLE } }) as RunRequestInput;

async function run(scheme: string): Promise<RunResult> {
  h.llm.resetStats();
  return resultOf(await startRun(h.client, request(scheme), { taskQueue: h.taskQueue }));
}

const createdBy = (grs: Grs, op: string) => grs.thoughts.filter((t) => t.operationId === op);
const thought = (grs: Grs, id: string) => grs.thoughts.find((t) => t.id === id)!;
const operation = (grs: Grs, id: string) => grs.operations.find((o) => o.id === id)!;

describe('the Controller workflow on a declared task (doc-merge-lite)', () => {
  it('runs IO: one merge parsed from its <Merged> block, judged three times in one call', async () => {
    const result = await run('io');
    const { grs } = result;
    expect(result.task).toBe('doc-merge-lite');
    expect(grs.task).toBe('doc-merge-lite');
    expect(grs.thoughts.map((t) => t.id)).toEqual(['root/0', 'merge/0.0']);
    expect(thought(grs, 'root/0').state).toEqual({});
    expect(grs.calls.map((c) => [c.purpose, c.samples])).toEqual([
      ['generate', 1],
      ['score', 3],
    ]);
    expect(h.llm.stats().byKind).toEqual({ 'doc-merge.merge': 1, 'doc-merge.judge': 1 });
    const best = result.best!;
    expect(best.id).toBe('merge/0.0');
    expect(best.valid).toBe(true);
    // The text parser took the content of the tags: the merged NDA, without them.
    expect(best.state.output).toMatch(/AGREEMENT/);
    expect(best.state.output).not.toMatch(/<\/?Merged>/);
    // The judge's two 0-10 marks, averaged over 3 samples and combined by a harmonic mean.
    expect(best.score).toBeGreaterThan(0);
    expect(best.score).toBeLessThanOrEqual(10);
    expect(resolveTask(declaration).answerText(best.state)).toBe(best.state.output);
  });

  it('runs GoT: 3 merges, the best 2 aggregated, the best so far improved, all judged by the declared judge', async () => {
    const result = await run('got');
    const { grs } = result;
    // merge ×3 (1 call) + 3 judgements, aggregate ×2 (1 call) + 2, improve ×2 (1 call) + 2
    expect(grs.calls).toHaveLength(10);
    expect(h.llm.stats().requests).toBe(10);
    expect(h.llm.stats().byKind).toEqual({ 'doc-merge.merge': 1, 'doc-merge.aggregate': 1, 'doc-merge.improve': 1, 'doc-merge.judge': 7 });
    expect(grs.calls.filter((c) => c.purpose === 'score').every((c) => c.samples === 2)).toBe(true);
    expect(createdBy(grs, 'merge')).toHaveLength(3);
    expect(createdBy(grs, 'aggregate')).toHaveLength(2);
    expect(createdBy(grs, 'improve')).toHaveLength(2);
    expect(grs.operations.every((o) => o.status === 'done')).toBe(true);

    // The aggregate saw the two kept merges; the improvements came from the one best thought so far.
    const kept = operation(grs, 'best-merges').outputThoughts;
    expect(kept).toHaveLength(2);
    const mergeScores = createdBy(grs, 'merge')
      .map((t) => t.score ?? -1)
      .sort((a, b) => b - a);
    expect(kept.map((id) => thought(grs, id).score).sort((a, b) => b! - a!)).toEqual(mergeScores.slice(0, 2));
    for (const t of createdBy(grs, 'aggregate')) expect(t.parents).toEqual(kept);
    const best = operation(grs, 'best').outputThoughts;
    expect(best).toHaveLength(1);
    for (const t of createdBy(grs, 'improve')) expect(t.parents).toEqual(best);

    // Every readable thought holds a merged NDA and a judge's score on the 0-10 scale.
    for (const t of grs.thoughts.filter((t) => t.id !== 'root/0' && t.valid)) {
      expect(typeof t.state.output).toBe('string');
      expect(t.score).toBeGreaterThanOrEqual(0);
      expect(t.score).toBeLessThanOrEqual(10);
    }
    // The final Keep picks the highest score among its inputs.
    const candidates = operation(grs, 'final').inputThoughts.map((id) => thought(grs, id).score ?? -1);
    expect(result.best!.score).toBe(Math.max(...candidates));
    expect(result.final.map((t) => t.id)).toEqual([result.best!.id]);
    expect(result.best!.score).toBeGreaterThanOrEqual(mergeScores[0]!);
  });

  it('names the run by the declared task id', () => {
    expect(workflowIdFor(request('io'), new Date(0))).toMatch(/^got-doc-merge-lite-io-4-s7-19700101T000000000-[0-9a-f]{6}$/);
  });

  it('refuses a bad declaration in the workflow itself, naming the field, before any LLM call', async () => {
    h.llm.resetStats();
    const bad = { ...declaration, prompts: { ...declaration.prompts, merge: { user: 'Merge {{documnets}}' } } };
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `declarative-bad-${Date.now()}`,
      args: [request('io', bad)],
    });
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(((error as WorkflowFailedError).cause as Error).message).toMatch(
      /task\.prompts\.merge\.user: \{\{documnets\}\}: the problem has no field "documnets"/,
    );
    expect(h.llm.stats().requests).toBe(0);
  });

  it('refuses a problem that does not fit the declared shape, before any LLM call', async () => {
    h.llm.resetStats();
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `declarative-bad-problem-${Date.now()}`,
      args: [{ ...request('io'), problem: { documents: [problem.documents[0]] } }],
    });
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(((error as WorkflowFailedError).cause as Error).message).toMatch(/problem\.documents: at least 2 items are needed/);
    expect(h.llm.stats().requests).toBe(0);
  });
});
