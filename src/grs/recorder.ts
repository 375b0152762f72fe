import type { Grs, LlmCall, OperationRecord, Thought, ThoughtState, Totals } from './types';

export const ROOT_THOUGHT_ID = 'root/0';

export interface NewThought {
  state: ThoughtState;
  parents: string[];
  valid: boolean;
  error?: string;
  callId?: string;
}

/**
 * Builds the GRS one fact at a time. The Controller workflow feeds it as results arrive; feeding
 * the same facts again (e.g. read back from a workflow's history) yields the same GRS.
 */
export class GrsRecorder {
  private readonly thoughts = new Map<string, Thought>();
  private readonly operations = new Map<string, OperationRecord>();
  private readonly calls: LlmCall[] = [];
  private readonly totals: Totals = { llmCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };
  private exhausted = false;

  constructor(
    private readonly task: string,
    operations: { id: string; type: string }[],
  ) {
    for (const op of operations) {
      this.operations.set(op.id, { id: op.id, type: op.type, status: 'pending', inputThoughts: [], outputThoughts: [] });
    }
  }

  addRoot(state: ThoughtState): Thought {
    const root: Thought = { id: ROOT_THOUGHT_ID, operationId: 'root', parents: [], state, valid: true };
    this.thoughts.set(root.id, root);
    return root;
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

  startOperation(id: string, inputThoughts: string[], at: number): void {
    Object.assign(this.operation(id), { status: 'running', inputThoughts, startedAt: at });
  }

  finishOperation(id: string, outputThoughts: string[], at: number, status: 'done' | 'skipped' | 'failed' = 'done', note?: string): void {
    Object.assign(this.operation(id), { status, outputThoughts, endedAt: at, ...(note ? { note } : {}) });
  }

  /**
   * Adds thoughts an operation created. Ids come from their position, `<op>/<key>.<i>` (key: which
   * input or step produced them), never from timing, so a resumed run names them as an uninterrupted one.
   */
  addThoughts(operationId: string, key: string | number, created: NewThought[]): Thought[] {
    return created.map((c, i) => {
      const t: Thought = { id: `${operationId}/${key}.${i}`, operationId, ...c };
      this.thoughts.set(t.id, t);
      return t;
    });
  }

  recordCall(key: string | number, call: Omit<LlmCall, 'id'>): LlmCall {
    const recorded: LlmCall = { id: `${call.operationId}/call-${key}`, ...call };
    this.calls.push(recorded);
    this.totals.llmCalls += 1;
    this.totals.promptTokens += call.usage.promptTokens;
    this.totals.completionTokens += call.usage.completionTokens;
    this.totals.costUsd += call.costUsd;
    return recorded;
  }

  /** Links a recorded call to the thoughts it produced (known only after they got their ids). */
  linkCallOutputs(callId: string, thoughtIds: string[]): void {
    const call = this.calls.find((c) => c.id === callId);
    if (call) call.outputThoughts = thoughtIds;
  }

  setScore(id: string, score: number): void {
    this.thought(id).score = score;
  }

  setSolved(id: string, solved: boolean): void {
    this.thought(id).solved = solved;
  }

  setValidity(id: string, valid: boolean, error?: string): void {
    const t = this.thought(id);
    t.valid = valid;
    if (error) t.error = error;
    else delete t.error;
  }

  markBudgetExhausted(): void {
    this.exhausted = true;
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

  snapshot(): Grs {
    return structuredCloneJson({
      task: this.task,
      thoughts: [...this.thoughts.values()],
      operations: [...this.operations.values()],
      calls: this.calls,
      totals: this.totals,
      budgetExhausted: this.exhausted,
    });
  }
}

// structuredClone is not available in the workflow sandbox on every SDK version; JSON is enough for JSON data.
function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
