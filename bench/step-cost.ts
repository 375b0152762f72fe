import type { temporal } from '@temporalio/proto';
import { resultOf, startRun } from '../src/client/runs';
import type { GoO } from '../src/goo/schema';
import type { Grs } from '../src/grs/types';
import type { RunRequestInput } from '../src/run/request';
import { TASKS } from '../src/tasks/registry';
import { median } from './stats';
import { eventMs, startBenchEnv } from './support';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface StepCostRow {
  /** one step of the chain: from a call's scheduling to the next call's scheduling */
  part: string;
  /** median over the chain's steps and runs */
  ms: number;
}

/** A chain of single-sample LLM calls, each on the one before: nothing runs in parallel, every millisecond is the step's. */
function chain(depth: number): GoO {
  const operations: GoO['operations'] = [{ id: 'g0', type: 'generate', inputs: [], prompt: 'sort', k: 1 }];
  for (let i = 1; i < depth; i++) operations.push({ id: `g${i}`, type: 'generate', inputs: [`g${i - 1}`], prompt: 'improve', k: 1 });
  return { version: 1, operations };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * What one dependent step costs besides the LLM's own latency, split by where the time goes, read
 * from each run's history (server clock) and its GRS (the worker's clock around each call): a
 * chain's wall time is depth x (latency + this), plus the run's first and last workflow task.
 */
export async function measureStepCost(
  latencyMs: number,
  depth = 8,
  runs = 7,
): Promise<{ rows: StepCostRow[]; wallMs: number; perStepMs: number }> {
  const env = await startBenchEnv({ latencyMs });
  const { taskQueue, stop } = await env.worker();
  try {
    const problem = TASKS.sorting!.generateProblem(32, 1);
    const request = (seed: number): RunRequestInput => ({
      task: 'sorting',
      problem: problem as RunRequestInput['problem'],
      goo: chain(depth),
      seed,
      labels: { scheme: 'chain', size: 32 },
    });
    await resultOf(await startRun(env.client, request(0), { taskQueue })); // warm-up
    const parts: Record<string, number[]> = {
      'activity start (eager dispatch to the function)': [],
      'HTTP and client above the nominal latency': [],
      'activity result to the server': [],
      'server: result to workflow task': [],
      'workflow task (worker and its reply)': [],
    };
    const walls: number[] = [];
    for (let i = 1; i <= runs; i++) {
      const started = performance.now();
      const handle = await startRun(env.client, request(i), { taskQueue });
      const grs: Grs = (await resultOf(handle)).grs;
      walls.push(performance.now() - started);
      const events = (await handle.fetchHistory()).events!;
      const at = (kind: keyof HistoryEvent) => events.filter((e) => e[kind]).map(eventMs);
      const scheduled = at('activityTaskScheduledEventAttributes');
      const completed = at('activityTaskCompletedEventAttributes');
      const taskStarted = at('workflowTaskStartedEventAttributes');
      const taskCompleted = at('workflowTaskCompletedEventAttributes');
      // Calls finish in chain order; the workflow task after call j is the (j + 1)th.
      const calls = [...grs.calls].sort((a, b) => a.startedAt - b.startedAt);
      calls.forEach((call, j) => {
        parts['activity start (eager dispatch to the function)']!.push(call.startedAt - scheduled[j]!);
        parts['HTTP and client above the nominal latency']!.push(call.latencyMs - latencyMs);
        parts['activity result to the server']!.push(completed[j]! - call.finishedAt);
        parts['server: result to workflow task']!.push(taskStarted[j + 1]! - completed[j]!);
        parts['workflow task (worker and its reply)']!.push(taskCompleted[j + 1]! - taskStarted[j + 1]!);
      });
    }
    const rows = Object.entries(parts).map(([part, xs]) => ({ part, ms: round1(median(xs)) }));
    const wallMs = median(walls);
    return {
      rows: [...rows, { part: 'a dependent step in all', ms: round1(rows.reduce((s, r) => s + r.ms, 0)) }],
      wallMs: Math.round(wallMs),
      perStepMs: round1((wallMs - depth * latencyMs) / depth),
    };
  } finally {
    await stop();
    await env.close();
  }
}
