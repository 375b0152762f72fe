import { condition } from '@temporalio/workflow';

/** How much payload the calls in flight may carry inline (runs since the `claim-check` patch). */
export interface InlineBudget {
  /** Bytes of inline step input all calls in flight may hold together. */
  bytes: number;
  /** Inputs of at least this many bytes are stored by the worker's payload store (undefined: none is). */
  storedFrom: number | undefined;
}

/** What a stored input still carries inline: its reference. */
const REFERENCE_BYTES = 300;

/**
 * Holds LLM calls until fewer than the run's `maxConcurrentCalls` are in flight, so a huge fan-out
 * queues instead of exceeding Temporal's pending-activity limit; with an inline budget, also until
 * the inputs in flight fit it. The calls a workflow task schedules are all in flight at once, so
 * bounding what those carry inline bounds the task's reply, which Temporal takes in one 4 MB
 * message: no fan-out, however wide, can make a workflow task that can never be sent.
 */
export class CallSlots {
  private inFlight = 0;
  private bytesInFlight = 0;
  /** While this says so, no call takes a slot (a person paused the run, decision 100). */
  private held: () => boolean = () => false;

  /**
   * @param limit calls a run may have in flight at once
   * @param takeFreeAtOnce start at once when a slot is free, instead of waiting a turn (see `paths/`)
   */
  constructor(
    private readonly limit: number,
    private readonly takeFreeAtOnce: boolean,
    private readonly inline?: InlineBudget,
  ) {}

  /** Inputs of at least this many bytes the worker keeps in the payload store (undefined: none, or no inline budget). */
  get storedFrom(): number | undefined {
    return this.inline?.storedFrom;
  }

  /** No call starts while `held` is true; calls in flight go on. */
  holdWhile(held: () => boolean): void {
    this.held = held;
  }

  /** Runs `call` once a slot is free (and, with a budget, its `input` fits), and frees both when it settles. */
  async run<T>(call: () => Promise<T>, input?: unknown): Promise<T> {
    const bytes = this.inline ? this.inlineBytes(input) : 0;
    // The predicate takes the slot itself: waiting conditions are all checked before any awaiting code resumes.
    // A call alone always fits: it never waits for a budget smaller than itself.
    const take = () => {
      if (this.inFlight >= this.limit || this.held()) return false;
      if (bytes > 0 && this.inFlight > 0 && this.bytesInFlight + bytes > this.inline!.bytes) return false;
      this.inFlight++;
      this.bytesInFlight += bytes;
      return true;
    };
    if (!(this.takeFreeAtOnce && take())) await condition(take);
    try {
      return await call();
    } finally {
      this.inFlight--;
      this.bytesInFlight -= bytes;
    }
  }

  /** What a call's input carries inline: its JSON, or a reference when the worker stores it. */
  private inlineBytes(input: unknown): number {
    const bytes = JSON.stringify(input)?.length ?? 0;
    const storedFrom = this.inline!.storedFrom;
    return storedFrom !== undefined && bytes >= storedFrom ? REFERENCE_BYTES : bytes;
  }
}
