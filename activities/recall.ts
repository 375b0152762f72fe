import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { instructionsFor } from '../src/fork/inherit';
import { type Recalled, shapingOf } from '../src/fork/types';
import { GoO } from '../src/goo/schema';
import type { Grs } from '../src/grs/types';
import { inspectRun, runRequestOf } from '../src/inspect/rebuild';
import { LlmSettings, type RunRequestInput } from '../src/run/request';
import { FAILURE } from '../src/run/wire';
import { bundleGotWorkflows } from '../worker/bundle';

/** Which recorded run a fork recalls. */
export interface RecallStep {
  workflowId: string;
  runId?: string;
  /** The fork's point, checked against the parent when it names a thought. */
  at?: string;
}

/**
 * A fork's parent, recalled from its history (decision 102): the parent's GRS is rebuilt by replaying
 * its history here, in the worker, with the worker's client and codecs, so any client can fork a run
 * by naming it. The result is recorded in the fork's history: the fork replays without its parent.
 */
export async function recallParent(step: RecallStep): Promise<Recalled> {
  const client = Context.current().client;
  let rebuilt: Awaited<ReturnType<typeof inspectRun>>;
  try {
    rebuilt = await inspectRun(client, step.workflowId, step.runId, { workflowBundle: await replayBundle() });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    // No such run, or a history this worker cannot read: asking again will not change it.
    if (/not found|unreadable|cannot be read|decod/i.test(why))
      throw ApplicationFailure.nonRetryable(`fork.parent: run ${step.workflowId} cannot be recalled: ${why}`, FAILURE.validation);
    throw error;
  }
  const { grs, history } = rebuilt;
  const request = await runRequestOf(history, client.options.dataConverter);
  if (!request.goo)
    throw ApplicationFailure.nonRetryable(
      `fork.parent: run ${step.workflowId} never ran a graph (its request was refused)`,
      FAILURE.validation,
    );
  if (step.at?.includes('/') && !grs.thoughts.some((t) => t.id === step.at))
    throw ApplicationFailure.nonRetryable(`fork.at: run ${step.workflowId} has no thought "${step.at}"`, FAILURE.validation);
  const runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? step.runId ?? '';
  return recalledOf(grs, request, { workflowId: step.workflowId, runId });
}

/** The Controller's code for replaying parents: bundled once per worker process, not once per fork. */
let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
const replayBundle = () => {
  bundle ??= bundleGotWorkflows();
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
};

/** What a fork keeps of its parent: the calls and the thoughts they read and made, the request's shaping, the decisions. */
export function recalledOf(grs: Grs, request: RunRequestInput, parent: Recalled['parent']): Recalled {
  const parentInstructions = (request as { fork?: { instructions?: { operation: string; text: string }[] } }).fork?.instructions;
  const calls = grs.calls.map((c) => {
    const instructions = instructionsFor(parentInstructions, c.operationId);
    return {
      id: c.id,
      operationId: c.operationId,
      purpose: c.purpose,
      model: c.model,
      samples: c.samples,
      inputThoughts: c.inputThoughts,
      outputThoughts: c.outputThoughts,
      ...(instructions ? { instructions } : {}),
    };
  });
  const needed = new Set(calls.flatMap((c) => [...c.inputThoughts, ...c.outputThoughts]));
  const review = grs.review;
  return {
    parent,
    seed: request.seed ?? 0,
    // Defaults filled in as the fork's own GoO has them, so the two compare operation by operation.
    goo: GoO.parse(request.goo),
    llm: shapingOf(LlmSettings.parse(request.llm ?? {})),
    calls,
    thoughts: grs.thoughts.filter((t) => needed.has(t.id)),
    ...(review?.decisions?.length
      ? {
          decisions: {
            decisions: review.decisions,
            disagreements: review.disagreements.map(({ id, kind, topic }) => ({ id, kind, topic })),
          },
        }
      : {}),
  };
}
