import type { ReviewRecord } from '../documents/types';
import type { ForkRecord } from '../fork/types';
import type { SteerEvent } from '../steering/types';
import type { GrownPart, Grs, LlmCall, OperationRecord, Thought, ThoughtState, Totals } from './types';

export const ROOT_THOUGHT_ID = 'root/0';

type FinishedStatus = 'done' | 'skipped' | 'failed' | 'cancelled';

export interface NewThought {
  state: ThoughtState;
  parents: string[];
  valid: boolean;
  error?: string;
  /** The start of the model's answer, kept for thoughts its answer made invalid. */
  said?: string;
  reasoning?: string;
  callId?: string;
}

/** An operation a forEach grew: its grown id, type and input operations (none: it starts from its part's thoughts). */
export interface GrownOperation {
  id: string;
  type: string;
  inputs: string[];
}

/**
 * Everything that changes a GRS, as data. The GRS is a fold over these facts: the Controller
 * emits them as it runs, and replaying a run's history emits the same facts in the same order,
 * which is how a GRS is rebuilt from history alone.
 */
export type GrsFact =
  | { kind: 'init'; task: string; operations: { id: string; type: string }[]; finalOperations: string[] }
  | { kind: 'root'; state: ThoughtState }
  | { kind: 'operationStarted'; id: string; inputThoughts: string[]; at: number }
  | { kind: 'grown'; by: string; parts: (GrownPart & { operations: GrownOperation[] })[] }
  | { kind: 'operationFinished'; id: string; outputThoughts: string[]; at: number; status: FinishedStatus; note?: string }
  | { kind: 'thoughtsCreated'; operationId: string; key: string | number; created: NewThought[] }
  | { kind: 'callRecorded'; key: string | number; call: Omit<LlmCall, 'id'> }
  | { kind: 'callLinked'; callId: string; thoughtIds: string[] }
  | { kind: 'scored'; id: string; score: number }
  | { kind: 'solved'; id: string; solved: boolean }
  | { kind: 'validity'; id: string; valid: boolean; error?: string }
  | { kind: 'budgetExhausted' }
  /** The engine reviewed the best answer (document merges); again with a person's decisions applied. */
  | { kind: 'reviewed'; review: ReviewRecord }
  /** A person steered the run (the `steer` update, decision 100). */
  | { kind: 'steered'; event: SteerEvent }
  /** The run is a fork of a recorded run (decision 102); again once the parent's decisions were carried over. */
  | { kind: 'forked'; fork: ForkRecord }
  /** Operations a person added while the run ran (decision 104), and the run's final operations since. */
  | { kind: 'added'; operations: { id: string; type: string; inputs: string[] }[]; finalOperations: string[] };

/** Builds the GRS one fact at a time; an optional listener sees every fact as it is applied. */
export class GrsRecorder {
  private task = '';
  private finalOperations: string[] = [];
  private readonly thoughts = new Map<string, Thought>();
  private readonly operations = new Map<string, OperationRecord>();
  private readonly calls = new Map<string, LlmCall>();
  private readonly totals: Totals = { llmCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };
  private exhausted = false;
  private review?: ReviewRecord;
  private readonly steering: SteerEvent[] = [];
  private fork?: ForkRecord;

  constructor(private readonly listener?: (fact: GrsFact) => void) {}

  /** Applies one fact, then tells the listener; the convenience methods below all go through here. */
  apply(fact: GrsFact): void {
    this.reduce(fact);
    this.listener?.(fact);
  }

