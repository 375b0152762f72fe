import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatStatus, statusOf } from '../src/cli/commands/status';
import { queryStudyProgress, startStudy, studyResultOf } from '../src/client/studies';
import type { RunResult } from '../src/run/request';
import { GOT_SEARCH_ATTRIBUTES as SA } from '../src/run/search-attributes';
import { sortingTask } from '../src/tasks/sorting';
import type { StudyRequestInput } from '../src/tune/request';
import { bestTrial, paretoFront, type StudyProgress, type StudyResult } from '../src/tune/results';
import { defaultsOf } from '../src/tune/space';
import { configText } from '../src/tune/table';
import { type Harness, startHarness } from './support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: 20 } });
});
afterAll(async () => {
  await h?.close();
});

const study = (o: Partial<StudyRequestInput> = {}): StudyRequestInput => ({
  task: 'sorting',
  source: { scheme: 'got' },
  size: 32,
  samples: [0, 1, 2, 3].map((i) => ({ id: String(i), problem: sortingTask.generateProblem(32, i) })),
  trials: 3,
  maxCostPerSample: 0.006,
  stop: { minSamples: 2, batch: 2 },
  seed: 4,
  ...o,
});
const start = (request: StudyRequestInput, workflowId = `study-${randomUUID()}`) =>
  startStudy(h.client, request, { taskQueue: h.taskQueue, workflowId });
const runResult = (id: string) => h.client.workflow.getHandle(id).result() as Promise<RunResult>;

