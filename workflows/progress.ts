import { GrsRecorder } from '../src/grs/recorder';
import type { Progress, RunRequestInput } from '../src/run/request';
import { taskIdOf } from '../src/tasks/task-ref';
import type { RunGraph } from './run-graph';

/** The `progress` query's answer for a run under way; its total grows when a forEach grows the graph. */
export function progressOf(
  grs: GrsRecorder,
  graph: RunGraph,
  running: ReadonlySet<string>,
  awaitingHumanScores: string[],
  children: ReadonlySet<string> = new Set(),
): Progress {
  const spent = grs.spent;
  return {
    ...(children.size ? { children: [...children] } : {}),
    operationsDone: grs.finishedOperations,
    operationsTotal: graph.size,
    running: [...running],
    awaitingHumanScores,
    llmCalls: spent.llmCalls,
    promptTokens: spent.promptTokens,
    completionTokens: spent.completionTokens,
    costUsd: spent.costUsd,
    budgetExhausted: grs.budgetExhausted,
  };
}

/** The progress of a run whose request is still being checked: nothing done yet. */
export function preparingProgress(input: RunRequestInput): Progress {
  const operations = (input as { goo?: { operations?: unknown } } | null)?.goo?.operations;
  return {
    operationsDone: 0,
    operationsTotal: Array.isArray(operations) ? operations.length : 0,
    running: [],
    awaitingHumanScores: [],
    llmCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    budgetExhausted: false,
  };
}

/** The GRS of a run whose request is still being checked: no thoughts yet. */
export function preparingGrs(input: RunRequestInput): GrsRecorder {
  const task = (input as { task?: unknown } | null)?.task;
  // Not checked yet: only a task reference of the right shape is named.
  const named = typeof task === 'string' || typeof (task as { id?: unknown } | null)?.id === 'string';
  return new GrsRecorder().init(named ? taskIdOf(task as string | { id: string }) : 'unknown', [], []);
}
