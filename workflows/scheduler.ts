import { CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import { callsLlm } from '../src/goo/graph';
import type { ForEachOperation } from '../src/goo/grow';
import type { Operation } from '../src/goo/schema';
import type { Thought } from '../src/grs/types';
import { uniqueThoughts } from '../src/operations/filters';
import { type OpClock, opClock, type RunContext } from './context';
import { rootCause } from './failures';
import { runsInChildren } from './parts/in-children';
import { execute } from './steps';
import { eachPart, type RunPart, splitParts } from './steps/for-each';
import { finishNow } from './steps/local';

/** Where a run that did not complete failed first. */
export interface OperationFailure {
  operation: string;
  error: unknown;
}

/** A forEach whose parts are running: it settles when every operation it grew is done. */
interface Growing {
  /** Each part's thoughts, whether it was kept, and the grown sinks whose outputs are its output (none: its thoughts are). */
  parts: (RunPart & { sinks: string[] })[];
  /** Grown operations not done yet. */
  left: number;
  clock: OpClock;
  settle(out: Thought[]): void;
  fail(error: unknown): void;
}

/**
 * Runs a GoO: launches every operation whose input operations are done, settles it when its step
 * ends, and launches what that makes ready, so independent branches run concurrently. A forEach
 * grows the graph by its body's copies (ordinary operations to everything here) and settles
 * once they are all done.
 */
export class Scheduler {
  /** Operations running now (their steps have not settled). */
  readonly running = new Set<string>();
  /** Output thought ids of the operations that are done. */
  private readonly outputs = new Map<string, string[]>();
  /** When each done operation ended, by the history-recorded clocks it saw. */
  private readonly endedAt = new Map<string, number>();
  private failure: OperationFailure | undefined;
  /** Steps that may still add operations (a steer being checked): the graph is not done while any is open. */
  private openHolds = 0;
  /** The forEach operations whose parts are running, by id. */
  private readonly growing = new Map<string, Growing>();
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
      await condition(() => this.failure !== undefined || (this.outputs.size === this.ctx.graph.size && this.openHolds === 0));
    } catch (error) {
      if (!isCancellation(error)) throw error;
      // The cancelled operations settle at once (TRY_CANCEL): wait for them so the partial GRS records how each ended.
      await CancellationScope.nonCancellable(() => condition(() => this.running.size === 0));
      throw error;
    }
    return this.failure;
  }

  /** Every operation of the graph has ended (the run is about to leave `run`). */
  get allSettled(): boolean {
    return this.outputs.size === this.ctx.graph.size;
  }

  /** Keeps the graph from being done until the returned release is called (a steer adding operations is being checked). */
  holdOpen(): () => void {
    this.openHolds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.openHolds--;
    };
  }

  /** Operations added to the graph (`RunGraph.add`): those whose inputs are done start now, the others when their inputs end. */
  added(ids: readonly string[]): void {
    for (const id of ids) if (this.isReady(id)) this.launch(id);
    this.ctx.progressChanged();
  }

  private inputsOf(op: Operation): Thought[] {
    if (op.inputs.length === 0) return this.ctx.graph.startOf(op.id)?.thoughts.map((t) => this.ctx.grs.thought(t)) ?? [this.ctx.root];
    const steering = this.ctx.steering;
    // Thoughts a person pruned are read by no operation that starts after the prune (decision 103).
    const read = (t: string) => !steering || steering.reads(t);
    return uniqueThoughts(
      op.inputs.flatMap((id) =>
        this.outputs
          .get(id)!
          .filter(read)
          .map((t) => this.ctx.grs.thought(t)),
      ),
    );
  }

  private launch(id: string): void {
    const { ctx } = this;
    const op = ctx.graph.op(id);
    const inputs = this.inputsOf(op);
    this.running.add(id);
    // A grown operation without input operations starts when its forEach grew.
    const start = op.inputs.length ? undefined : ctx.graph.startOf(id)?.at;
    const clock = opClock(start ?? Math.max(this.runStart, ...op.inputs.map((i) => this.endedAt.get(i)!)));
    ctx.grs.startOperation(
      id,
      inputs.map((t) => t.id),
      clock.at,
    );

    // A person pruned it while the run ran (decision 103): it does not run, and passes nothing on.
    const pruned = ctx.steering?.prunedNote(id);
    const settle = (made: Thought[]) => {
      // A fork at one of this operation's thoughts goes on from that thought alone (decision 102).
      const out = ctx.inheritance ? ctx.inheritance.goesOn(id, made) : made;
      this.running.delete(id);
      const ids = out.map((t) => t.id);
      this.outputs.set(id, ids);
      this.endedAt.set(id, clock.at);
      // An LLM operation that had inputs yet produced nothing was starved by the budget.
      const starved = callsLlm(op) && inputs.length > 0 && out.length === 0 && ctx.grs.budgetExhausted;
      const note = pruned ?? (starved ? 'budget exhausted' : ctx.notes.get(id));
      ctx.grs.finishOperation(id, ids, clock.at, pruned || starved ? 'skipped' : 'done', note);
      for (const next of ctx.graph.successorsOf(id)) if (this.isReady(next)) this.launch(next);
      this.grownDone(id, clock.at);
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
      this.grownEnded(id, error);
      ctx.progressChanged();
    };

    if (pruned) {
      settle([]);
      return;
    }
    if (op.type === 'forEach') {
      this.forEach({ op, clock, inputs }, settle, fail);
      return;
    }
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
    return !this.running.has(id) && !this.outputs.has(id) && this.ctx.graph.op(id).inputs.every((i) => this.outputs.has(i));
  }

  /**
   * A forEach: makes its parts (at once for `each`, in a local activity for a split), grows the
   * graph by a copy of its body per part and launches each copy's first operations. It settles
   * when every grown operation is done, with their sinks' outputs in part order.
   */
  private forEach(
    run: { op: ForEachOperation; clock: OpClock; inputs: Thought[] },
    settle: Growing['settle'],
    fail: Growing['fail'],
  ): void {
    const grow = (parts: RunPart[]) => this.grow(run.op, run.clock, parts, settle, fail);
    if (run.op.parts !== 'each') {
      splitParts(this.ctx, run).then(grow, fail);
      return;
    }
    let parts: RunPart[];
    try {
      parts = eachPart(run);
    } catch (error) {
      fail(error);
      return;
    }
    grow(parts);
  }

  private grow(op: ForEachOperation, clock: OpClock, parts: RunPart[], settle: Growing['settle'], fail: Growing['fail']): void {
    const { ctx } = this;
    const runsBody = (p: RunPart) => !p.kept && op.body.length > 0;
    const copies = ctx.graph.grow(
      op,
      parts.map((p) => (runsBody(p) ? { thoughts: p.thoughts.map((t) => t.id), at: clock.at } : undefined)),
    );
    ctx.grs.grow(
      op.id,
      parts.map((p, i) => ({
        thoughts: p.thoughts.map((t) => t.id),
        ...(p.kept ? { kept: true as const } : {}),
        operations: (copies[i]?.operations ?? []).map((g) => ({ id: g.id, type: g.type, inputs: g.inputs })),
      })),
    );
    ctx.notes.set(op.id, `${parts.length} part${parts.length === 1 ? '' : 's'}`);
    const growing: Growing = {
      parts: parts.map((p, i) => ({ ...p, sinks: copies[i]?.sinks ?? [] })),
      left: copies.reduce((n, c) => n + (c?.operations.length ?? 0), 0),
      clock,
      settle,
      fail,
    };
    if (growing.left === 0) {
      this.settleForEach(growing);
      return;
    }
    this.growing.set(op.id, growing);
    if (ctx.path.runsPartsInChildren && runsInChildren(ctx, this, { op, clock, copies })) {
      ctx.progressChanged();
      return;
    }
    // Every copy's first operations, in part order: a copy that needs no activity may finish in this turn.
    for (const copy of copies) for (const g of copy?.operations ?? []) if (g.inputs.length === 0) this.launch(g.id);
    ctx.progressChanged();
  }

  /** A grown operation a child workflow ran has ended there (decision 71): as if it had ended here. */
  doneElsewhere(id: string, outputs: string[], at: number): void {
    this.outputs.set(id, outputs);
    this.endedAt.set(id, at);
    this.grownDone(id, at);
  }

  /**
   * A child workflow running grown operations of the forEach that grew `id` failed in `operation`, or
   * was cancelled (then called once no other child of that forEach runs): the forEach ends so.
   */
  endedElsewhere(id: string, error: unknown, operation = id): void {
    if (!isCancellation(error)) this.failure ??= { operation, error };
    this.grownEnded(id, error);
  }

  /** A forEach's output: each part's sinks' outputs (its thoughts when kept or the body is empty), in part order, each once. */
  private settleForEach({ parts, settle }: Growing): void {
    const ids = parts.flatMap((p) => (p.sinks.length ? p.sinks.flatMap((s) => this.outputs.get(s)!) : p.thoughts.map((t) => t.id)));
    settle(uniqueThoughts(ids.map((t) => this.ctx.grs.thought(t))));
  }

  /** A grown operation is done: its forEach settles when it was the last one. */
  private grownDone(id: string, at: number): void {
    const owner = this.ctx.graph.ownerOf(id);
    const growing = owner === undefined ? undefined : this.growing.get(owner);
    if (!growing) return;
    growing.clock.saw(at);
    if (--growing.left > 0) return;
    this.growing.delete(owner!);
    this.settleForEach(growing);
  }

  /**
   * A grown operation failed or was cancelled: a failure fails its forEach at once (and so the
   * forEach around it); a cancelled run's forEach ends cancelled once none of its operations runs.
   */
  private grownEnded(id: string, error: unknown): void {
    const owner = this.ctx.graph.ownerOf(id);
    const growing = owner === undefined ? undefined : this.growing.get(owner);
    if (!growing) return;
    if (isCancellation(error) && this.ctx.graph.grownBy(owner!).some((g) => this.running.has(g))) return;
    this.growing.delete(owner!);
    growing.fail(error);
  }
}
