import { proxyActivities, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import type { GotActivities } from '../activities';
import { Inheritance, inheritanceOf } from '../src/fork/inherit';
import type { ForkRecord, ForkSpec } from '../src/fork/types';
import type { GrsRecorder } from '../src/grs/recorder';
import type { RunRequest } from '../src/run/request';
import { GOT_SEARCH_ATTRIBUTES } from '../src/run/search-attributes';
import { NON_RETRYABLE_FAILURES } from '../src/run/wire';

/** The memo key a fork names its parent under (the search attribute `GotParent` lists forks by it too). */
export const FORK_MEMO = 'forkOf';

/**
 * A fork's start (decision 102): its parent recalled from the parent's history by an activity (the
 * result is in this history, so the fork replays alone), the link to the parent in the Web UI (search
 * attribute and memo), and the GRS fact that says what it forked from.
 */
export async function startFork(request: RunRequest & { fork: ForkSpec }, grs: GrsRecorder): Promise<Inheritance> {
  const { recallParent } = proxyActivities<GotActivities>({
    // Replaying a long run's history takes a while; a worker lost meanwhile is noticed by the timeout.
    startToCloseTimeout: 10 * 60_000,
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURES] },
    summary: `recall the parent run ${request.fork.parent}`,
  });
  const { fork } = request;
  const recalled = await recallParent({
    workflowId: fork.parent,
    ...(fork.parentRunId ? { runId: fork.parentRunId } : {}),
    ...(fork.at ? { at: fork.at } : {}),
  });
  upsertSearchAttributes([{ key: GOT_SEARCH_ATTRIBUTES.parent, value: recalled.parent.workflowId }]);
  upsertMemo({ [FORK_MEMO]: { ...recalled.parent, ...(fork.at ? { at: fork.at } : {}) } });
  grs.apply({ kind: 'forked', fork: forkRecordOf(fork, recalled.parent) });
  return new Inheritance(inheritanceOf(recalled, fork, { goo: request.goo, seed: request.seed, llm: request.llm }));
}

export function forkRecordOf(fork: ForkSpec, parent: ForkRecord['parent'], carriedDecisions?: string[]): ForkRecord {
  return {
    parent,
    ...(fork.at ? { at: fork.at } : {}),
    ...(fork.instructions?.length ? { instructions: fork.instructions } : {}),
    ...(carriedDecisions?.length ? { carriedDecisions } : {}),
    ...(fork.by ? { by: fork.by } : {}),
    ...(fork.reason ? { reason: fork.reason } : {}),
  };
}
