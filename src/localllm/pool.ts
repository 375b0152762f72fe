/**
 * A fixed set of slots (the context sequences of one llama.cpp context) shared by the requests: each
 * request waits, first come first served, for one slot of its own (and stops waiting if its client
 * goes away), then takes more only if they are free and nobody is waiting for them.
 */
/** Slots lent one borrower at a time, in arrival order. */
export class SlotPool<T> {
  private readonly free: T[];
  private readonly waiters: { resolve: (slot: T) => void; reject: (reason: unknown) => void; signal?: AbortSignal; onAbort: () => void }[] =
    [];

  constructor(slots: readonly T[]) {
    this.free = [...slots];
    this.size = slots.length;
  }

  /** How many slots there are. */
  readonly size: number;

  /** Slots lent out right now. */
  get active(): number {
    return this.size - this.free.length;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** A free slot, as soon as there is one; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const slot = this.free.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
        ...(signal && { signal }),
        onAbort: () => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /**
   * A free slot now, or undefined: for the extra slots a request may decode its samples on. None is
   * taken while a request waits for its first one, so a batch never starves a queued request.
   */
  tryAcquire(): T | undefined {
    return this.waiters.length > 0 ? undefined : this.free.pop();
  }

  /** Gives a slot back: to the longest waiter if any, else to the free list. */
  release(slot: T): void {
    const next = this.waiters.shift();
    if (!next) {
      this.free.push(slot);
      return;
    }
    next.signal?.removeEventListener('abort', next.onAbort);
    next.resolve(slot);
  }
}
