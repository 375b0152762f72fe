import { setHandler, sleep } from '@temporalio/workflow';
import { instructionsFor } from '../src/fork/inherit';
import { leavesNothing, type PruneGraph } from '../src/steering/reach';
import { readSteer } from '../src/steering/read';
import { type SteerableGraph, steeringRefusal } from '../src/steering/refusal';
import type { SteerOutcome, SteerRequest } from '../src/steering/types';
import { budgetUsed } from './budget';
import type { RunContext } from './context';
import { steerUpdate } from './definitions';

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
  attach(ctx: Pick<RunContext, 'request' | 'grs' | 'elsewhere' | 'progressChanged' | 'slots' | 'graph'>): void {
    this.ctx = ctx;
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
        graphDone: this.graphDone,
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

  private accept(input: SteerRequest): SteerOutcome {
    // Read again, not handed over from the validator: validators do not run when a history replays.
    const { steer } = readSteer(input) as { steer: SteerRequest };
    if (steer.action === 'pause') this.paused = this.holding = true;
    else if (steer.action === 'resume') {
      this.paused = false;
      // Calls start again in the next workflow task, not in this one: here the update's completion and
      // the calls' commands would come in an order set by how many promise steps the handler's
      // interceptors take (a traced worker's take more), and a replay on the other kind of worker
      // would find them swapped. A timer's command comes before the completion on every worker.
      void sleep(1).then(() => {
        if (!this.paused) this.holding = false;
      });
    } else if (steer.action === 'budget') this.changedBudget = { ...this.changedBudget, ...steer.budget };
    else if (steer.action === 'prune') {
      if (steer.operation !== undefined) this.prunedOperations.set(steer.operation, steer);
      else this.prunedThoughts.add(steer.thought!);
    } else this.instructions.push({ operation: steer.operation, text: steer.text });
    this.ctx!.grs.steered({ ...steer, at: Date.now() });
    this.ctx!.progressChanged();
    const budget = this.budget(this.ctx!.request);
    return { paused: this.paused, ...(budget ? { budget } : {}) };
  }
}
