import { describe, expect, it } from 'vitest';
import { SlotPool } from '../src/localllm/pool';

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
});
