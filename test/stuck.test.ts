import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { formatStatus, type RunStatusReport, statusOf } from '../src/cli/commands/status';
import { llmFlagsOfQueue } from '../src/cli/llm-source';
import { type RunHealth, RunStuckError, resultUnlessStuck, runHealth, type StuckRun } from '../src/client/health';
import { startRun } from '../src/client/runs';
import { runEvaluation } from '../src/eval/run-eval';
import type { RunRequestInput } from '../src/run/request';
import { DEFAULT_STUCK_AFTER, WORKFLOW_TYPE } from '../src/run/wire';
import { TASKS } from '../src/tasks/registry';
import { installQuietRuntime } from '../worker/logging';
import { BROKEN_CODE_MESSAGE } from './fixtures/stuck-workflow';
import { type Harness, startHarness } from './support/harness';

const BROKEN_CAUSE = 'WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE';
const STUCK_EXIT_CODE = 5;

let h: Harness;
/** A worker whose workflow code throws: every run on its task queue gets stuck. */
let broken: { worker: Worker; running: Promise<void>; connection: NativeConnection; taskQueue: string };
/** A run on the broken worker, started once and shared by the tests that only look at it. */
let stuck: WorkflowHandleWithFirstExecutionRunId;
const startedAt = new Date();
const started: string[] = [];

beforeAll(async () => {
  // Every failed attempt of the broken task would otherwise be logged with its stack.
  installQuietRuntime('ERROR');
  const address = inject('temporalAddress');
  const connection = await NativeConnection.connect({ address });
  const taskQueue = `stuck-${randomUUID()}`;
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./fixtures/stuck-workflow.ts', import.meta.url)),
  });
  broken = { worker, running: worker.run(), connection, taskQueue };
  h = await startHarness({ llm: { latencyMs: 200 } });
  stuck = await h.client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: `stuck-${randomUUID()}`, args: [] });
  started.push(stuck.workflowId);
});

afterAll(async () => {
  // The stuck runs would retry their task for ever: end them the way the advice says.
  for (const id of started)
    await h?.client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  broken?.worker.shutdown();
  await broken?.running;
  await broken?.connection.close();
  await h?.close();
});

/** Polls the run's health until it is stuck (the test's timeout bounds the wait). */
async function untilStuck(workflowId: string): Promise<StuckRun> {
  for (;;) {
    const health = await runHealth(h.client, workflowId);
    if (health.stuck) return health;
    await sleep(500);
  }
}

const run = promisify(execFile);
const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_')));

