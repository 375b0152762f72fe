import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStudy, studyResultOf } from '../src/client/studies';
import type { RunRequest } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import type { StudyRequestInput } from '../src/tune/request';
import type { StudyResult } from '../src/tune/results';
import { bundleGotWorkflows } from '../worker/create';
import { type Harness, startHarness } from './support/harness';
import { startWordingLlm, type WordingLlm } from './support/wording-llm';

let h: Harness;
let llm: WordingLlm;
beforeAll(async () => {
  llm = await startWordingLlm('carefully');
  h = await startHarness({ endpoint: () => llm.baseURL });
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const CANDIDATES = ['Sort the {{length}} numbers quickly.', 'Sort the {{length}} numbers carefully, one at a time.', 'Order the list.'];

describe('a study searching prompts on a model that listens to wording', () => {
  let result: StudyResult;
  let workflowId: string;

  it("finds the instruction the model needs, and runs each trial's samples with its own prompts", async () => {
    const request: StudyRequestInput = {
      task: 'sorting',
      source: { scheme: 'io' },
      size: 8,
      samples: [0, 1, 2].map((i) => ({ id: String(i), problem: sortingTask.generateProblem(8, 1_000_000 + i) })),
      trials: 6,
      stop: { minSamples: 3, batch: 3 },
      promptSearch: { sort: { instruction: CANDIDATES, examples: [[]] } },
      seed: 1,
    };
    workflowId = `prompt-study-${randomUUID()}`;
    result = await studyResultOf(await startStudy(h.client, request, { taskQueue: h.taskQueue, workflowId }));

    // The paper's prompt (trial 0) makes the model drop a number: one error per sample.
    expect(result.trials[0]).toMatchObject({ baseline: true, config: { 'prompt.sort.instruction': 0, 'prompt.sort.examples': 0 } });
    expect(result.trials[0]!.score!.mean).toBeGreaterThan(0);
    const best = result.trials[result.best!]!;
    expect(best.config['prompt.sort.instruction']).toBe(2);
    expect(best.score!.mean).toBe(0);
    // Every trial that chose the careful instruction solved everything; every other one did not.
    for (const t of result.trials) expect(t.score!.mean === 0, JSON.stringify(t.config)).toBe(t.config['prompt.sort.instruction'] === 2);

    // What reached the model: the chosen instruction with its variable filled, no examples where none were chosen.
    const sample = await h.client.workflow.getHandle(`${best.workflowId}-s0`).fetchHistory();
    const started = sample.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const sent = JSON.parse(Buffer.from(started!.data!).toString()) as RunRequest;
    expect(sent.task).toMatchObject({ id: 'sorting', prompts: { sort: { instruction: CANDIDATES[1] } } });
    expect(llm.prompts.some((p) => p.startsWith('<Instruction> Sort the 8 numbers carefully, one at a time. Answer with'))).toBe(true);
  });

  it('replays from its history, as do its trials', async () => {
    const bundle = await bundleGotWorkflows();
    for (const id of [workflowId, result.trials[result.best!]!.workflowId]) {
      const handle = h.client.workflow.getHandle(id);
      await Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'prompt-study' }, await handle.fetchHistory(), id);
    }
  });
});
