import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import { got, gotInBackground } from './support/cli';

describe('a run whose terminal died', () => {
  it('is joined by its command run again with the same id, and finishes once', async () => {
    const address = inject('temporalAddress');
    const env = { TEMPORAL_ADDRESS: address, OPENAI_BASE_URL: '' };
    const workflowId = `got-join-${randomUUID().slice(0, 8)}`;
    // Slow enough (GoT sorting-32 at 400 ms a call) to be killed mid-run.
    const args = [
      'run',
      '--llm',
      'sim',
      '--latency',
      '400',
      '--scheme',
      'got',
      '--size',
      '32',
      '--workflow-id',
      workflowId,
      '--json',
      '--no-progress',
    ];
    const first = await gotInBackground(args, env, `Started ${workflowId}`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    first.child.kill('SIGKILL');
    await first.exited;
    // Nothing serves the run now; the command run again comes later than a clock's leeway.
    await new Promise((resolve) => setTimeout(resolve, 6_000));

    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection });
      const before = await client.workflow.getHandle(workflowId).describe();
      expect(before.status.name).toBe('RUNNING');

      const { code, stdout, stderr } = await got(args, env);
      expect(code, stderr).toBe(0);
      expect(stderr).toContain(`Joined ${workflowId}, open since`);
      expect(JSON.parse(stdout)).toMatchObject({ status: 'answered', workflowId });
      // The same execution finished: no second run was started under the id.
      const after = await client.workflow.getHandle(workflowId).describe();
      expect(after.runId).toBe(before.runId);
      expect(after.status.name).toBe('COMPLETED');
    } finally {
      await connection.close();
    }
  }, 300_000);
});
