import { condition, setHandler } from '@temporalio/workflow';
import type { Thought } from '../src/grs/types';
import type { HumanScores, PendingHumanScore } from '../src/run/request';
import { pendingHumanScoresQuery, scoreThoughtsUpdate } from './definitions';

type HumanScoresSchema = typeof import('../src/run/request').HumanScores;

/**
 * Human Score operations: the run waits (durably, for hours if need be) for a person to send
 * scores through the `scoreThoughts` update, which is validated before it is accepted so a wrong
 * id or a missing score is refused to the sender and never enters history.
 */
export class HumanScoring {
  private readonly pending = new Map<string, PendingHumanScore>();
  private readonly received = new Map<string, HumanScores>();
  /** Loaded by the first human operation: runs without one never evaluate the schema library (see `paths/fast-steps.ts`). */
  private schema?: HumanScoresSchema;

  constructor() {
    setHandler(pendingHumanScoresQuery, () => [...this.pending.values()]);
    setHandler(scoreThoughtsUpdate, (scores) => this.accept(scores), { validator: (scores) => this.validate(scores) });
  }

  get awaiting(): string[] {
    return [...this.pending.keys()];
  }

  useSchema(schema: HumanScoresSchema): void {
    this.schema = schema;
  }

  /** Waits for a person's scores until the timeout; undefined when none came in time. */
  async await(operationId: string, thoughts: Thought[], timeoutSeconds: number): Promise<HumanScores | undefined> {
    this.schema ??= (await import(/* webpackMode: "eager" */ '../src/run/request')).HumanScores;
    this.pending.set(operationId, {
      operationId,
      thoughts: thoughts.map((t) => ({ id: t.id, state: t.state })),
      deadline: Date.now() + timeoutSeconds * 1000,
    });
    try {
      const arrived = await condition(() => this.received.has(operationId), `${timeoutSeconds}s`);
      return arrived ? this.received.get(operationId) : undefined;
    } finally {
      this.pending.delete(operationId);
    }
  }

  private validate(input: HumanScores): void {
    // No schema yet means no human operation has started: nothing waits for scores.
    if (!this.schema)
      throw new Error(
        `operation "${String((input as Partial<HumanScores> | null)?.operationId)}" is not waiting for human scores (waiting: none)`,
      );
    const parsed = this.schema.safeParse(input);
    if (!parsed.success)
      throw new Error(`invalid scores: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const waiting = this.pending.get(input.operationId);
    if (!waiting)
      throw new Error(`operation "${input.operationId}" is not waiting for human scores (waiting: ${this.awaiting.join(', ') || 'none'})`);
    const expected = waiting.thoughts.map((t) => t.id);
    const unknown = Object.keys(input.scores).filter((id) => !expected.includes(id));
    const missing = expected.filter((id) => !(id in input.scores));
    if (unknown.length) throw new Error(`not thoughts of "${input.operationId}": ${unknown.join(', ')}`);
    if (missing.length) throw new Error(`scores missing for: ${missing.join(', ')}`);
  }

  private accept(input: HumanScores): { accepted: number } {
    this.received.set(input.operationId, input);
    return { accepted: Object.keys(input.scores).length };
  }
}
