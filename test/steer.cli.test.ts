import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { type GotOutput, got, gotInBackground } from './support/cli';

describe('got steer', () => {
  it('pauses a run another terminal started, says so in got status, refuses what cannot apply, and resumes it', async () => {
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), OPENAI_BASE_URL: '' };
    const workflowId = `got-steer-${randomUUID().slice(0, 8)}`;
    // Slow enough (GoT sorting-64, 11 calls in 6 levels, 2 s a call) for CLI commands to steer it mid-run.
    const runArgs = ['run', '--llm', 'sim', '--latency', '2000', '--scheme', 'got', '--size', '64', '--workflow-id', workflowId];
    const first = await gotInBackground([...runArgs, '--json', '--no-progress'], env, `Started ${workflowId}`);

    // The run may still be checking its request: the pause is refused until it runs.
    let paused: GotOutput | undefined;
    for (let i = 0; i < 50 && paused?.code !== 0; i++) {
      if (paused) await new Promise((r) => setTimeout(r, 100));
      paused = await got(['steer', workflowId, 'pause', '--by', 'Ann', '--reason', 'reading the split'], env);
    }
    expect(paused?.stderr).toContain(
      `${workflowId}: paused: no new LLM call starts until it is resumed by Ann (reading the split). Resume with: got steer ${workflowId} resume`,
    );

    const status = await got(['status', workflowId], env);
    expect(status.stdout + status.stderr).toContain(`resume with: got steer ${workflowId} resume`);

    const again = await got(['steer', workflowId, 'pause'], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('refused: the run is paused already');

    const resumed = await got(['steer', workflowId, 'resume', '--json'], env);
    expect(JSON.parse(resumed.stdout)).toEqual({ paused: false });
    expect(await first.exited).toBe(0);
    expect(JSON.parse(first.stdout())).toMatchObject({ status: 'answered', workflowId });
  }, 300_000);
});
