import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { type RunHealth, runHealth, stuckAdvice } from '../../client/health';
import { queryProgress, webUiLink } from '../../client/runs';
import type { Progress } from '../../run/request';
import { GOT_SEARCH_ATTRIBUTES } from '../../run/search-attributes';
import { STUDY_QUERY, STUDY_WORKFLOW_TYPE, TRIAL_WORKFLOW_TYPE } from '../../run/wire';
import type { StudyProgress, TrialProgress } from '../../tune/results';
import { withCliClient } from '../cli-client';
import { llmFlagsOfQueue } from '../llm-source';

/** How long `got status` waits for a run's progress: a run without a working worker never answers. */
const PROGRESS_QUERY_TIMEOUT_MS = 5_000;

export interface StatusOptions {
  runId?: string;
  /** Failed workflow task attempts in a row that make a run stuck (default `DEFAULT_STUCK_AFTER`). */
  stuckAfter?: number;
  json: boolean;
}

/** What `got status` reports about one run. */
export interface RunStatusReport {
  workflowId: string;
  runId: string;
  /** Temporal's execution status, lower case: `running`, `completed`, `failed`, `canceled`, `terminated`, ... */
  status: string;
  /** The run's `GotStatus` search attribute, when it has one (e.g. `noAnswer`). */
  gotStatus?: string;
  health: RunHealth;
  /** The Controller's answer to the progress query (a running run that is not stuck). */
  progress?: Progress;
  /** A running study's answer to `studyProgress` (`got tune`), instead of `progress`. */
  studyProgress?: StudyProgress;
  /** A running trial's answer to `trialProgress`, instead of `progress`. */
  trialProgress?: TrialProgress;
  /** Why there is no progress for a running run (the query failed or took too long). */
  progressError?: string;
  /** A running run whose task queue no worker polls: the queue and the commands that resume it. */
  unserved?: { taskQueue: string; resume: string[] };
  webUi: string;
}

/** `got status <workflowId>`: the run's state, whether it is stuck, and its progress; it never waits on a run that cannot answer. */
export async function statusCommand(workflowId: string, o: StatusOptions, log: (line: string) => void): Promise<RunStatusReport> {
  return withCliClient(log, async ({ client, server }) => {
    const report = await statusOf(client, workflowId, { ...o, uiUrl: server.uiUrl });
    console.log(o.json ? JSON.stringify(report, null, 2) : formatStatus(report));
    return report;
  });
}

/** Reads one run's status; the progress query only for a running run that is not stuck, and within a deadline. */
export async function statusOf(
  client: Client,
  workflowId: string,
  o: Pick<StatusOptions, 'runId' | 'stuckAfter'> & { uiUrl: string },
): Promise<RunStatusReport> {
  const handle = client.workflow.getHandle(workflowId, o.runId);
  const described = await handle.describe();
  const status = described.status.name.toLowerCase();
  const gotStatus = described.typedSearchAttributes.get(GOT_SEARCH_ATTRIBUTES.status);
  const health = await runHealth(client, workflowId, described.runId, o.stuckAfter !== undefined ? { stuckAfter: o.stuckAfter } : {});
  const report: RunStatusReport = {
    workflowId,
    runId: described.runId,
    status,
    ...(gotStatus ? { gotStatus } : {}),
    health,
    webUi: webUiLink(o.uiUrl, client.options.namespace, workflowId, described.runId),
  };
  if (status !== 'running' || health.stuck) return report;
  const unserved = await unservedQueue(client, workflowId, described.taskQueue);
  if (unserved) {
    report.unserved = unserved;
    return report;
  }
  try {
    const ask = <T>(query: () => Promise<T>) => client.withDeadline(Date.now() + PROGRESS_QUERY_TIMEOUT_MS, query);
    // A study and its trials answer queries of their own.
    if (described.type === STUDY_WORKFLOW_TYPE)
      report.studyProgress = await ask(() => handle.query<StudyProgress>(STUDY_QUERY.studyProgress));
    else if (described.type === TRIAL_WORKFLOW_TYPE)
      report.trialProgress = await ask(() => handle.query<TrialProgress>(STUDY_QUERY.trialProgress));
    else report.progress = await ask(() => queryProgress(handle));
  } catch (e) {
    report.progressError = `no answer to the progress query within ${PROGRESS_QUERY_TIMEOUT_MS / 1000} s (is a worker running on its task queue?): ${(e as Error).message}`;
  }
  return report;
}

