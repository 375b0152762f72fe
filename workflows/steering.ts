import { setHandler, sleep } from '@temporalio/workflow';
import { readSteer } from '../src/steering/read';
import { steeringRefusal } from '../src/steering/refusal';
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
  private ctx?: Pick<RunContext, 'request' | 'grs' | 'elsewhere' | 'progressChanged'>;
  private graphDone = false;

  constructor(private readonly steerable: boolean) {
    setHandler(steerUpdate, (input) => this.accept(input), { validator: (input) => this.validate(input) });
  }

  /** The run is ready to be steered: its request checked, its GRS started; its call slots hold new calls while paused. */
  attach(ctx: Pick<RunContext, 'request' | 'grs' | 'elsewhere' | 'progressChanged' | 'slots'>): void {
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
      },
      read.steer,
    );
    if (refusal) throw new Error(refusal);
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
    } else this.changedBudget = { ...this.changedBudget, ...steer.budget };
    this.ctx!.grs.steered({ ...steer, at: Date.now() });
    this.ctx!.progressChanged();
    const budget = this.budget(this.ctx!.request);
    return { paused: this.paused, ...(budget ? { budget } : {}) };
  }
}
