import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../src/client/runs';
import { sortingTask } from '../src/tasks/sorting';
import { workflowStackTracesWanted } from '../worker/stack-traces';
import { type Harness, startHarness } from './support/harness';

/**
 * Workers run workflow code without the SDK's promise stack traces (decision 72): a hook that cost
 * most of a long child's workflow task and of its replay. The stack-trace query then says so instead
 * of answering; a worker started with GOT_WORKFLOW_STACK_TRACES=on keeps them.
 */

let h: Harness;
beforeAll(async () => {
  // Slow answers: the run is still waiting on its calls when it is asked for its stack.
  h = await startHarness({ llm: { latencyMs: 5_000 } });
});
afterAll(async () => h?.close());

describe('workflow stack traces', () => {
  it('are off on our workers: the stack-trace query says they are not enabled, and the run goes on', async () => {
    const handle = await startRun(
      h.client,
      { task: 'sorting', problem: sortingTask.generateProblem(32, 1), scheme: { name: 'io' } },
      { taskQueue: h.taskQueue },
    );
    await expect(handle.query('__stack_trace')).rejects.toThrow(/stack traces are not enabled/i);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.cancel();
  });

  it('are kept when asked for by the environment', () => {
    expect(workflowStackTracesWanted({})).toBe(false);
    expect(workflowStackTracesWanted({ GOT_WORKFLOW_STACK_TRACES: 'on' })).toBe(true);
    expect(workflowStackTracesWanted({ GOT_WORKFLOW_STACK_TRACES: 'off' })).toBe(false);
  });
});