  private reduce(fact: GrsFact): void {
    switch (fact.kind) {
      case 'init':
        this.task = fact.task;
        this.finalOperations = fact.finalOperations;
        for (const op of fact.operations) {
          this.operations.set(op.id, { id: op.id, type: op.type, status: 'pending', inputThoughts: [], outputThoughts: [] });
        }
        return;
      case 'root':
        this.thoughts.set(ROOT_THOUGHT_ID, { id: ROOT_THOUGHT_ID, operationId: 'root', parents: [], state: fact.state, valid: true });
        return;
      case 'grown':
        this.operation(fact.by).parts = fact.parts.map(({ operations: _operations, ...part }) => part);
        fact.parts.forEach(({ operations }, part) => {
          for (const { id, type, inputs } of operations) {
            this.operations.set(id, { id, type, status: 'pending', inputThoughts: [], outputThoughts: [], grownBy: fact.by, part, inputs });
          }
        });
        return;
      case 'operationStarted':
        Object.assign(this.operation(fact.id), { status: 'running', inputThoughts: fact.inputThoughts, startedAt: fact.at });
        return;
      case 'operationFinished':
        Object.assign(this.operation(fact.id), {
          status: fact.status,
          outputThoughts: fact.outputThoughts,
          endedAt: fact.at,
          ...(fact.note ? { note: fact.note } : {}),
        });
        return;
      case 'thoughtsCreated':
        fact.created.forEach((c, i) => {
          const id = thoughtId(fact.operationId, fact.key, i);
          this.thoughts.set(id, { id, operationId: fact.operationId, ...c });
        });
        return;
      case 'callRecorded': {
        const id = callIdOf(fact.call.operationId, fact.key);
        this.calls.set(id, { id, ...fact.call });
        if (fact.call.inherited) {
          this.totals.inheritedCalls = (this.totals.inheritedCalls ?? 0) + 1;
          return;
        }
        this.totals.llmCalls += 1;
        this.totals.promptTokens += fact.call.usage.promptTokens;
        this.totals.completionTokens += fact.call.usage.completionTokens;
        if (fact.call.usage.cachedPromptTokens)
          this.totals.cachedPromptTokens = (this.totals.cachedPromptTokens ?? 0) + fact.call.usage.cachedPromptTokens;
        this.totals.costUsd += fact.call.costUsd;
        return;
      }
      case 'callLinked': {
        const call = this.calls.get(fact.callId);
        if (!call) throw new Error(`unknown LLM call ${fact.callId}`);
        call.outputThoughts = fact.thoughtIds;
        return;
      }
      case 'scored':
        this.thought(fact.id).score = fact.score;
        return;
      case 'solved':
        this.thought(fact.id).solved = fact.solved;
        return;
      case 'validity': {
        const t = this.thought(fact.id);
        t.valid = fact.valid;
        if (fact.error) t.error = fact.error;
        else delete t.error;
        return;
      }
      case 'reviewed':
        this.review = fact.review;
        return;
      case 'budgetExhausted':
        this.exhausted = true;
        return;
      case 'steered':
        this.steering.push(fact.event);
        return;
      case 'forked':
        this.fork = fact.fork;
        return;
      case 'added':
        for (const op of fact.operations)
          this.operations.set(op.id, {
            id: op.id,
            type: op.type,
            status: 'pending',
            inputThoughts: [],
            outputThoughts: [],
            inputs: op.inputs,
          });
        this.finalOperations = fact.finalOperations;
        return;
    }
  }

  init(task: string, operations: { id: string; type: string }[], finalOperations: string[] = []): this {
    this.apply({ kind: 'init', task, operations: operations.map(({ id, type }) => ({ id, type })), finalOperations });
    return this;
  }

  addRoot(state: ThoughtState): Thought {
    this.apply({ kind: 'root', state });
    return this.thought(ROOT_THOUGHT_ID);
  }

  startOperation(id: string, inputThoughts: string[], at: number): void {
    this.apply({ kind: 'operationStarted', id, inputThoughts, at });
  }

  /**
   * Records how a forEach grew the graph: each part's thoughts and the operations it runs, which
   * join the GRS as pending operations (`grownBy`, `part`, `inputs`).
   */
  grow(by: string, parts: (GrownPart & { operations: GrownOperation[] })[]): void {
    this.apply({ kind: 'grown', by, parts });
  }

  finishOperation(id: string, outputThoughts: string[], at: number, status: FinishedStatus = 'done', note?: string): void {
    this.apply({ kind: 'operationFinished', id, outputThoughts, at, status, ...(note ? { note } : {}) });
  }

