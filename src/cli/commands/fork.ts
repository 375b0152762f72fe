import { forkRun } from '../../client/fork';
import { resultOf, webUiLink } from '../../client/runs';
import { ForkInstruction } from '../../fork/types';
import { ValidationError } from '../../goo/validate';
import { withCliClient } from '../cli-client';
import { type LlmSource, llmChoiceOfQueue } from '../llm-source';
import { startRuntimeFor } from '../runtime';

export interface ForkOptions {
  at?: string;
  instruct: string[];
  model?: string;
  temperature?: number;
  carryDecisions: boolean;
  by?: string;
  reason?: string;
  workflowId?: string;
  llm?: LlmSource;
  localModel?: string;
  taskQueue?: string;
  worker: boolean;
  latency: number;
  wait: boolean;
  json: boolean;
}

/** `--instruct merge[3]=<text>`: a reviewer's words for an operation's (or a part's) steps, checked by the contract's schema. */
export function instructionsOf(given: readonly string[]): ForkInstruction[] {
  return given.map((g, i) => {
    const at = g.indexOf('=');
    const parsed = ForkInstruction.safeParse(at > 0 ? { operation: g.slice(0, at), text: g.slice(at + 1) } : {});
    if (!parsed.success)
      throw new ValidationError('options', [
        {
          path: `--instruct (${i + 1})`,
          message: `expected <operation>=<text>, e.g. merge[3]=Keep the 30-day notice; got ${JSON.stringify(g)}`,
        },
      ]);
    return parsed.data;
  });
}

/**
 * `got fork <workflowId>`: a new run from a recorded one (decision 102). What the parent already did
 * on the same inputs is taken from it without a call; the point, the instructions and the model given
 * here are what is asked again. The fork runs on the LLM the parent's queue names unless told otherwise.
 */
export async function forkCommand(parentId: string, o: ForkOptions, log: (line: string) => void): Promise<void> {
  const instructions = instructionsOf(o.instruct);
  // Where the fork's new calls go: as the parent's were, unless the command names an LLM or a queue.
  const parentQueue = await withCliClient(log, async ({ client }) => (await client.workflow.getHandle(parentId).describe()).taskQueue);
  const llm = o.llm ? { llm: o.llm, ...(o.localModel ? { localModel: o.localModel } : {}) } : llmChoiceOfQueue(parentQueue);
  const runtime = await startRuntimeFor(
    { worker: o.worker, latency: o.latency, ...llm, ...(o.taskQueue ? { taskQueue: o.taskQueue } : {}) },
    log,
    { workflowsInThisThread: true },
  );
  try {
    const handle = await forkRun(
      runtime.client,
      parentId,
      {
        ...(o.at ? { at: o.at } : {}),
        ...(instructions.length ? { instructions } : {}),
        ...(o.model ? { model: o.model } : {}),
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.carryDecisions ? {} : { carryDecisions: false }),
        by: o.by ?? process.env.USER ?? 'cli',
        ...(o.reason ? { reason: o.reason } : {}),
      },
      { taskQueue: runtime.taskQueue, ...(o.workflowId ? { workflowId: o.workflowId } : {}) },
    );
    const webUi = webUiLink(runtime.uiUrl, runtime.namespace, handle.workflowId, handle.firstExecutionRunId);
    if (!o.wait) {
      if (o.json) console.log(JSON.stringify({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId, webUi }));
      else log(`Fork ${handle.workflowId} of ${parentId} started on ${runtime.taskQueue}.\nWeb UI: ${webUi}`);
      return;
    }
    log(`Fork ${handle.workflowId} of ${parentId}: running (if it waits for decisions: got review ${handle.workflowId} --web).`);
    const result = await resultOf(handle);
    const { llmCalls, inheritedCalls = 0, costUsd } = result.grs.totals;
    const summary = {
      workflowId: handle.workflowId,
      parent: parentId,
      callsMade: llmCalls,
      callsInherited: inheritedCalls,
      costUsd,
      ...(result.best?.score !== undefined ? { bestScore: result.best.score } : {}),
      webUi,
    };
    if (o.json) console.log(JSON.stringify(summary));
    else
      log(
        `Fork ${handle.workflowId}: ${llmCalls} LLM call${llmCalls === 1 ? '' : 's'} made, ${inheritedCalls} taken from ${parentId} without a call; $${costUsd.toFixed(4)}` +
          `${summary.bestScore !== undefined ? `; best score ${summary.bestScore}` : ''}.\nWeb UI: ${webUi}`,
      );
  } finally {
    await runtime.close();
  }
}