/**
 * The run's task queue when no worker has polled it lately (the server keeps pollers of the last
 * minute or so), with the commands that resume the run: a resident worker on that queue with the
 * LLM its name says, or the command that started it run again (with the id it joins the run).
 */
async function unservedQueue(client: Client, workflowId: string, taskQueue: string): Promise<RunStatusReport['unserved']> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  if (pollers?.length) return undefined;
  return {
    taskQueue,
    resume: [
      `got worker start --task-queue ${taskQueue} ${llmFlagsOfQueue(taskQueue)}`,
      `or run the command that started it again with --workflow-id ${workflowId}: it joins the run`,
    ],
  };
}

/** The status as a few aligned lines. */
export function formatStatus(r: RunStatusReport): string {
  const p = r.progress;
  return [
    `run ${r.workflowId}`,
    `  run id      ${r.runId}`,
    `  status      ${r.status}${r.gotStatus && r.gotStatus !== r.status ? ` (GotStatus ${r.gotStatus})` : ''}${r.health.stuck ? ' · STUCK' : ''}`,
    ...(r.health.stuck
      ? [
          `  stuck       ${r.health.child ? `the workflow task of child workflow ${r.health.child}` : 'workflow task'} failed ${r.health.attempts} times in a row since ${r.health.since.toISOString()}: ${r.health.cause}: ${r.health.message}`,
          `  what to do  ${stuckAdvice(r.workflowId)}`,
        ]
      : []),
    ...(p
      ? [
          `  progress    ${p.operationsDone}/${p.operationsTotal} operations · ${p.llmCalls} LLM calls · ${(p.promptTokens + p.completionTokens).toLocaleString('en')} tokens · $${p.costUsd.toFixed(4)}${p.running.length ? ` · running ${p.running.join(', ')}` : ''}${p.budgetExhausted ? ' · budget exhausted' : ''}`,
          ...(p.paused ? [`  paused      no new LLM call starts; resume with: got steer ${r.workflowId} resume`] : []),
        ]
      : []),
    ...(r.studyProgress ? [`  progress    ${studyLine(r.studyProgress)}`] : []),
    ...(r.trialProgress
      ? [
          `  progress    ${r.trialProgress.samplesDone} of at most ${r.trialProgress.samplesBudget} samples done, ${r.trialProgress.samplesRunning} running${r.trialProgress.meanScore !== undefined ? ` · mean score ${r.trialProgress.meanScore.toFixed(2)} · $${r.trialProgress.meanCostUsd!.toFixed(4)}/sample` : ''}`,
        ]
      : []),
    ...(r.progressError ? [`  progress    ${r.progressError}`] : []),
    ...(r.unserved
      ? [
          `  unserved    no worker polls its task queue ${r.unserved.taskQueue}; to resume it:`,
          ...r.unserved.resume.map((c) => `              ${c}`),
        ]
      : []),
    `  Web UI      ${r.webUi}`,
  ].join('\n');
}

/** A study's progress in a line: trials done, feasible, the best so far, the trial under way. */
function studyLine(p: StudyProgress): string {
  const best = p.best
    ? ` · best trial ${p.best.index}: score ${p.best.meanScore.toFixed(2)} at $${p.best.meanCostUsd.toFixed(4)}/sample`
    : '';
  return `${p.trialsDone}/${p.trialsPlanned} trials · ${p.feasible} feasible${best} · $${p.costUsd.toFixed(4)} recorded${p.running ? ` · running trial ${p.running.index}` : ''}`;
}