  /**
   * Adds thoughts an operation created. Ids come from their position, `<op>/<key>.<i>` (key: which
   * input or step produced them), never from timing, so a resumed run names them as an uninterrupted one.
   */
  addThoughts(operationId: string, key: string | number, created: NewThought[]): Thought[] {
    this.apply({ kind: 'thoughtsCreated', operationId, key, created });
    return created.map((_, i) => this.thought(thoughtId(operationId, key, i)));
  }

  recordCall(key: string | number, call: Omit<LlmCall, 'id'>): LlmCall {
    this.apply({ kind: 'callRecorded', key, call });
    return this.calls.get(callIdOf(call.operationId, key))!;
  }

  /** Links a recorded call to the thoughts it produced (known only after they got their ids). */
  linkCallOutputs(id: string, thoughtIds: string[]): void {
    this.apply({ kind: 'callLinked', callId: id, thoughtIds });
  }

  setScore(id: string, score: number): void {
    this.apply({ kind: 'scored', id, score });
  }

  setSolved(id: string, solved: boolean): void {
    this.apply({ kind: 'solved', id, solved });
  }

  setValidity(id: string, valid: boolean, error?: string): void {
    this.apply({ kind: 'validity', id, valid, ...(error ? { error } : {}) });
  }

  markBudgetExhausted(): void {
    if (!this.exhausted) this.apply({ kind: 'budgetExhausted' });
  }

  /** The steers the run accepted so far, oldest first. */
  get steeringEvents(): readonly SteerEvent[] {
    return this.steering;
  }

  /** What the run says of its parent, if it is a fork. */
  get forkRecord(): ForkRecord | undefined {
    return this.fork;
  }

  /** Records a steer the run accepted. */
  steered(event: SteerEvent): void {
    this.apply({ kind: 'steered', event });
  }

  /**
   * Thoughts made in another history that operations here take as inputs (a child workflow's parts
   * start from its run's thoughts). Not a fact of this GRS: the history that made them recorded them.
   */
  know(thoughts: readonly Thought[]): void {
    for (const t of thoughts) this.thoughts.set(t.id, t);
  }

  hasThought(id: string): boolean {
    return this.thoughts.has(id);
  }

  /** The run's final operations (the GoO's sinks). */
  get finalOperationIds(): readonly string[] {
    return this.finalOperations;
  }

  thought(id: string): Thought {
    const t = this.thoughts.get(id);
    if (!t) throw new Error(`unknown thought ${id}`);
    return t;
  }

  operation(id: string): OperationRecord {
    const op = this.operations.get(id);
    if (!op) throw new Error(`unknown operation ${id}`);
    return op;
  }

  get budgetExhausted(): boolean {
    return this.exhausted;
  }

  get finishedOperations(): number {
    return [...this.operations.values()].filter((o) => o.status === 'done' || o.status === 'skipped').length;
  }

  get spent(): Totals {
    return { ...this.totals };
  }

  /** A deep copy: what a query hands out while the run goes on changing the graph. */
  snapshot(): Grs {
    return JSON.parse(JSON.stringify(this.final())) as Grs;
  }

  /**
   * The graph itself, not a copy, for a run's result: nothing changes it any more, and copying it
   * would serialize the whole graph once more in the run's last workflow task. Same JSON as `snapshot`.
   */
  final(): Grs {
    return {
      task: this.task,
      finalOperations: this.finalOperations,
      thoughts: [...this.thoughts.values()],
      operations: [...this.operations.values()],
      calls: [...this.calls.values()],
      // Sums of float costs differ in the last bit with the order calls finished in; the same calls
      // must show the same total however a run's faults reordered them.
      totals: { ...this.totals, costUsd: Math.round(this.totals.costUsd * 1e12) / 1e12 },
      budgetExhausted: this.exhausted,
      ...(this.review ? { review: this.review } : {}),
      ...(this.steering.length ? { steering: this.steering } : {}),
      ...(this.fork ? { fork: this.fork } : {}),
    };
  }
}

const thoughtId = (operationId: string, key: string | number, i: number) => `${operationId}/${key}.${i}`;
/** A call's positional id: `<operation id>/call-<key>`. */
export const callIdOf = (operationId: string, key: string | number) => `${operationId}/call-${key}`;
