import { condition } from '@temporalio/workflow';

/**
 * Holds LLM calls until fewer than the run's `maxConcurrentCalls` are in flight, so a huge fan-out
 * queues instead of exceeding Temporal's pending-activity limit.
 */
export class CallSlots {
  private inFlight = 0;

  /**
   * @param limit calls a run may have in flight at once
   * @param takeFreeAtOnce start at once when a slot is free, instead of waiting a turn (see `paths/`)
   */
  constructor(
    private readonly limit: number,
    private readonly takeFreeAtOnce: boolean,
  ) {}

  /** Runs `call` once a slot is free, and frees the slot when it settles. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    // The predicate takes the slot itself: waiting conditions are all checked before any awaiting code resumes.
    const take = () => this.inFlight < this.limit && ++this.inFlight > 0;
    if (!(this.takeFreeAtOnce && take())) await condition(take);
    try {
      return await call();
    } finally {
      this.inFlight--;
    }
  }
}
