import type { WorkflowHandle } from '@temporalio/client';
import { layoutOf, outputOfReview } from '../documents/output/layout';
import { mergeReviewHtml } from '../documents/output/review-html';
import type { Grs } from '../grs/types';
import type { PendingReview, Progress, RunResult } from '../run/request';
import { QUERY } from '../run/wire';
import { describeSteer } from '../steering/describe';
import { getTask } from '../tasks/registry';
import { type RedoPart, redoParts } from './parts';

/** What the review workspace shows of a run at one moment (`GET /api/state`). */
export interface WorkspaceState {
  workflowId: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, ... */
  status: string;
  progress?: Progress;
  /** The disagreements waiting for the reviewer's decisions, while the run waits for them. */
  pending?: PendingReview;
  /** The reviewed merge, each clause beside its sources, and the disagreements (escaped HTML, `mergeReviewHtml`). */
  reviewHtml?: string;
  /** What people asked of the run (steers), in words, oldest first. */
  steering: string[];
  /** Once the run finished: the parts a reviewer may redo with instructions (a fork, decision 102). */
  parts?: RedoPart[];
  /** The run is a fork: of which run, with which instructions, and what it paid for and took. */
  fork?: { parent: string; instructions: string[]; callsMade: number; callsInherited: number };
}

/** The reviewed merge as HTML: the decided text once a person decided, else the answer as merged. */
function reviewHtmlOf(grs: Grs): string | undefined {
  const review = grs.review;
  const thought = review && grs.thoughts.find((t) => t.id === review.thought);
  if (!review || !thought) return undefined;
  const output = outputOfReview(review, getTask(grs.task).answerText(thought.state));
  return mergeReviewHtml(output, layoutOf(output));
}

/** The run's GRS as it stands: queried while it runs, its result's once it completed; undefined otherwise. */
export async function currentGrs(handle: WorkflowHandle): Promise<Grs | undefined> {
  const { status } = await handle.describe();
  if (status.name === 'RUNNING') return handle.query<Grs>(QUERY.grs);
  if (status.name === 'COMPLETED') return ((await handle.result()) as RunResult).grs;
  return undefined;
}

/** The run as it stands: its progress and pending review while it runs, its result's GRS once it closed. */
export async function workspaceState(handle: WorkflowHandle): Promise<WorkspaceState> {
  const { status } = await handle.describe();
  const base = { workflowId: handle.workflowId, status: status.name };
  let grs: Grs | undefined;
  let running: Pick<WorkspaceState, 'progress' | 'pending'> = {};
  if (status.name === 'RUNNING') {
    const [progress, pending, snapshot] = await Promise.all([
      handle.query<Progress>(QUERY.progress),
      handle.query<PendingReview | null>(QUERY.pendingReview),
      handle.query<Grs>(QUERY.grs),
    ]);
    grs = snapshot;
    running = { progress, ...(pending ? { pending } : {}) };
  } else if (status.name === 'COMPLETED') grs = ((await handle.result()) as RunResult).grs;
  const reviewHtml = grs && reviewHtmlOf(grs);
  const fork = grs?.fork && {
    parent: grs.fork.parent.workflowId,
    instructions: (grs.fork.instructions ?? []).map((i) => `${i.operation}: ${i.text}`),
    callsMade: grs.totals.llmCalls,
    callsInherited: grs.totals.inheritedCalls ?? 0,
  };
  return {
    ...base,
    ...running,
    ...(reviewHtml ? { reviewHtml } : {}),
    steering: (grs?.steering ?? []).map(describeSteer),
    ...(status.name === 'COMPLETED' && grs ? { parts: redoParts(grs) } : {}),
    ...(fork ? { fork } : {}),
  };
}
