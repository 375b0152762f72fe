import { z } from 'zod';
import { hashSeed, randomInt, seededRandom } from '../../util/random';
import { parseRows, readCsv } from '../dataset';
import type { Sample } from '../task';
import { solvable } from './arithmetic';
import type { Game24Problem } from './index';

/**
 * Game of 24 puzzles: four whole numbers from 1 to 13 that some expression turns into 24. The
 * dataset format is a CSV with columns `ID` and `Puzzle` (the numbers, space-separated:
 * `1 1 4 6`); `game24Csv` writes a reproducible one from seeds, so no external list is needed.
 */

const Row = z.object({
  ID: z.string().min(1, 'expected a sample id'),
  Puzzle: z.string().transform((s, ctx) => {
    const numbers = s.trim().split(/\s+/).map(Number);
    if (numbers.length === 4 && numbers.every((x) => Number.isInteger(x) && x >= 1 && x <= 13)) return numbers;
    ctx.addIssue({ code: 'custom', message: `expected four whole numbers from 1 to 13 like "1 1 4 6", got "${s.slice(0, 40)}"` });
    return z.NEVER;
  }),
});

export function parseGame24Csv(csv: string): Sample<Game24Problem>[] {
  return parseRows(readCsv(csv), Row, 'game-of-24 dataset').map((row) => ({ id: row.ID, problem: { numbers: row.Puzzle } }));
}

/** A solvable puzzle from a seed (numbers drawn until some expression makes 24), sorted as puzzles are listed. */
export function generateGame24Problem(seed: number): Game24Problem {
  const random = seededRandom(hashSeed('game-of-24', seed));
  for (;;) {
    const numbers = Array.from({ length: 4 }, () => 1 + randomInt(random, 13)).sort((a, b) => a - b);
    if (solvable(numbers)) return { numbers };
  }
}

/** A dataset of `count` puzzles, ids 0..count-1, in the CSV format `parseGame24Csv` reads. */
export function game24Csv(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => `${i},${generateGame24Problem(i).numbers.join(' ')}`);
  return `ID,Puzzle\n${rows.join('\n')}\n`;
}
