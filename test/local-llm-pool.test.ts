import { describe, expect, it } from 'vitest';
import { SlotPool } from '../src/localllm/pool';
import { planSequences } from '../src/localllm/sequences';

describe('the sequence pool', () => {
  it('lends free slots at once and makes later requests wait, first come first served', async () => {
    const pool = new SlotPool(['a', 'b']);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect(new Set([a, b])).toEqual(new Set(['a', 'b']));
    const order: string[] = [];
    const third = pool.acquire().then((s) => order.push(`third:${s}`));
    const fourth = pool.acquire().then((s) => order.push(`fourth:${s}`));
    expect(pool).toMatchObject({ active: 2, waiting: 2 });
    pool.release(b);
    pool.release(a);
    await Promise.all([third, fourth]);
    expect(order).toEqual([`third:${b}`, `fourth:${a}`]);
    expect(pool).toMatchObject({ active: 2, waiting: 0 });
  });

  it('drops a waiter whose signal aborts, and gives the slot to the next one', async () => {
    const pool = new SlotPool(['only']);
    const held = await pool.acquire();
    const gone = new AbortController();
    const leaving = pool.acquire(gone.signal);
    const staying = pool.acquire();
    gone.abort(new Error('client went away'));
    await expect(leaving).rejects.toThrow('client went away');
    expect(pool.waiting).toBe(1);
    pool.release(held);
    expect(await staying).toBe('only');
    await expect(pool.acquire(AbortSignal.abort(new Error('already gone')))).rejects.toThrow('already gone');
    pool.release('only');
    expect(pool).toMatchObject({ active: 0, waiting: 0 });
  });

  it('lends extra slots only when they are free and nobody waits for a first one', async () => {
    const pool = new SlotPool(['a', 'b', 'c']);
    const first = await pool.acquire();
    expect(pool.tryAcquire()).toBeDefined();
    expect(pool.tryAcquire()).toBeDefined();
    expect(pool.tryAcquire()).toBeUndefined();
    const queued = pool.acquire();
    pool.release(first);
    expect(await queued).toBe(first);
    expect(pool).toMatchObject({ active: 3, waiting: 0 });
  });
});

describe('the sequences of the context', () => {
  const MB = 2 ** 20;

  it('holds a whole batch plus one sequence for each other parallel request', () => {
    expect(planSequences({ parallel: 2, batch: 10, bytesPerSequence: 47 * MB, budgetBytes: 3072 * MB })).toMatchObject({
      sequences: 11,
      batch: 10,
    });
    expect(planSequences({ parallel: 2, batch: 1, bytesPerSequence: 47 * MB, budgetBytes: 3072 * MB })).toMatchObject({
      sequences: 2,
      batch: 1,
    });
  });

  it('makes fewer within the memory budget, keeping a sequence for each parallel request first', () => {
    // Qwen2.5-1.5B at 8,192 tokens: 235 MB a sequence.
    expect(planSequences({ parallel: 2, batch: 10, bytesPerSequence: 235 * MB, budgetBytes: 2048 * MB })).toMatchObject({
      sequences: 8,
      batch: 7,
    });
    expect(planSequences({ parallel: 2, batch: 10, bytesPerSequence: 235 * MB, budgetBytes: 100 * MB })).toMatchObject({
      sequences: 1,
      batch: 1,
    });
  });
});
