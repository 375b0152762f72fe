import { CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import { callsLlm } from '../src/goo/graph';
import type { Operation } from '../src/goo/schema';
import type { Thought } from '../src/grs/types';
import { uniqueThoughts } from '../src/operations/filters';
import { opClock, type RunContext } from './context';
import { rootCause } from './failures';
import { execute } from './steps';
import { finishNow } from './steps/local';

/** Where a run that did not complete failed first. */
export interface OperationFailure {
  operation: string;
  error: unknown;
}

/**
 * Runs a GoO: launches every operation whose input operations are done, settles it when its step
 * ends, and launches what that makes ready, so independent branches run concurrently.
 */
export class Scheduler {
  /** Operations running now (their steps have not settled). */
  readonly running = new Set<string>();
  /** Output thought ids of the operations that are done. */
  private readonly outputs = new Map<string, string[]>();
  /** When each done operation ended, by the history-recorded clocks it saw. */
  private readonly endedAt = new Map<string, number>();
  private failure: OperationFailure | undefined;
  // Times come from history (the run's start, activity results), never from Date.now(): the workflow
  // clock after a local activity differs by a millisecond between a run and its replay.
  private readonly runStart = workflowInfo().runStartTime.getTime();

  constructor(private readonly ctx: RunContext) {}

  /**
   * Launches the operations without inputs and waits until every operation is done or one failed.
   * Returns the first failure; a cancelled run waits for its running operations to settle (so the
   * partial GRS records how each ended) and rethrows the cancellation.
   */
  async run(): Promise<OperationFailure | undefined> {
    const { analyzed } = this.ctx;
    for (const id of analyzed.order) if (analyzed.byId.get(id)!.inputs.length === 0) this.launch(id);
    this.ctx.progressChanged();
    try {
      await condition(() => this.failure !== undefined || this.outputs.size === analyzed.order.length);
    } catch (error) {
      if (!isCancellation(error)) throw error;
      // The cancelled operations settle at once (TRY_CANCEL): wait for them so the partial GRS records how each ended.
      await CancellationScope.nonCancellable(() => condition(() => this.running.size === 0));
      throw error;
    }
    return this.failure;
  }

  private inputsOf(op: Operation): Thought[] {
    if (op.inputs.length === 0) return [this.ctx.root];
    return uniqueThoughts(op.inputs.flatMap((id) => this.outputs.get(id)!.map((t) => this.ctx.grs.thought(t))));
  }

  private launch(id: string): void {
    const { ctx } = this;
    const op = ctx.analyzed.byId.get(id)!;
    const inputs = this.inputsOf(op);
    this.running.add(id);
    const clock = opClock(Math.max(this.runStart, ...op.inputs.map((i) => this.endedAt.get(i)!)));
    ctx.grs.startOperation(
      id,
      inputs.map((t) => t.id),
      clock.at,
    );

    const settle = (out: Thought[]) => {
      this.running.delete(id);
      const ids = out.map((t) => t.id);
      this.outputs.set(id, ids);
      this.endedAt.set(id, clock.at);
      // An LLM operation that had inputs yet produced nothing was starved by the budget.
      const starved = callsLlm(op) && inputs.length > 0 && out.length === 0 && ctx.grs.budgetExhausted;
      ctx.grs.finishOperation(id, ids, clock.at, starved ? 'skipped' : 'done', starved ? 'budget exhausted' : ctx.notes.get(id));
      for (const next of ctx.analyzed.successors.get(id)!) if (this.isReady(next)) this.launch(next);
      // After the successors started, so the details name what runs now.
      ctx.progressChanged();
    };
    const fail = (error: unknown) => {
      this.running.delete(id);
      if (isCancellation(error)) ctx.grs.finishOperation(id, [], clock.at, 'cancelled', 'the run was cancelled');
      else {
        ctx.grs.finishOperation(id, [], clock.at, 'failed', rootCause(error));
        this.failure ??= { operation: id, error };
      }
      ctx.progressChanged();
    };

    // A step that needs no activity (a filter, or checks its inputs' LLM steps made) finishes at
    // once where the run's path allows it: no promise, so its successors start in the same turn.
    let now: Thought[] | undefined;
    try {
      now = ctx.path.finishesInTurn ? finishNow(ctx, op, inputs) : undefined;
    } catch (error) {
      fail(error);
      return;
    }
    if (now) settle(now);
    else execute(ctx, { op, clock, inputs }).then(settle, fail);
  }

  private isReady(id: string): boolean {
    return !this.running.has(id) && !this.outputs.has(id) && this.ctx.analyzed.byId.get(id)!.inputs.every((i) => this.outputs.has(i));
  }
}
