import type { WorkflowHandle } from '@temporalio/client';
import { queryPendingReview, sendDecisions } from '../client/review';
import type { RunResult } from '../run/request';
import { askDecisions, describeDisagreement } from './review-decisions';

/** How often a run started with `--review` is asked whether it waits for decisions. */
const POLL_MS = 500;

/**
 * Waits for a run started with `--review`; once it waits for decisions, asks for them on a terminal,
 * or says how to send them with `got review` (the run waits durably, so any shell can answer).
 */
export async function withReviewPrompt(
  handle: WorkflowHandle,
  wait: () => Promise<RunResult>,
  log: (line: string) => void,
): Promise<RunResult> {
  let settled = false;
  let told = false;
  const watch = (async () => {
    while (!settled) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      if (settled) return;
      const pending = await queryPendingReview(handle).catch(() => null);
      if (!pending || told) continue;
      told = true;
      if (process.stdin.isTTY) {
        const decisions = await askDecisions(pending);
        const { accepted } = await sendDecisions(handle, { decisions });
        log(`Sent ${accepted} decision(s); finishing the merge.`);
      } else {
        log(pending.disagreements.map((d) => describeDisagreement(d, pending.documents)).join('\n'));
        log(
          `The run waits for decisions on ${pending.disagreements.length} disagreement(s): got review ${handle.workflowId} --choose ${pending.disagreements[0]?.id}=<document number> ... (or --keep-merge)`,
        );
      }
    }
  })();
  try {
    return await wait();
  } finally {
    settled = true;
    await watch.catch(() => undefined);
  }
}
