import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { describeFork } from '../src/fork/describe';
import type { GrsRecorder } from '../src/grs/recorder';
import type { RunRequest } from '../src/run/request';
import { GOT_SEARCH_ATTRIBUTES, type RunStatus } from '../src/run/search-attributes';
import { describeSteer } from '../src/steering/describe';
import type { SteerEvent } from '../src/steering/types';
import { taskIdOf } from '../src/tasks/task-ref';
import type { RunGraph } from './run-graph';

/**
 * What the Web UI shows of a run besides its history: typed search attributes to filter runs by,
 * and the current details line (progress) on the run's page.
 */

export function markStarted(request: RunRequest): void {
  const { task, scheme, status } = GOT_SEARCH_ATTRIBUTES;
  upsertSearchAttributes([
    { key: task, value: taskIdOf(request.task) },
    ...(request.labels.scheme !== undefined ? [{ key: scheme, value: String(request.labels.scheme) }] : []),
    { key: status, value: 'running' satisfies RunStatus },
  ]);
}

export function markFinished(status: Exclude<RunStatus, 'running'>, costUsdSpent: number, bestScore: number | undefined): void {
  const { status: statusKey, costUsd, bestScore: bestKey } = GOT_SEARCH_ATTRIBUTES;
  upsertSearchAttributes([
    { key: statusKey, value: status },
    { key: costUsd, value: round(costUsdSpent) },
    ...(bestScore !== undefined ? [{ key: bestKey, value: bestScore }] : []),
  ]);
}

/** The run page's details line: operations done of the graph's (growing) total, what runs, what has grown, what waits. */
export function showProgress(grs: GrsRecorder, graph: RunGraph, running: ReadonlySet<string>, awaitingHumans: readonly string[]): void {
  const { llmCalls, promptTokens, completionTokens, costUsd } = grs.spent;
  const grown = graph.growthSummary();
  const lines = [
    `**${grs.finishedOperations} of ${graph.size} operations done** · ${llmCalls} LLM call${llmCalls === 1 ? '' : 's'} · ${promptTokens + completionTokens} tokens · $${costUsd.toFixed(4)}`,
    running.size ? `running: ${[...running].join(', ')}` : '',
    grown.length ? `grown at run time: ${grown.join('; ')}` : '',
    awaitingHumans.length ? `waiting for a person to score: ${awaitingHumans.join(', ')}` : '',
    grs.budgetExhausted ? 'budget exhausted: no further LLM calls' : '',
    steerLine(grs.steeringEvents.at(-1)),
    forkLine(grs),
  ];
  setCurrentDetails(lines.filter(Boolean).join('\n\n'));
}

/** The last steer, while it still says something about the run: a pause, a budget (a resume only ends a pause). */
const steerLine = (event: SteerEvent | undefined) => (event && event.action !== 'resume' ? `**${describeSteer(event)}**` : '');

/** A fork names its parent and what it took from it (decision 102). */
const forkLine = (grs: GrsRecorder) => {
  const fork = grs.forkRecord;
  return fork ? (describeFork({ fork, totals: grs.spent }) ?? '') : '';
};

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
