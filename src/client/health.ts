import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle, WorkflowService } from '@temporalio/client';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import proto from '@temporalio/proto';
import type { RunResult } from '../run/request';
import { DEFAULT_STUCK_AFTER, PARTS_WORKFLOW_TYPE } from '../run/wire';

// A run whose workflow task keeps failing cannot say so itself (its code never gets to run), and
// Temporal retries that task forever: only a client can tell, from the server's view of the run
// (docs/decisions.md, 33).

const { EventType, TimeoutType, WorkflowExecutionStatus, WorkflowTaskFailedCause } = proto.temporal.api.enums.v1;

/** How often a waiting client asks whether its run is stuck. */
export const STUCK_CHECK_INTERVAL_MS = 5_000;

/** A failure message is cut to this many characters: one line of an error, not a stack. */
const MESSAGE_MAX = 300;

/** Events read per page while looking back through a history for the last workflow task failure. */
const REVERSE_PAGE_SIZE = 64;

/** What can read a run's health: a `Client`, or the `WorkflowClient` of a handle (each has the service and its namespace). */
export interface HealthReader {
  workflowService: WorkflowService;
  options: { namespace: string };
}

/** A run whose current workflow task has failed (or timed out) `attempts` times in a row. */
export interface StuckRun {
  stuck: true;
  /** The run (execution) the facts are about: the latest one of its workflow id unless one was named. */
  runId: string;
  /** Failed or timed-out attempts of the current workflow task so far. */
  attempts: number;
  /** When the first attempt of this streak failed. */
  since: Date;
  /** The enum name of why: a `WorkflowTaskFailedCause`, or a `TimeoutType` for a task that timed out. */
  cause: string;
  /** The failure's own message (never its stack, details or payloads), on one line. */
  message: string;
  /** The child workflow running parts of the run that is stuck, when the run itself is not (decision 71); `runId` is the child's. */
  child?: string;
}

/** Whether a run is stuck on a workflow task that keeps failing. */
export type RunHealth = { stuck: false } | StuckRun;

/** Options of `runHealth`. */
export interface HealthOptions {
  /** Failed attempts in a row that make a run stuck (default `DEFAULT_STUCK_AFTER`; below 1: never). */
  stuckAfter?: number;
}

/**
 * Asks the server whether a run is stuck: running, with its current workflow task failed
 * `stuckAfter` times in a row. One describe call for a healthy run; the history is read (from its
 * end) only for a stuck one, to say why its task fails.
 */
export async function runHealth(client: HealthReader, workflowId: string, runId?: string, o: HealthOptions = {}): Promise<RunHealth> {
  const stuckAfter = o.stuckAfter ?? DEFAULT_STUCK_AFTER;
  const { namespace } = client.options;
  const described = await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId, runId } });
  const info = described.workflowExecutionInfo;
  if (stuckAfter < 1 || info?.status !== WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) return { stuck: false };
  // The task in progress is attempt n: the n - 1 before it failed or timed out.
  const pending = described.pendingWorkflowTask;
  const attempts = Math.max(0, (pending?.attempt ?? 1) - 1);
  if (attempts < stuckAfter) return childrenHealth(client, described.pendingChildren ?? [], o);
  const execution = { workflowId, runId: info.execution?.runId ?? runId ?? '' };
  const failure = await lastTaskFailure(client, execution);
  return {
    stuck: true,
    runId: execution.runId,
    attempts,
    since: failure?.at ?? optionalTsToDate(pending?.originalScheduledTime) ?? new Date(),
    cause: failure?.cause ?? 'UNKNOWN',
    message: failure?.message ?? 'no failure of this workflow task is recorded in the history',
  };
}

/** A run waits on its children running parts of it: one of them stuck leaves the run waiting forever too. */
async function childrenHealth(
  client: HealthReader,
  children: readonly { workflowId?: string | null; runId?: string | null; workflowTypeName?: string | null }[],
  o: HealthOptions,
): Promise<RunHealth> {
  for (const child of children) {
    if (child.workflowTypeName !== PARTS_WORKFLOW_TYPE || !child.workflowId) continue;
    const health = await runHealth(client, child.workflowId, child.runId ?? undefined, o);
    if (health.stuck) return { ...health, child: health.child ?? child.workflowId };
  }
  return { stuck: false };
}

/**
 * The last workflow task failure or timeout in a run's history, read backwards from its end. The
 * server records only the first failure of a streak (later attempts are transient), so this is
 * where the current streak began; a completed task met first means none is recorded.
 */
