import { z } from 'zod';
import { type Random, randomInt, seededRandom } from '../../util/random';
import { integerListCell, parseRows, readCsv } from '../dataset';
import type { Sample } from '../task';
import type { SetIntersectionProblem } from './index';
import { intersect } from './score';

/** A list of integers with no number twice: what the task calls a set. */
export const IntegerSet = z
  .array(z.number().int())
  .max(4096)
  .superRefine((list, ctx) => {
    const seen = new Set<number>();
    const repeated = new Set<number>();
    for (const x of list) (seen.has(x) ? repeated : seen).add(x);
    if (repeated.size) {
      const shown = [...repeated].slice(0, 5).join(', ') + (repeated.size > 5 ? ', ...' : '');
      ctx.addIssue({
        code: 'custom',
        message: `a set must not repeat a number, but ${shown} ${repeated.size > 1 ? 'appear' : 'appears'} more than once`,
      });
    }
  });

const ascending = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const sameNumbers = (a: readonly number[], b: readonly number[]) => ascending(a).join() === ascending(b).join();

const Row = z
  .object({
    ID: z.string().min(1, 'expected a sample id'),
    SET1: integerListCell.pipe(IntegerSet),
    SET2: integerListCell.pipe(IntegerSet),
    INTERSECTION: integerListCell,
  })
  .superRefine((row, ctx) => {
    if (!sameNumbers(row.INTERSECTION, intersect(row.SET1, row.SET2))) {
      ctx.addIssue({ code: 'custom', path: ['INTERSECTION'], message: 'does not hold exactly the numbers that SET1 and SET2 share' });
    }
  });

/** The reference format: columns ID, SET1, SET2, INTERSECTION (the expected answer, checked against the sets). */
export function parseSetIntersectionCsv(csv: string): Sample<SetIntersectionProblem>[] {
  return parseRows(readCsv(csv), Row, 'set intersection dataset').map((row) => ({
    id: row.ID,
    problem: { set1: row.SET1, set2: row.SET2 },
  }));
}

function shuffle<T>(items: T[], random: Random): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(random, i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * Two sets of `size` distinct numbers from 0 to 2*size-1, like the paper's, sharing between 25%
 * and 75% of their elements.
 */
export function generateSetIntersectionProblem(size: number, seed: number): SetIntersectionProblem {
  const random = seededRandom(seed);
  const shared = Math.round(size * (0.25 + 0.5 * random()));
  const pool = shuffle(
    Array.from({ length: 2 * size }, (_, i) => i),
    random,
  );
  const common = pool.slice(0, shared);
  const only1 = pool.slice(shared, size);
  const only2 = pool.slice(size, 2 * size - shared);
  return { set1: shuffle([...common, ...only1], random), set2: shuffle([...common, ...only2], random) };
}
