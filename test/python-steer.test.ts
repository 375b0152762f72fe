import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryProgress, resultOf, startRun } from '../src/client/runs';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

const exec = promisify(execFile);
let h: Harness;
let python: string;

beforeAll(async () => {
  // Slow calls (2 s), so a Python process starting up can steer the run mid-way.
  h = await startHarness({ llm: { latencyMs: 2000 } });
  python = (await exec('bash', ['scripts/python-env.sh'])).stdout.trim();
}, 600_000);
afterAll(async () => h?.close());

async function steer(workflowId: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const address = inject('temporalAddress');
  return exec(python, ['examples/python/steer.py', '--address', address, '--workflow-id', workflowId, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('steering a run from Python, knowing only the published contract', () => {
  it('pauses and resumes a run, and hears the run refuse what cannot apply', async () => {
    const handle = await startRun(
      h.client,
      { task: 'sorting', problem: sortingTask.generateProblem(64, 5), goo: sortingTask.schemes.got!({ size: 64 }) },
      { taskQueue: h.taskQueue },
    );
    // Until the run has checked its request it refuses steers with a reason: ask again.
    let paused = await steer(handle.workflowId, 'pause', '--by', 'py');
    for (let i = 0; i < 50 && paused.code !== 0; i++) {
      await sleep(200);
      paused = await steer(handle.workflowId, 'pause', '--by', 'py');
    }
    expect(paused).toMatchObject({ code: 0 });
    expect(JSON.parse(paused.stdout)).toEqual({ paused: true });
    expect((await queryProgress(handle)).paused).toBe(true);
    expect(await steer(handle.workflowId, 'pause')).toMatchObject({ code: 2, stderr: 'refused: the run is paused already\n' });
    expect(JSON.parse((await steer(handle.workflowId, 'resume', '--by', 'py')).stdout)).toEqual({ paused: false });
    const result = await resultOf(handle);
    expect(result.grs.steering?.map((s) => `${s.action} by ${s.by}`)).toEqual(['pause by py', 'resume by py']);
  }, 300_000);

  it('refuses a steer the published schema rejects, naming the field, before contacting the server', async () => {
    const noServer = ['--address', '127.0.0.1:1'];
    const run = (...args: string[]) =>
      exec(python, ['examples/python/steer.py', ...noServer, '--workflow-id', 'x', ...args]).catch(
        (e: { code: number; stderr: string }) => e,
      );
    expect(await run('budget')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^invalid steer: budget: .*/) });
    expect(await run('budget', '--max-cost', '-1')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^invalid steer: budget\.maxCostUsd: /),
    });
    expect(await run('halt')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^invalid steer: action: /) });
    // Prune takes an operation or a thought, one of them (decision 103).
    expect(await run('prune')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^invalid steer: /) });
    expect(await run('instruct', '--operation', 'fix')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^invalid steer: .*text/) });
  }, 120_000);
});
