import { ApplicationFailure, metricMeter, TimeoutFailure } from '@temporalio/workflow';
import type { GrsFact, GrsRecorder } from '../src/grs/recorder';
import { isCountedFailure, METRIC, type RunFailureLabel, type RunOutcome } from '../src/telemetry/metrics';

/**
 * What only the Controller sees, counted in the worker's metrics (decision 53): runs started and
 * how they ended, re-asks, how long operations took. The SDK emits workflow metrics only while a
 * workflow runs for the first time, never while it replays, and emitting one is no command: the
 * run's history is the same with metrics on or off.
 */

/** The task label of a run whose request was refused before it was checked: a client's words never become a label. */
export const UNCHECKED_TASK = 'unchecked';

/** A run whose request was checked starts its operations. */
export function runStarted(task: string): void {
  metricMeter.createCounter(METRIC.runsStarted.name, 'runs', METRIC.runsStarted.help).add(1, { task });
}

/** A run ended: how, why if it failed, and whether its budget was spent. */
export function runEnded(o: { task: string; outcome: RunOutcome; error?: unknown; budgetExhausted: boolean }): void {
  metricMeter.createCounter(METRIC.runsFinished.name, 'runs', METRIC.runsFinished.help).add(1, {
    task: o.task,
    outcome: o.outcome,
    failure: o.outcome === 'failed' ? failureLabel(o.error) : 'none',
    budget_exhausted: String(o.budgetExhausted),
  });
}

/**
 * Counts what a GRS fact says about the run: a re-asked call, an operation that completed. Facts
 * reach here only while the run is not replaying (`got.ts`), as its metrics would not be emitted then.
 */
export function observeFact(grs: GrsRecorder, task: string, fact: GrsFact): void {
  if (fact.kind === 'callRecorded' && fact.call.reask) {
    metricMeter.createCounter(METRIC.llmReasks.name, 'calls', METRIC.llmReasks.help).add(1, { task, purpose: fact.call.purpose });
  } else if (fact.kind === 'operationFinished' && fact.status === 'done') {
    const op = grs.operation(fact.id);
    // Times recorded in history (decision 10): the operation's last input's end to its own.
    if (op.startedAt === undefined) return;
    metricMeter
      .createHistogram(METRIC.operationDuration.name, 'float', 's', METRIC.operationDuration.help)
      .record(Math.max(0, fact.at - op.startedAt) / 1000, { type: op.type });
  }
}

/** The failure type a run failed with: the first known one along its chain of causes. */
export function failureLabel(error: unknown): RunFailureLabel {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof TimeoutFailure) return 'Timeout';
    const type = e instanceof ApplicationFailure ? (e.type ?? undefined) : undefined;
    if (isCountedFailure(type)) return type;
  }
  return 'Other';
}
