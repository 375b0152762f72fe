import {
  ActivityFailure,
  ApplicationFailure,
  getExternalWorkflowHandle,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { GotActivities } from '../activities';
import { instructionsFor } from '../src/fork/inherit';
import type { Operation } from '../src/goo/schema';
import { FAILURE } from '../src/run/wire';
import { leavesNothing, type PruneGraph } from '../src/steering/reach';
import { readSteer } from '../src/steering/read';
import { type SteerableGraph, steeringRefusal } from '../src/steering/refusal';
import type { SteerOutcome, SteerRequest } from '../src/steering/types';
import { LOCAL_STEP_OPTIONS } from './activity-options';
import { budgetUsed } from './budget';
import type { RunContext } from './context';
import { holdCallsSignal, steerUpdate } from './definitions';
import type { Scheduler } from './scheduler';

/** The check of operations a steer adds: a local activity, as the request's own check is. */
const checks = proxyLocalActivities<GotActivities>(LOCAL_STEP_OPTIONS);

/**
 * A person steering the run (decision 100): the `steer` update pauses and resumes new LLM calls and
 * sets the budget. The handler is there from the start (an update before the run is ready is refused
 * with a reason, not lost); what a steer changes is read by the call slots (`holds`) and the budget
 * check (`budget`). Accepted steers are GRS facts, so a replay sees them at the same point.
 */
export class RunSteering {
  /** As the person last asked: what steers are checked against and what progress shows. */
  private paused = false;
  /** Whether new calls wait now: set with a pause at once, cleared a workflow task after a resume. */
  private holding = false;
  private changedBudget?: SteerOutcome['budget'];
  private ctx?: Pick<RunContext, 'request' | 'grs' | 'elsewhere' | 'progressChanged' | 'graph'>;
  private graphDone = false;
  /** Launches the operations a steer adds, and keeps the graph open while one is being checked. */
  private scheduler?: Scheduler;
  /** Pruned operations (with the steer that pruned them) and thoughts (decision 103). */
  private readonly prunedOperations = new Map<string, SteerRequest>();
  private readonly prunedThoughts = new Set<string>();
  /** A reviewer's words for operations' steps that start from now on. */
  private readonly instructions: { operation: string; text: string }[] = [];

  /** @param changesGraph the run's generation takes prunes and instructions (since the `forks` patch) */
  constructor(
    private readonly steerable: boolean,
    private readonly changesGraph = false,
  ) {
    setHandler(steerUpdate, (input) => this.accept(input), { validator: (input) => this.validate(input) });
  }

  /** The run is ready to be steered: its request checked, its GRS started; its call slots hold new calls while paused. */
  attach(ctx: Pick<RunContext, 'request' | 'grs' | 'elsewhere' | 'progressChanged' | 'slots' | 'graph'>, scheduler?: Scheduler): void {
    this.ctx = ctx;
    this.scheduler = scheduler;
    ctx.slots.holdWhile(() => this.holding);
  }

  /** The graph is done: no LLM call is left to hold or to budget. */
  finishGraph(): void {
    this.graphDone = true;
    this.paused = false;
    this.holding = false;
  }

  /** A person paused the run and has not resumed it. */
  get isPaused(): boolean {
    return this.paused;
  }

  /** A pruned operation does not run: the note its GRS record carries, or undefined when it was not pruned. */
  prunedNote(operationId: string): string | undefined {
    const steer = this.prunedOperations.get(operationId);
    return steer && `pruned${steer.by ? ` by ${steer.by}` : ''}${steer.reason ? ` (${steer.reason})` : ''}`;
  }

  /** Whether operations starting now may read this thought. */
  reads(thoughtId: string): boolean {
    return !this.prunedThoughts.has(thoughtId);
  }

  /** Every instruction given so far, in order: a child workflow starting now takes them for its parts. */
  get instructionList(): readonly { operation: string; text: string }[] {
    return this.instructions;
  }

  /** The instructions a person gave for an operation's steps while the run ran, joined; undefined where none. */
  instructionsFor(operationId: string): string | undefined {
    return instructionsFor(this.instructions, operationId);
  }

  /** The budget a steer set, else the request's. */
  budget(request: Pick<RunContext['request'], 'budget'>): RunContext['request']['budget'] {
    return this.changedBudget ? { ...request.budget, ...this.changedBudget } : request.budget;
  }

  private validate(input: unknown): void {
    const read = readSteer(input);
    if ('problem' in read) throw new Error(read.problem);
    const ctx = this.ctx;
    const refusal = steeringRefusal(
      {
        steerable: this.steerable,
        started: ctx !== undefined,
        graphDone: this.graphDone || (this.scheduler?.allSettled ?? false),
        paused: this.paused,
        ...(ctx ? { budget: this.budget(ctx.request) } : {}),
        spent: ctx ? budgetUsed(ctx) : { costUsd: 0, tokens: 0 },
        budgetExhausted: ctx?.grs.budgetExhausted ?? false,
        ...(ctx && this.changesGraph ? { graph: this.graphOf(ctx) } : {}),
      },
      read.steer,
    );
    if (refusal) throw new Error(refusal);
  }

  /** The graph as a prune or an instruction is checked against it. */
  private graphOf(ctx: Pick<RunContext, 'grs' | 'graph' | 'request'>): SteerableGraph {
    const { grs, graph } = ctx;
    const statusOf = (id: string) => {
      try {
        return grs.operation(id).status;
      } catch {
        return undefined;
      }
    };
    const pruned = () => ({ operations: new Set(this.prunedOperations.keys()), thoughts: this.prunedThoughts });
    const reach: PruneGraph = {
      sinks: grs.finalOperationIds,
      inputsOf: (id) => graph.op(id).inputs,
      outputsOf: (id) => {
        const status = statusOf(id);
        return status === 'pending' || status === 'running' ? undefined : grs.operation(id).outputThoughts;
      },
    };
    return {
      statusOf,
      gooOperations: ctx.request.goo.operations.map((op) => op.id),
      hasThought: (id) => grs.hasThought(id),
      // A thought reaches every operation whose input passed it on (a Score passes its inputs on): one that has not started reads it.
      readByPending: (id) =>
        graph
          .inOrder()
          .some(
            (op) =>
              statusOf(op.id) === 'pending' && op.inputs.some((i) => reach.outputsOf(i)?.includes(id) ?? i === grs.thought(id).operationId),
          ),
      prunedOperation: (id) => this.prunedOperations.has(id),
      prunedThought: (id) => this.prunedThoughts.has(id),
      leavesNothing: (prune) => leavesNothing(reach, pruned(), prune),
    };
  }

  private accept(input: SteerRequest): SteerOutcome | Promise<SteerOutcome> {
    // Read again, not handed over from the validator: validators do not run when a history replays.
    const { steer } = readSteer(input) as { steer: SteerRequest };
    if (steer.action === 'add') return this.add(steer);
    if (steer.action === 'pause') {
      this.paused = this.holding = true;
      this.tellChildren(true);
    } else if (steer.action === 'resume') {
      this.paused = false;
      // Calls start again in the next workflow task, not in this one: here the update's completion and
      // the calls' commands would come in an order set by how many promise steps the handler's
      // interceptors take (a traced worker's take more), and a replay on the other kind of worker
      // would find them swapped. A timer's command comes before the completion on every worker.
      void sleep(1).then(() => {
        if (!this.paused) this.holding = false;
      });
      this.tellChildren(false);
    } else if (steer.action === 'budget') this.changedBudget = { ...this.changedBudget, ...steer.budget };
    else if (steer.action === 'prune') {
      if (steer.operation !== undefined) this.prunedOperations.set(steer.operation, steer);
      else this.prunedThoughts.add(steer.thought!);
    } else this.instructions.push({ operation: steer.operation, text: steer.text });
    return this.recorded(steer);
  }

  /**
   * The child workflows running the run's parts hold or let go their new calls too (since the `forks`
   * patch; decision 104). Signalled a workflow task later, for the reason a resume's calls are; a child
   * that ended meanwhile needs nothing.
   */
  private tellChildren(hold: boolean): void {
    if (!this.changesGraph) return;
    const running = [...this.ctx!.elsewhere.running];
    if (!running.length) return;
    void sleep(1).then(() => {
      if (this.paused !== hold) return;
      for (const id of running)
        void getExternalWorkflowHandle(id)
          .signal(holdCallsSignal, hold)
          .catch(() => undefined);
    });
  }

  /** Records an accepted steer and answers with the run's state after it. */
  private recorded(steer: SteerRequest): SteerOutcome {
    this.ctx!.grs.steered({ ...steer, at: Date.now() });
    this.ctx!.progressChanged();
    const budget = this.budget(this.ctx!.request);
    return { paused: this.paused, ...(budget ? { budget } : {}) };
  }

  /**
   * Operations added to the running graph (decision 104): checked as a GoO is by a local activity (the
   * schema library stays out of the workflow), the graph kept from finishing meanwhile; refused with
   * the fields at fault, or joined to the graph and started a workflow task later (as a resume's calls).
   */
  private async add(steer: Extract<SteerRequest, { action: 'add' }>): Promise<SteerOutcome> {
    const ctx = this.ctx!;
    const scheduler = this.scheduler!;
    const release = scheduler.holdOpen();
    let operations: Operation[];
    try {
      operations = await checks.checkAddedOperations({ task: ctx.request.task, goo: ctx.request.goo, operations: steer.operations });
    } catch (error) {
      release();
      const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
      throw ApplicationFailure.nonRetryable(cause instanceof Error ? cause.message : String(cause), FAILURE.validation);
    }
    const reading = new Set(operations.flatMap((op) => op.inputs));
    const finalOperations = [
      ...ctx.grs.finalOperationIds.filter((id) => !reading.has(id)),
      ...operations.filter((op) => !reading.has(op.id)).map((op) => op.id),
    ];
    ctx.graph.add(operations);
    ctx.grs.apply({ kind: 'added', operations: operations.map(({ id, type, inputs }) => ({ id, type, inputs })), finalOperations });
    void sleep(1).then(() => {
      scheduler.added(operations.map((op) => op.id));
      release();
    });
    return this.recorded({ ...steer, operations });
  }
}