describe('a study', () => {
  let result: StudyResult;
  let workflowId: string;

  it('evaluates the baseline and proposed configurations as trials of Controller runs, answering its progress meanwhile', async () => {
    const handle = await start(study());
    workflowId = handle.workflowId;
    let seen: StudyProgress | undefined;
    for (let i = 0; i < 100 && !seen?.running; i++) {
      seen = await queryStudyProgress(handle).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toMatchObject({ trialsPlanned: 3, running: { index: expect.any(Number) } });
    // `got status` on a running study reads the study's own progress.
    const status = await statusOf(h.client, workflowId, { uiUrl: 'http://ui' });
    expect(status.status === 'completed' || status.studyProgress?.trialsPlanned === 3).toBe(true);
    if (status.studyProgress) expect(formatStatus(status)).toMatch(/progress {4}\d\/3 trials · \d feasible/);
    result = await studyResultOf(handle);

    expect(result.trials.map((t) => t.index)).toEqual([0, 1, 2]);
    expect(result.trials[0]).toMatchObject({ baseline: true, config: defaultsOf(result.space), workflowId: `${workflowId}-t0` });
    expect(result.trials.slice(1).some((t) => JSON.stringify(t.config) !== JSON.stringify(result.trials[0]!.config))).toBe(true);
    for (const t of result.trials) {
      expect(t.status).toBe('completed');
      expect(t.samples.length).toBeGreaterThanOrEqual(2);
      expect(t.samples.length).toBeLessThanOrEqual(4);
      expect(t.samples.length % 2).toBe(0); // two at first, then batches of two
      expect(t.feasible).toBe(t.cost!.mean <= 0.006);
      // What the trial reports is what its runs returned.
      const runs = await Promise.all(
        t.samples.map((s, j) => {
          expect(s.workflowId).toBe(`${t.workflowId}-s${j}`);
          return runResult(s.workflowId);
        }),
      );
      expect(t.costUsd).toBeCloseTo(
        runs.reduce((a, r) => a + r.grs.totals.costUsd, 0),
        12,
      );
      expect(t.llmCalls).toBe(runs.reduce((a, r) => a + r.grs.totals.llmCalls, 0));
      expect(t.score!.mean).toBeCloseTo(runs.reduce((a, r) => a + r.best!.score!, 0) / runs.length, 12);
      expect(runs.every((r) => r.labels.trial === t.index)).toBe(true);
    }
    expect(result.best).toBe(bestTrial(result.trials, false));
    expect(result.pareto).toEqual(paretoFront(result.trials, false));
    expect(result.pareto.length).toBeGreaterThanOrEqual(1);
    expect(result.costUsd).toBeCloseTo(
      result.trials.reduce((a, t) => a + t.costUsd, 0),
      12,
    );
  });

  it('carries search attributes the Web UI filters on, as do its trials', async () => {
    const described = await h.client.workflow.getHandle(workflowId).describe();
    expect(described.type).toBe('tuneStudy');
    const attrs = described.typedSearchAttributes;
    expect(attrs.get(SA.task)).toBe('sorting');
    expect(attrs.get(SA.scheme)).toBe('got');
    expect(attrs.get(SA.status)).toBe('completed');
    expect(attrs.get(SA.costUsd)).toBeCloseTo(result.costUsd, 5);
    if (result.best !== undefined) expect(attrs.get(SA.bestScore)).toBe(result.trials[result.best]!.score!.mean);
    const trial = await h.client.workflow.getHandle(`${workflowId}-t1`).describe();
    expect(trial.type).toBe('tuneTrial');
    expect(trial.typedSearchAttributes.get(SA.status)).toBe('completed');

    // The study's page: progress and the trials table as its current details; each trial's summary names its configuration.
    const details = (await h.client.workflow.getHandle(workflowId).query<{ currentDetails: string }>('__temporal_workflow_metadata'))
      .currentDetails;
    expect(details).toMatch(/^\*\*3 of 3 trials done\*\* · \d feasible · \$[\d.]+ recorded, \$[\d.]+ paid/);
    expect(details).toMatch(
      /\| 0 \(baseline\) \| sortBranches=5 mergeBranches=10 mergeImproveBranches=5 improveBranches=10 improveRounds=1 split=llm \|/,
    );
    expect(details.split('\n').filter((l) => /^\| \d/.test(l))).toHaveLength(3);
    const summaries = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events!.flatMap((e) =>
      e.startChildWorkflowExecutionInitiatedEventAttributes && e.userMetadata?.summary
        ? [defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary as Payload)]
        : [],
    );
    expect(summaries).toEqual(
      result.trials.map((t) => `trial ${t.index}${t.baseline ? ' (baseline)' : ''}: ${configText(result, t.config)}`),
    );
  });

  it('repeated, replays every answer from the response cache and reports the same costs', async () => {
    h.llm.resetStats();
    const again = await studyResultOf(await start(study()));
    expect(h.llm.stats().requests).toBe(0);
    expect(again.trials.map((t) => t.config)).toEqual(result.trials.map((t) => t.config));
    expect(again.trials.map((t) => [t.costUsd, t.score!.mean, t.cachedCalls])).toEqual(
      result.trials.map((t) => [t.costUsd, t.score!.mean, t.llmCalls]),
    );
    expect(again.paidUsd).toBe(0);
    expect(result.paidUsd).toBeGreaterThan(0);
  });

  it('is refused before anything runs when its scheme has nothing to tune or a sample is no problem of the task', async () => {
    await expect(start(study({ source: { scheme: 'io' } }))).rejects.toThrow(/source\.scheme: io has no tunable parameters/);
    await expect(
      start(
        study({
          samples: [
            { id: 'a', problem: { list: 'nope' } },
            { id: 'b', problem: {} },
          ],
        }),
      ),
    ).rejects.toThrow(/study sample "a"/);
    // A client that skips the check: the worker refuses it, and the study fails as a ValidationError.
    const handle = await h.client.workflow.start('tuneStudy', {
      taskQueue: h.taskQueue,
      workflowId: `study-${randomUUID()}`,
      args: [study({ trials: 0 })],
    });
    const failure = await handle.result().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(((failure as WorkflowFailedError).cause as Error).message).toMatch(/trials/);
  });
});
