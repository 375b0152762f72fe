import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const request = (): RunRequestInput => ({
  task: 'sorting',
  problem: sortingTask.generateProblem(32, 3),
  goo: sortingTask.schemes.got!({ size: 32 }),
  labels: { scheme: 'got', size: 32, sample: 3 },
});

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('what the Web UI shows of a run (checked through the client API)', () => {
  it('a readable workflow id, typed search attributes, activity summaries and progress details', async () => {
    const handle = await startRun(h.client, request(), { taskQueue: h.taskQueue });
    expect(handle.workflowId).toMatch(/^got-sorting-got-32-s3-\d{8}T\d{9}-[0-9a-f]{6}$/);
    const result = await resultOf(handle);

    const { typedSearchAttributes } = await handle.describe();
    const value = (name: string) => typedSearchAttributes.getAll().find((p) => p.key.name === name)?.value;
    expect(value('GotTask')).toBe('sorting');
    expect(value('GotScheme')).toBe('got');
    expect(value('GotStatus')).toBe('completed');
    expect(value('GotCostUsd')).toBeCloseTo(result.grs.totals.costUsd, 5); // stored rounded to a millionth of a dollar
    expect(value('GotBestScore')).toBe(result.best!.score);

    // Runs can be filtered by them (visibility is eventually consistent).
    const query = `GotTask='sorting' AND GotScheme='got' AND GotStatus='completed' AND WorkflowId='${handle.workflowId}'`;
    const found = await eventually('the run in a filtered list', async () => {
      for await (const w of h.client.workflow.list({ query })) return w.workflowId;
      return undefined;
    });
    expect(found).toBe(handle.workflowId);

    // Every LLM activity says which operation it serves and which thoughts it reads.
    const history = await handle.fetchHistory();
    const summaries = history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => defaultPayloadConverter.fromPayload<string>(e.userMetadata!.summary!));
    expect(summaries).toHaveLength(result.grs.calls.length);
    for (const call of result.grs.calls)
      expect(summaries.some((s) => s.startsWith(`${call.operationId}: `) && call.inputThoughts.every((t) => s.includes(t)))).toBe(true);

    // The run's page shows its progress.
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toMatch(
      new RegExp(`${result.grs.operations.length} of ${result.grs.operations.length} operations done`),
    );
  });

  it('a failed run says so in its status', async () => {
    h.llm.injectFaults([{ status: 401 }]);
    const handle = await startRun(h.client, { ...request(), goo: sortingTask.schemes.io!({ size: 32 }) }, { taskQueue: h.taskQueue });
    await expect(resultOf(handle)).rejects.toThrow();
    const { typedSearchAttributes } = await handle.describe();
    expect(typedSearchAttributes.getAll().find((p) => p.key.name === 'GotStatus')?.value).toBe('failed');
  });
});
