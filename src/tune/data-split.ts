/**
 * Training and test instances, kept apart (decision 73): a study chooses prompts and parameters on
 * the training split, and scores are reported on the test split, which no study has seen.
 *
 * - A dataset's last `TRAIN_SPLIT.rows` rows are its training split; the rows before them its test
 *   split. `got eval` reads a dataset's first rows, so its samples are test instances unless it is
 *   asked for more rows than the test split has.
 * - Generated problems (no dataset): the training split is seeds `TRAIN_SPLIT.seedBase` and up; the
 *   test split seeds 0 and up, what `got run` and `got eval` generate.
 */
export const TRAIN_SPLIT = { rows: 20, seedBase: 1_000_000 } as const;

export const SPLITS = ['train', 'test'] as const;
export type SplitName = (typeof SPLITS)[number];

/** The rows of a dataset of `count` rows that belong to a split, as [first, end) indices. */
export function splitRows(count: number, split: SplitName): { first: number; end: number } {
  const trainFirst = Math.max(0, count - TRAIN_SPLIT.rows);
  return split === 'train' ? { first: trainFirst, end: count } : { first: 0, end: trainFirst };
}

/** The generator seed of a split's i-th generated problem. */
export function splitSeed(split: SplitName, i: number): number {
  return split === 'train' ? TRAIN_SPLIT.seedBase + i : i;
}
