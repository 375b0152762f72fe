import { randomBytes } from 'node:crypto';
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { payloadStoreOf } from '../codec/data-converter';
import type { Grs } from '../grs/types';
import { checkRun } from '../run/check';
import type { Progress, RunRequestInput, RunResult, SentRunRequest } from '../run/request';
import { DEFAULT_TASK_QUEUE, QUERY, WORKFLOW_TASK_TIMEOUT_SECONDS, WORKFLOW_TYPE } from '../run/wire';
import { taskIdOf } from '../tasks/declarative/schema';

export interface StartOptions {
  taskQueue?: string;
  /** Defaults to an id that says what the run is: `got-<task>-<scheme>-<size>-s<sample>-<time>`. */
  workflowId?: string;
  /** A run still open under `workflowId` is returned instead of an error (its start time tells them apart). */
  joinOpen?: boolean;
}

/** A readable, unique workflow id: what you see first in the Web UI's run list. */
export function workflowIdFor(request: RunRequestInput, now = new Date()): string {
  const { scheme, size, sample } = request.labels ?? {};
  const parts = ['got', taskIdOf(request.task), scheme, size, sample === undefined ? undefined : `s${sample}`];
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.(\d{3})Z$/, '$1');
  // The time reads well in the run list; the suffix keeps ids unique when runs start in the same millisecond.
  return [...parts.filter((p) => p !== undefined), stamp, randomBytes(3).toString('hex')].join('-');
}

/** Validates the request against its task (refusing bad input before any cost) and starts the Controller. */
export async function startRun(
  client: Client,
  request: RunRequestInput,
  o: StartOptions = {},
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  // Payloads above the client's store threshold travel as references: only very wide steps are limited then.
  return startCheckedRun(client, checkRun(request, { storeThreshold: payloadStoreOf(client.options.dataConverter)?.threshold }).sent, o);
}

/**
 * Starts the Controller on a request `checkRun` has already accepted in this process (its `sent`:
 * a named scheme stays named); the worker checks it again, its own boundary, and expands the scheme.
 */
export async function startCheckedRun(
  client: Client,
  checked: SentRunRequest,
  o: StartOptions = {},
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  return client.workflow.start(WORKFLOW_TYPE, {
    taskQueue: o.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: o.workflowId ?? workflowIdFor(checked),
    args: [checked],
    workflowTaskTimeout: `${WORKFLOW_TASK_TIMEOUT_SECONDS}s`,
    // A run still open under this id is joined, not refused: its command run again after its terminal died.
    ...(o.joinOpen ? { workflowIdConflictPolicy: 'USE_EXISTING' as const } : {}),
  });
}

/**
 * Starts a run under a workflow id a command derives from its output folder, or joins the run that id
 * already names (running, or finished other than failed): a command run again pays for nothing twice.
 */
export async function startOrJoinRun(
  client: Client,
  checked: SentRunRequest | RunRequestInput,
  o: { taskQueue: string; workflowId: string },
): Promise<WorkflowHandle> {
  try {
    return await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: o.taskQueue,
      workflowId: o.workflowId,
      args: [checked],
      workflowTaskTimeout: `${WORKFLOW_TASK_TIMEOUT_SECONDS}s`,
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return client.workflow.getHandle(o.workflowId);
    throw e;
  }
}

/**
 * A run's progress, with what its child workflows running now have done so far (decision 71): the run
 * counts a child's operations, calls and cost once the child ends; until then each child answers for
 * its own. A child that ends meanwhile (its query fails) is counted by the run at its next answer.
 */
export async function queryProgress(handle: WorkflowHandle): Promise<Progress> {
  const progress = await handle.query<Progress>(QUERY.progress);
  if (!progress.children?.length) return progress;
  const children = await Promise.all(progress.children.map((id) => queryProgress(handle.client.getHandle(id)).catch(() => undefined)));
  for (const child of children) {
    if (!child) continue;
    progress.operationsDone += child.operationsDone;
    progress.llmCalls += child.llmCalls;
    progress.promptTokens += child.promptTokens;
    progress.completionTokens += child.completionTokens;
    progress.costUsd += child.costUsd;
    progress.budgetExhausted ||= child.budgetExhausted;
  }
  progress.operationsTotal = Math.max(progress.operationsTotal, progress.operationsDone);
  return progress;
}
export const queryGrs = (handle: WorkflowHandle) => handle.query<Grs>(QUERY.grs);
export const resultOf = (handle: WorkflowHandle) => handle.result() as Promise<RunResult>;

/** The Web UI page of one run (the dev server's UI, or TEMPORAL_UI_URL for a deployment). */
export function webUiLink(uiUrl: string, namespace: string, workflowId: string, runId?: string): string {
  const base = `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
