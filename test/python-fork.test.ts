import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

const exec = promisify(execFile);
let h: Harness;
let python: string;

beforeAll(async () => {
  h = await startHarness();
  python = (await exec('bash', ['scripts/python-env.sh'])).stdout.trim();
}, 600_000);
afterAll(async () => h?.close());

const fork = (...args: string[]) =>
  exec(python, ['examples/python/fork.py', ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe('forking a run from Python, knowing only the published contract', () => {
  it('forks a finished run with nothing changed (no call), then at its merge (calls from there on)', async () => {
    const handle = await startRun(
      h.client,
      { task: 'sorting', problem: sortingTask.generateProblem(32, 4), goo: sortingTask.schemes.got!({ size: 32 }) },
      { taskQueue: h.taskQueue },
    );
    const parent = await resultOf(handle);
    const address = inject('temporalAddress');
    const same = await fork('--address', address, '--parent', handle.workflowId, '--by', 'py');
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ parent: handle.workflowId, callsMade: 0, callsInherited: parent.grs.calls.length });

    const atMerge = JSON.parse((await fork('--address', address, '--parent', handle.workflowId, '--at', 'merge-1')).stdout);
    expect(atMerge.callsMade).toBeGreaterThan(0);
    expect(atMerge.callsMade + atMerge.callsInherited).toBe(parent.grs.calls.length);
  }, 300_000);

  it('refuses a fork the published schema rejects, naming the field, before contacting the server', async () => {
    const refused = await fork('--address', '127.0.0.1:1', '--parent', 'x', '--instruct', 'merge[3]=');
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringMatching(/^invalid fork: fork\.instructions\.0\.text: /) });
  }, 120_000);
});
