import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_')));
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

describe('a run whose terminal died', () => {
  it('is joined by its command run again with the same id, and finishes once', async () => {
    const address = inject('temporalAddress');
    const env = { ...inherited, TEMPORAL_ADDRESS: address, OPENAI_BASE_URL: '' };
    const workflowId = `got-join-${randomUUID().slice(0, 8)}`;
    // Slow enough (GoT sorting-32 at 400 ms a call) to be killed mid-run.
    const args = [
      ...CLI,
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
    const first = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    await new Promise<void>((resolve, reject) => {
      first.stderr!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes(`Started ${workflowId}`)) resolve();
      });
      first.once('exit', (code) => reject(new Error(`the first command exited (${code}) before starting the run: ${said}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // Nothing serves the run now; the command run again comes later than a clock's leeway.
    await new Promise((resolve) => setTimeout(resolve, 6_000));

    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection });
      const before = await client.workflow.getHandle(workflowId).describe();
      expect(before.status.name).toBe('RUNNING');

      const { stdout, stderr } = await run(process.execPath, args, { env });
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