async function got(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...inherited, TEMPORAL_ADDRESS: inject('temporalAddress'), OPENAI_BASE_URL: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function request(size: number): RunRequestInput {
  const task = TASKS.sorting!;
  const problem = task.generateProblem(size, 3);
  return { task: 'sorting', problem: problem as RunRequestInput['problem'], goo: task.schemes.got!({ size, problem }), labels: { size } };
}

describe('a run whose workflow task keeps failing', () => {
  it('is found stuck by runHealth, with the failed attempts, the cause and the plain message', async () => {
    const health = await untilStuck(stuck.workflowId);
    expect(health.attempts).toBeGreaterThanOrEqual(DEFAULT_STUCK_AFTER);
    expect(health.runId).toBe(stuck.firstExecutionRunId);
    expect(health.cause).toBe(BROKEN_CAUSE);
    expect(health.message).toBe(BROKEN_CODE_MESSAGE); // the message alone: no stack trace
    expect(health.since.getTime()).toBeGreaterThanOrEqual(startedAt.getTime() - 1000);
    expect(health.since.getTime()).toBeLessThanOrEqual(Date.now());
    // The same facts with the run id named; below its threshold, or with the check off, it is not stuck.
    expect(await runHealth(h.client, stuck.workflowId, stuck.firstExecutionRunId)).toMatchObject({ stuck: true, cause: BROKEN_CAUSE });
    expect(await runHealth(h.client, stuck.workflowId, undefined, { stuckAfter: health.attempts + 50 })).toEqual({ stuck: false });
    expect(await runHealth(h.client, stuck.workflowId, undefined, { stuckAfter: 0 })).toEqual({ stuck: false });
  });

  it('is found stuck when a child workflow running its parts is: the run waits on it for ever', async () => {
    const parent = await h.client.workflow.start('waitsOnParts', {
      taskQueue: broken.taskQueue,
      workflowId: `stuck-parent-${randomUUID()}`,
    });
    started.push(parent.workflowId);
    const health = await untilStuck(parent.workflowId);
    expect(health).toMatchObject({
      stuck: true,
      child: `${parent.workflowId}.parts.F[0-3]`,
      cause: BROKEN_CAUSE,
      message: BROKEN_CODE_MESSAGE,
    });
    expect((await parent.describe()).status.name).toBe('RUNNING');
    await expect(resultUnlessStuck(parent, { checkEveryMs: 200 })).rejects.toThrow(
      new RegExp(
        `run ${parent.workflowId} is stuck: the workflow task of its child workflow ${parent.workflowId}\\.parts\\.F\\[0-3\\] .*failed \\d+ times in a row`,
      ),
    );
  });

  it('ends a wait for its result with a RunStuckError and is left running', async () => {
    await untilStuck(stuck.workflowId);
    const error = await resultUnlessStuck(stuck, { checkEveryMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunStuckError);
    const message = (error as RunStuckError).message;
    expect(message).toContain(stuck.workflowId);
    expect(message).toContain(`${BROKEN_CAUSE}: ${BROKEN_CODE_MESSAGE}`);
    expect(message).toContain(`temporal workflow terminate --workflow-id ${stuck.workflowId}`);
    expect(message).not.toContain('\n');
    expect((await stuck.describe()).status.name).toBe('RUNNING');
  });

  it('makes `got run` stop waiting with exit code 5, naming the run, the attempts, the cause and what to do', async () => {
    const workflowId = `stuck-cli-${randomUUID()}`;
    started.push(workflowId);
    // Our client gives runs 60 s a workflow task (decision 72), and a task failing again is left to time
    // out: each attempt after the first takes that long, so two in a row are asked for, not three.
    const args = ['run', '--scheme', 'io', '--size', '32', '--no-worker', '--no-progress', '--json', '--stuck-after', '2'];
    const { code, stdout, stderr } = await got([...args, '--task-queue', broken.taskQueue, '--workflow-id', workflowId]);
    expect(code, stderr).toBe(STUCK_EXIT_CODE);
    expect(stdout).toBe(''); // no report: the run has no result
    // Without a worker of its own the command starts no LLM: the workers of the queue make the calls.
    expect(stderr).toContain(`Runs go to task queue ${broken.taskQueue}`);
    expect(stderr).not.toMatch(/Using the (simulated LLM|local model)/);
    const line = stderr.trim().split('\n').at(-1)!;
    expect(line).toMatch(new RegExp(`run ${workflowId} \\(run id [\\w-]+\\) is stuck: its workflow task failed \\d+ times in a row`));
    expect(line).toContain(`${BROKEN_CAUSE}: ${BROKEN_CODE_MESSAGE}`);
    expect(line).toContain('redeploy');
    expect(line).toContain(`temporal workflow terminate --workflow-id ${workflowId}`);
    const health = await runHealth(h.client, workflowId, undefined, { stuckAfter: 2 });
    expect(health.stuck && health.attempts).toBeGreaterThanOrEqual(2);
    expect((await h.client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
  }, 200_000);

  it('is shown as stuck by `got status` (exit code 5), which does not wait for a progress answer', async () => {
    await untilStuck(stuck.workflowId);
    const text = await got(['status', stuck.workflowId]);
    expect(text.code, text.stderr).toBe(STUCK_EXIT_CODE);
    expect(text.stdout).toContain('running · STUCK');
    expect(text.stdout).toContain(`${BROKEN_CAUSE}: ${BROKEN_CODE_MESSAGE}`);
    expect(text.stdout).toContain('temporal workflow terminate');
    const json = await got(['status', stuck.workflowId, '--json']);
    const report = JSON.parse(json.stdout) as RunStatusReport & { health: RunHealth & { since: string } };
    expect(report).toMatchObject({ workflowId: stuck.workflowId, runId: stuck.firstExecutionRunId, status: 'running' });
    expect(report.health).toMatchObject({ stuck: true, cause: BROKEN_CAUSE, message: BROKEN_CODE_MESSAGE });
    expect(report.progress).toBeUndefined();
  });

  it('is recorded as a failed sample with the reason, and the evaluation ends', async () => {
    const previous = { address: process.env.TEMPORAL_ADDRESS, baseUrl: process.env.OPENAI_BASE_URL };
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    delete process.env.OPENAI_BASE_URL;
    try {
      const outcome = await runEvaluation(
        {
          task: 'sorting',
          schemes: ['io'],
          sizes: [32],
          samples: 1,
          out: mkdtempSync(join(tmpdir(), 'got-eval-stuck-')),
          concurrency: 1,
          seed: 0,
          latency: 0,
          taskQueue: broken.taskQueue,
          worker: false,
          progress: false,
          // Its runs get a minute a workflow task (decision 72), as `got run`'s do: the same count as the CLI test above.
          stuckAfter: 2,
        },
        () => undefined,
      );
      started.push(...outcome.stuck);
      expect(outcome.rows).toHaveLength(1);
      const [row] = outcome.rows;
      expect(outcome.stuck).toEqual([row!.workflowId]);
      expect(row).toMatchObject({ status: 'failed', score: null });
      expect(row!.error).toMatch(new RegExp(`run ${row!.workflowId} .* is stuck: its workflow task failed \\d+ times in a row`));
      expect(row!.error).toContain(BROKEN_CODE_MESSAGE);
    } finally {
      process.env.TEMPORAL_ADDRESS = previous.address;
      if (previous.baseUrl !== undefined) process.env.OPENAI_BASE_URL = previous.baseUrl;
      if (previous.address === undefined) delete process.env.TEMPORAL_ADDRESS;
    }
  }, 200_000);
});

describe('a healthy run', () => {
  it('is never reported stuck, even when a single failed attempt would count', async () => {
    const handle = await startRun(h.client, request(32), { taskQueue: h.taskQueue });
    const seen: RunHealth[] = [];
    let done = false;
    const watching = (async () => {
      while (!done) {
        seen.push(await runHealth(h.client, handle.workflowId, undefined, { stuckAfter: 1 }));
        await sleep(50);
      }
    })();
    const result = await resultUnlessStuck(handle, { stuckAfter: 1, checkEveryMs: 50 }).finally(() => {
      done = true;
    });
    await watching;
    expect(result.best).toBeDefined();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((health) => !health.stuck)).toBe(true);
    const status = await statusOf(h.client, handle.workflowId, { stuckAfter: 1, uiUrl: 'http://ui.test' });
    expect(status).toMatchObject({ status: 'completed', gotStatus: 'completed', health: { stuck: false } });
    expect(status.progressError).toBeUndefined();
  });

  it('waited for in short windows, gives its result once and leaves no signal with many listeners', async () => {
    const handle = await startRun(h.client, request(32), { taskQueue: h.taskQueue });
    const signals: AbortSignal[] = [];
    const withAbortSignal = handle.client.withAbortSignal.bind(handle.client);
    handle.client.withAbortSignal = <R>(signal: AbortSignal, fn: () => Promise<R>) => {
      signals.push(signal);
      return withAbortSignal(signal, fn);
    };
    const result = await resultUnlessStuck(handle, { windowMs: 250 });
    expect(result.best).toBeDefined();
    // The run takes seconds at 200 ms a call: the wait went through several windows, each a signal of its own.
    expect(signals.length).toBeGreaterThan(2);
    expect(new Set(signals).size).toBe(signals.length);
    expect(Math.max(...signals.map((signal) => getEventListeners(signal, 'abort').length))).toBeLessThan(5);
  });

  it('that no worker serves is not stuck, and its status says so and how to resume it, without waiting on a query', async () => {
    const queue = `got-local-qwen2.5-coder-1.5b-${randomUUID()}`;
    const handle = await startRun(h.client, request(32), { taskQueue: queue });
    started.push(handle.workflowId);
    const asked = Date.now();
    const status = await statusOf(h.client, handle.workflowId, { uiUrl: 'http://ui.test' });
    expect(Date.now() - asked).toBeLessThan(5_000);
    expect(status).toMatchObject({ status: 'running', health: { stuck: false } });
    expect(status.progress).toBeUndefined();
    expect(status.unserved).toEqual({
      taskQueue: queue,
      resume: [
        `got worker start --task-queue ${queue} --llm local --local-model qwen2.5-coder-1.5b`,
        `or run the command that started it again with --workflow-id ${handle.workflowId}: it joins the run`,
      ],
    });
    expect(formatStatus(status)).toMatch(/unserved {4}no worker polls its task queue/);
  });

  it('names the LLM flags of the queue a run waits on', () => {
    expect(llmFlagsOfQueue('got-sim')).toBe('--llm sim');
    expect(llmFlagsOfQueue('got-sim-resident-ab12')).toBe('--llm sim');
    expect(llmFlagsOfQueue('got-local-qwen2.5-coder-0.5b-resident-ab12')).toBe('--llm local --local-model qwen2.5-coder-0.5b');
    expect(llmFlagsOfQueue('got-local-my-model.gguf')).toMatch(/^--llm local \(with GOT_LOCAL_MODEL/);
    expect(llmFlagsOfQueue('got')).toMatch(/^--llm endpoint/);
  });
});
