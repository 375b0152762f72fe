import { queryPendingReview, sendDecisions } from '../../client/review';
import { ValidationError } from '../../goo/validate';
import { withCliClient } from '../cli-client';
import { askDecisions, describeDisagreement, parseChoices } from '../review-decisions';

export interface ReviewOptions {
  /** `d1=2`, `d1=nda2.pdf`, `d1=text:New York`; repeatable. */
  choose: string[];
  /** Send no decisions: every disagreement stays as the merge states it. */
  keepMerge: boolean;
  json: boolean;
}

/**
 * `got review <workflowId>`: the disagreements a run waits on, and a person's decisions sent to it.
 * Without `--choose` or `--keep-merge` it lists them, and on a terminal asks for each.
 */
export async function reviewCommand(workflowId: string, o: ReviewOptions, log: (line: string) => void): Promise<void> {
  await withCliClient(log, async ({ client }) => {
    const handle = client.workflow.getHandle(workflowId);
    const pending = await queryPendingReview(handle);
    if (!pending)
      throw new ValidationError('options', [
        { path: '<workflowId>', message: `${workflowId} is not waiting for decisions on disagreements` },
      ]);
    if (o.json && !o.choose.length && !o.keepMerge) {
      console.log(JSON.stringify(pending, null, 2));
      return;
    }
    const interactive = !o.choose.length && !o.keepMerge;
    if (interactive && !process.stdin.isTTY) {
      console.log(pending.disagreements.map((d) => describeDisagreement(d, pending.documents)).join('\n'));
      log(`Decide with: got review ${workflowId} --choose ${pending.disagreements[0]?.id}=<document number> ... (or --keep-merge)`);
      return;
    }
    const decisions = interactive ? await askDecisions(pending) : o.keepMerge ? [] : parseChoices(o.choose, pending);
    const { accepted } = await sendDecisions(handle, { decisions });
    log(`Sent ${accepted} decision(s) to ${workflowId}; the run finishes the merge with them.`);
  });
}
