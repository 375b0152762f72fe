import { setTimeout as sleep } from 'node:timers/promises';
import { queryPendingReview, sendDecisions } from '../../client/review';
import { ValidationError } from '../../goo/validate';
import { startReviewWorkspace } from '../../review-web/server';
import { withCliClient } from '../cli-client';
import { llmChoiceOfQueue } from '../llm-source';
import { askDecisions, describeDisagreement, parseChoices } from '../review-decisions';
import { type CliRuntime, startRuntimeFor } from '../runtime';

export interface ReviewOptions {
  /** `d1=2`, `d1=nda2.pdf`, `d1=text:New York`; repeatable. */
  choose: string[];
  /** Send no decisions: every disagreement stays as the merge states it. */
  keepMerge: boolean;
  json: boolean;
  /** Serve the review workspace in the browser instead (decision 101). */
  web: boolean;
  /** The workspace's port (default: a free one). */
  port?: string;
}

/**
 * `got review <workflowId>`: the disagreements a run waits on, and a person's decisions sent to it.
 * Without `--choose` or `--keep-merge` it lists them, and on a terminal asks for each.
 */
export async function reviewCommand(workflowId: string, o: ReviewOptions, log: (line: string) => void): Promise<void> {
  if (o.web) return reviewInBrowser(workflowId, o, log);
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

/**
 * `got review <workflowId> --web`: the review workspace for the run, on 127.0.0.1 behind a token,
 * served until Ctrl-C (a finished run's merge stays readable there); says when the run closes.
 */
async function reviewInBrowser(workflowId: string, o: ReviewOptions, log: (line: string) => void): Promise<void> {
  const port = o.port === undefined ? 0 : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ValidationError('options', [{ path: '--port', message: `expected a port number, got ${JSON.stringify(o.port)}` }]);
  await withCliClient(log, async ({ client }) => {
    const handle = client.workflow.getHandle(workflowId);
    const open = (await handle.describe()).status.name === 'RUNNING';
    // A redo is a fork on the run's queue: served from here (the run's own command may have ended).
    const serving = new Map<string, Promise<CliRuntime>>();
    const serve = async (taskQueue: string) => {
      if (!serving.has(taskQueue))
        serving.set(taskQueue, startRuntimeFor({ worker: true, taskQueue, latency: 0, ...llmChoiceOfQueue(taskQueue) }, log));
      await serving.get(taskQueue);
    };
    const workspace = await startReviewWorkspace({ client, workflowId, port, serve });
    log(`Review ${workflowId} in your browser: ${workspace.url}`);
    log('Only this machine can open it, and only with its token. Ctrl-C stops serving it.');
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    if (open)
      void (async () => {
        while ((await handle.describe()).status.name === 'RUNNING') await sleep(2000);
        log(`${workflowId} has closed; its page shows the end. Ctrl-C stops serving it.`);
      })().catch(() => undefined);
    await stopped;
    await workspace.close();
    for (const runtime of serving.values()) await (await runtime).close();
    log(`Stopped serving the review of ${workflowId}.`);
  });
}
