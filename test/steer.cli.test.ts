import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_')));
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

describe('got steer', () => {
  it('pauses a run another terminal started, says so in got status, refuses what cannot apply, and resumes it', async () => {
    const env = { ...inherited, TEMPORAL_ADDRESS: inject('temporalAddress'), OPENAI_BASE_URL: '' };
    const workflowId = `got-steer-${randomUUID().slice(0, 8)}`;
    const runArgs = [
      ...CLI,
      'run',
      '--llm',
      'sim',
      // Slow enough (GoT sorting-64, 11 calls in 6 levels, 2 s a call) for CLI commands to steer it mid-run.
      '--latency',
      '2000',
      '--scheme',
      'got',
      '--size',
      '64',
      '--workflow-id',
      workflowId,
      '--json',
      '--no-progress',
    ];
    const first = spawn(process.execPath, runArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    let answer = '';
    first.stdout!.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    const finished = new Promise<number | null>((resolve) => first.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      first.stderr!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes(`Started ${workflowId}`)) resolve();
      });
      first.once('exit', (code) => reject(new Error(`got run exited (${code}) before starting the run: ${said}`)));
    });
    const got = (...args: string[]) => run(process.execPath, [...CLI, ...args], { env });

    // The run may still be checking its request: the pause is refused until it runs.
    let paused: { stderr: string } | undefined;
    for (let i = 0; i < 50 && !paused; i++)
      paused = await got('steer', workflowId, 'pause', '--by', 'Ann', '--reason', 'reading the split').catch(async () => {
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      });
    expect(paused?.stderr).toContain(
      `${workflowId}: paused: no new LLM call starts until it is resumed by Ann (reading the split). Resume with: got steer ${workflowId} resume`,
    );

    const status = await got('status', workflowId);
    expect(status.stdout + status.stderr).toContain(`resume with: got steer ${workflowId} resume`);

    const again = await got('steer', workflowId, 'pause').then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(again?.code).toBe(2);
    expect(again?.stderr).toContain('refused: the run is paused already');

    const resumed = await got('steer', workflowId, 'resume', '--json');
    expect(JSON.parse(resumed.stdout)).toEqual({ paused: false });
    expect(await finished).toBe(0);
    expect(JSON.parse(answer)).toMatchObject({ status: 'answered', workflowId });
  }, 300_000);
});
