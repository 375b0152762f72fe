import { type ActivityInterfaceFor, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { GotActivities, ReviewStepResult } from '../activities';
import { checkDecisions } from '../src/documents/check-decisions';
import type { ReviewRecord } from '../src/documents/types';
import { carriedDecisions } from '../src/fork/decisions';
import type { Thought } from '../src/grs/types';
import type { PendingReview, ReviewDecisions } from '../src/run/request';
import { FAILURE } from '../src/run/wire';
import type { RunContext } from './context';
import { decideDisagreementsUpdate, pendingReviewQuery } from './definitions';

/** A review reads every source once: seconds for a data room, never an LLM call, so no heartbeat. */
const reviewSteps = (): ActivityInterfaceFor<GotActivities> =>
  proxyActivities<GotActivities>({
    startToCloseTimeout: '10m',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.validation] },
  });

/**
 * The engine's review of the run's best answer (docs/decisions.md, 59): where each clause of a merge
 * came from and where the sources disagree, computed by an activity from the sources and recorded
 * in history, so the GRS rebuilt from history has it. With `review.decide`, the run then waits
 * (durably, for days if need be) for a person's decisions through the `decideDisagreements` update,
 * validated before it is accepted, and finishes with them applied.
 */
export class AnswerReviewing {
  private pending?: PendingReview;
  private received?: ReviewDecisions;

  constructor() {
    setHandler(pendingReviewQuery, () => this.pending ?? null);
    setHandler(decideDisagreementsUpdate, (input) => this.accept(input), { validator: (input) => this.validate(input) });
  }

  /** Whether the run waits for a person's decisions now. */
  get awaiting(): boolean {
    return this.pending !== undefined;
  }

  /** Reviews `best`, waits for decisions when the request asks and there is anything to decide, and records both in the GRS. */
  async run(ctx: Pick<RunContext, 'request' | 'problem' | 'grs' | 'progressChanged' | 'inheritance'>, best: Thought): Promise<void> {
    const steps = reviewSteps();
    const task = ctx.request.task;
    const thought = { id: best.id, state: best.state };
    const first = await steps.reviewAnswer({ task, thought, ...ctx.problem });
    let record: ReviewRecord = recordOf(best.id, first);
    ctx.grs.apply({ kind: 'reviewed', review: record });
    const settings = ctx.request.review;
    // A fork applies its parent's decisions again where its merge has the same disagreements (decision 102).
    const parent = ctx.inheritance?.parentDecisions;
    const carried = parent ? carriedDecisions(parent, first.review.disagreements) : [];
    if (carried.length) {
      ctx.grs.apply({ kind: 'forked', fork: { ...ctx.grs.forkRecord!, carriedDecisions: carried.map((d) => d.id) } });
      // Every disagreement decided as the parent's person decided it: nothing left to wait for.
      if (!settings?.decide || carried.length === first.review.disagreements.length) {
        const decided = await steps.reviewAnswer({ task, thought, ...ctx.problem, decisions: carried, review: first.review });
        ctx.grs.apply({ kind: 'reviewed', review: { ...recordOf(best.id, decided), decisions: carried } });
        return;
      }
    }
    if (!settings?.decide || first.review.disagreements.length === 0) return;

    this.pending = {
      thought: best.id,
      documents: first.documents,
      disagreements: first.review.disagreements,
      deadline: Date.now() + settings.timeoutSeconds * 1000,
    };
    ctx.progressChanged();
    try {
      const arrived = await condition(() => this.received !== undefined, settings.timeoutSeconds * 1000);
      if (!arrived) {
        record = { ...record, decisionsTimedOut: true };
        ctx.grs.apply({ kind: 'reviewed', review: record });
        return;
      }
    } finally {
      this.pending = undefined;
      ctx.progressChanged();
    }
    const decisions = this.received!.decisions;
    const decided = await steps.reviewAnswer({ task, thought, ...ctx.problem, decisions, review: first.review });
    ctx.grs.apply({ kind: 'reviewed', review: { ...recordOf(best.id, decided), decisions } });
  }

  private validate(input: ReviewDecisions): void {
    const pending = this.pending;
    if (!pending) throw new Error('the run is not waiting for decisions on disagreements');
    if (!input || !Array.isArray(input.decisions)) throw new Error('expected { decisions: [{ id, choose }] }');
    // The shape first (the schema library stays out of the workflow), then the rules the activity applies them by.
    const shapeless = input.decisions.flatMap((d, i) => {
      const choose = d?.choose as { document?: unknown; text?: unknown } | undefined;
      const chosen = typeof choose?.document === 'number' || (typeof choose?.text === 'string' && choose.text.trim() !== '');
      return typeof d?.id === 'string' && chosen
        ? []
        : [`decisions[${i}]: expected { id, choose: { document: <index> } or { text: "<value>" } }`];
    });
    const problems = shapeless.length ? shapeless : checkDecisions(pending.disagreements, input.decisions);
    if (problems.length) throw new Error(problems.join('; '));
  }

  private accept(input: ReviewDecisions): { accepted: number } {
    this.received = input;
    return { accepted: input.decisions.length };
  }
}

function recordOf(thought: string, step: ReviewStepResult): ReviewRecord {
  return {
    ...step.review,
    thought,
    documents: step.documents,
    ...(step.decidedText !== undefined ? { decidedText: step.decidedText } : {}),
  };
}
