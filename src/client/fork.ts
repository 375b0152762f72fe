import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { ForkInstruction, ForkSpec } from '../fork/types';
import type { GoO } from '../goo/schema';
import { runRequestOf } from '../inspect/rebuild';
import type { NamedScheme, RunRequestInput } from '../run/request';
import { startRun } from './runs';

/** What a fork changes of its parent's request; everything else is the parent's. */
export interface ForkChanges {
  /** Where the fork starts anew: an operation, a forEach's part (`merge[3]`) or a thought id. */
  at?: string;
  instructions?: ForkInstruction[];
  /** Another model (from the fork point on, when one is named). */
  model?: string;
  temperature?: number;
  /** Another GoO, or the parent's scheme with other parameters (expanded again by the worker). */
  goo?: GoO;
  scheme?: NamedScheme;
  review?: RunRequestInput['review'];
  budget?: RunRequestInput['budget'];
  labels?: Record<string, string | number>;
  /** The parent's decisions apply again where the fork's merge has the same disagreements (default true). */
  carryDecisions?: boolean;
  by?: string;
  reason?: string;
}

export interface ForkOptions {
  /** The fork's workflow id; default `<parent>.fork-<time>`. */
  workflowId?: string;
  /** Default: the parent's task queue. */
  taskQueue?: string;
}

/**
 * Starts a fork of a recorded run (decision 102): the parent's request as it ran (a named scheme as
 * its worker expanded it, unless a scheme is given), with the changes, and `fork` naming the parent.
 * The worker recalls the parent's thoughts; the request is checked here first, like any run.
 */
export async function forkRun(
  client: Client,
  parentWorkflowId: string,
  changes: ForkChanges = {},
  o: ForkOptions = {},
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const parent = client.workflow.getHandle(parentWorkflowId);
  const [history, described] = await Promise.all([parent.fetchHistory(), parent.describe()]);
  const request = await runRequestOf(history, client.options.dataConverter);
  const fork: ForkSpec = {
    parent: parentWorkflowId,
    parentRunId: described.runId,
    ...(changes.at ? { at: changes.at } : {}),
    ...(changes.instructions?.length ? { instructions: changes.instructions } : {}),
    ...(changes.carryDecisions === false ? { carryDecisions: false } : {}),
    ...(changes.by ? { by: changes.by } : {}),
    ...(changes.reason ? { reason: changes.reason } : {}),
  };
  const { goo, scheme, fork: _grandparent, ...rest } = request as RunRequestInput & { fork?: unknown };
  const graph = changes.goo ? { goo: changes.goo } : changes.scheme ? { scheme: changes.scheme } : goo ? { goo } : { scheme };
  const forked: RunRequestInput = {
    ...rest,
    ...graph,
    llm: {
      ...rest.llm,
      ...(changes.model ? { model: changes.model } : {}),
      ...(changes.temperature !== undefined ? { temperature: changes.temperature } : {}),
    },
    ...(changes.review ? { review: changes.review } : {}),
    ...(changes.budget ? { budget: changes.budget } : {}),
    labels: { ...rest.labels, ...changes.labels },
    fork,
  };
  return startRun(client, forked, {
    workflowId: o.workflowId ?? forkIdFor(parentWorkflowId),
    taskQueue: o.taskQueue ?? described.taskQueue,
  });
}

/** `<parent>.fork-<UTC time>`: a fork's id says whose fork it is and sorts after its parent. */
export function forkIdFor(parent: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.(\d{3})Z$/, '$1');
  return `${parent}.fork-${stamp}`;
}