async function lastTaskFailure(
  client: HealthReader,
  execution: { workflowId: string; runId: string },
): Promise<{ at: Date; cause: string; message: string } | undefined> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution,
      maximumPageSize: REVERSE_PAGE_SIZE,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const event of page.history?.events ?? []) {
      const at = optionalTsToDate(event.eventTime) ?? new Date();
      switch (event.eventType) {
        case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED: {
          const failed = event.workflowTaskFailedEventAttributes;
          return {
            at,
            cause: WorkflowTaskFailedCause[failed?.cause ?? 0] ?? String(failed?.cause),
            message: oneLine(failed?.failure?.message || 'the workflow task failed without a message'),
          };
        }
        case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT: {
          const type = event.workflowTaskTimedOutEventAttributes?.timeoutType ?? 0;
          return { at, cause: TimeoutType[type] ?? String(type), message: 'no worker completed the workflow task in time' };
        }
        case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
          return undefined;
      }
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return undefined;
}

const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line;
};

/** The facts of a stuck run in one sentence (no advice): for errors, status lines and evaluation rows. */
export function stuckFacts(workflowId: string, h: StuckRun): string {
  const failed = `failed ${h.attempts} times in a row since ${h.since.toISOString()} (${h.cause}: ${h.message})`;
  if (h.child)
    return `run ${workflowId} is stuck: the workflow task of its child workflow ${h.child} (run id ${h.runId}), which runs parts of it, ${failed}`;
  return `run ${workflowId} (run id ${h.runId}) is stuck: its workflow task ${failed}`;
}

/** What a user can do about a stuck run, which is left as it is. */
export function stuckAdvice(workflowId: string): string {
  // A cancel request is only recorded: the workflow code that would act on it never runs.
  return `The run is left as it is: fix the workflow code or the worker and redeploy it, and the run resumes where it stopped; or end it with \`temporal workflow terminate --workflow-id ${workflowId}\` (a cancel takes effect only once a workflow task succeeds).`;
}

/** A waiting client gave up on a run because its workflow task keeps failing; the run itself goes on retrying. */
export class RunStuckError extends Error {
  override readonly name = 'RunStuckError';

  constructor(
    readonly workflowId: string,
    readonly health: StuckRun,
  ) {
    super(`${stuckFacts(workflowId, health)}. ${stuckAdvice(workflowId)}`);
  }
}

/** Options of `resultUnlessStuck`. */
export interface WaitOptions extends HealthOptions {
  /** How often the run's health is checked while waiting (default `STUCK_CHECK_INTERVAL_MS`). */
  checkEveryMs?: number;
  /** How long one abortable wait for the result lasts before a fresh one takes over (default `RESULT_WINDOW_MS`). */
  windowMs?: number;
}

/**
 * How long one abortable wait for a result lasts. The client adds an abort listener to the wait's
 * signal for every long poll (one each ~20 s) and never removes it, so a wait of hours on one signal
 * would gather hundreds of them (and Node's leak warning); a fresh signal a window keeps it to a few.
 */
export const RESULT_WINDOW_MS = 120_000;

/** `handle.result()` in windows of `windowMs`, each under a signal of its own that `stop` also aborts. */
async function resultInWindows(handle: WorkflowHandle, stop: AbortSignal, windowMs: number): Promise<RunResult> {
  for (;;) {
    const window = new AbortController();
    const end = () => window.abort();
    stop.addEventListener('abort', end, { once: true });
    const timer = setTimeout(end, windowMs);
    try {
      return (await handle.client.withAbortSignal(window.signal, () => handle.result())) as RunResult;
    } catch (error) {
      // The window's own end: wait again (the client asks for the run's close event only, so little is read twice).
      if (window.signal.aborted && !stop.aborted) continue;
      throw error;
    } finally {
      clearTimeout(timer);
      stop.removeEventListener('abort', end);
    }
  }
}

/**
 * A run's result, or a `RunStuckError` as soon as a health check finds the run stuck: waiting for
 * a run whose workflow task keeps failing would otherwise never end. The run is not touched.
 */
export async function resultUnlessStuck(handle: WorkflowHandle, o: WaitOptions = {}): Promise<RunResult> {
  const stuckAfter = o.stuckAfter ?? DEFAULT_STUCK_AFTER;
  if (stuckAfter < 1) return (await handle.result()) as RunResult;
  const stop = new AbortController();
  const watch = (async (): Promise<never> => {
    for (;;) {
      await sleep(o.checkEveryMs ?? STUCK_CHECK_INTERVAL_MS, undefined, { signal: stop.signal });
      // A check that fails is tried again at the next tick: the result's own long poll reports a lost server.
      const health = await runHealth(handle.client, handle.workflowId, undefined, { stuckAfter }).catch(() => undefined);
      if (health?.stuck) throw new RunStuckError(handle.workflowId, health);
    }
  })();
  // The result's long poll is aborted once the wait is over either way, so it holds no connection open.
  const result = resultInWindows(handle, stop.signal, o.windowMs ?? RESULT_WINDOW_MS);
  try {
    return await Promise.race([result, watch]);
  } finally {
    stop.abort();
  }
}
