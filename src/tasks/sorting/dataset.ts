import { z } from 'zod';
import { randomInt, seededRandom } from '../../util/random';
import { integerListCell, parseRows, readCsv } from '../dataset';
import type { Sample } from '../task';
import type { SortingProblem } from './index';

const Row = z.object({ ID: z.string().min(1, 'expected a sample id'), Unsorted: integerListCell, Sorted: integerListCell });

/** The reference format: columns ID, Unsorted, Sorted. */
export function parseSortingCsv(csv: string): Sample<SortingProblem>[] {
  return parseRows(readCsv(csv), Row, 'sorting dataset').map((row) => ({ id: row.ID, problem: { list: row.Unsorted } }));
}

/** Digits 0-9 with duplicates, like the paper's lists. */
export function generateSortingProblem(size: number, seed: number): SortingProblem {
  const random = seededRandom(seed);
  return { list: Array.from({ length: size }, () => randomInt(random, 10)) };
}
