import type { WorkflowHandle } from '@temporalio/client';
import type { PendingReview, ReviewDecisions } from '../run/request';
import { QUERY, UPDATE } from '../run/wire';

/** The disagreements a run waits on for a person's decisions, or null when it waits for none. */
export async function queryPendingReview(handle: WorkflowHandle): Promise<PendingReview | null> {
  return handle.query<PendingReview | null>(QUERY.pendingReview);
}

/** Sends a person's decisions; the run refuses (and never records) decisions naming unknown disagreements or documents. */
export async function sendDecisions(handle: WorkflowHandle, decisions: ReviewDecisions): Promise<{ accepted: number }> {
  return handle.executeUpdate<{ accepted: number }, [ReviewDecisions]>(UPDATE.decideDisagreements, { args: [decisions] });
}
