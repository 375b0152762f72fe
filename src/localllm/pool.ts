/**
 * A fixed set of slots (the context sequences of one llama.cpp context) shared by the requests: each
 * request waits, first come first served, for one slot of its own (and stops waiting if its client
 * goes away), then takes more only if they are free and nobody is waiting for them. The free slots
 * are kept in the order they were given back, least recently used first: the prefix cache
 * (prefix-cache.ts) picks among them by what each still holds.
 */
/** Chooses one of the free slots (least recently used first) by its index; the default takes the most recent. */
export type SlotPick<T> = (free: readonly T[]) => number;

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

  /** The free slots, least recently used first. */
  get idle(): readonly T[] {
    return this.free;
  }

  /**
   * A free slot, as soon as there is one (the one `pick` chooses when several are free, else the one
   * given back last); rejects with the signal's reason if it aborts first.
   */
  acquire(signal?: AbortSignal, pick?: SlotPick<T>): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const slot = this.takeFree(pick);
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
  tryAcquire(pick?: SlotPick<T>): T | undefined {
    return this.waiters.length > 0 ? undefined : this.takeFree(pick);
  }

  /** Takes this very slot if it is free (to read its state while nobody writes to it); false if it is lent out. */
  take(slot: T): boolean {
    const at = this.free.indexOf(slot);
    if (at < 0) return false;
    this.free.splice(at, 1);
    return true;
  }

  private takeFree(pick?: SlotPick<T>): T | undefined {
    if (this.free.length === 0) return undefined;
    if (!pick) return this.free.pop();
    const at = pick(this.free);
    return this.free.splice(at >= 0 && at < this.free.length ? at : this.free.length - 1, 1)[0];
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
