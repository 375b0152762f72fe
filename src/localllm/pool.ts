/**
 * A fixed set of slots (the context sequences of one llama.cpp context) lent out one request at a
 * time, first come first served; a request waits for a free slot, and stops waiting if its client
 * goes away.
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
