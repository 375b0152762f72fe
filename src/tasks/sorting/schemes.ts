import { GooBuilder, type Ref } from '../../goo/builder';
import type { GoO } from '../../goo/schema';
import { type Config, intParam, resolveConfig, type SearchSpace } from '../../tune/space';
import { type SplitBy, splitByParam, splitStep } from '../split-by';
import type { SchemeOptions } from '../task';

/**
 * The paper's sorting experiments as GoOs (its appendix and the reference runs): IO and CoT
 * sample once; ToT refines the best of k samples over L levels; GoT splits into 16-element
 * parts (by the LLM, or with `split: engine` by the engine), sorts each, and merges them pairwise
 * with improvement rounds.
 */

const LOWER = { higherIsBetter: false } as const;

/** ToT levels per list length in the paper; other sizes take the nearest listed length. */
const TOT_LEVELS = { tot: { 32: 1, 64: 3, 128: 3 }, tot2: { 32: 2, 64: 6, 128: 9 } } as const;
const TOT_BRANCHES = { tot: 20, tot2: 10 } as const;
const PART_SIZE = 16;

function nearest<T>(table: Record<number, T>, size: number): T {
  const key = Object.keys(table)
    .map(Number)
    .sort((a, b) => Math.abs(a - size) - Math.abs(b - size) || a - b)[0]!;
  return table[key]!;
}

function single(prompt: 'sort' | 'sortCot'): GoO {
  const b = new GooBuilder();
  b.groundTruth(b.score(b.generate(null, { prompt, id: prompt })), { id: 'groundtruth' });
  return b.build();
}

/** ToT's tunables (FoT's ranges, Table 6, widened to hold the paper's values): branches per level and improvement levels. */
function totSpace(variant: 'tot' | 'tot2', size: number): SearchSpace {
  const levels = nearest(TOT_LEVELS[variant], size);
  return {
    branches: intParam(2, 25, TOT_BRANCHES[variant], 'samples of the first sort and of each improvement level'),
    levels: intParam(1, Math.max(6, levels), levels, 'improvement levels after the first sort'),
  };
}

function tot(variant: 'tot' | 'tot2', { size, params }: SchemeOptions): GoO {
  const p = resolveConfig(totSpace(variant, size), params) as { branches: number; levels: number };
  const k = p.branches;
  const b = new GooBuilder();
  let best = b.keepBestN(b.score(b.generate(null, { prompt: 'sort', k })), { n: 1, ...LOWER });
  for (let level = 0; level < p.levels; level++) {
    const improved = b.score(b.generate(best, { prompt: 'improve', k }));
    best = b.keepBestN([improved, best], { n: 1, ...LOWER });
  }
  b.groundTruth(b.keepBestN(best, { n: 1, ...LOWER, id: 'final' }));
  return b.build();
}

/** GoT's tunables: FoT's three (sort branches, merge branches, global improvement rounds) and the improve stages' widths. */
const GOT_SPACE: SearchSpace = {
  sortBranches: intParam(1, 10, 5, 'samples of each part sort'),
  mergeBranches: intParam(1, 25, 10, 'samples of each merge'),
  mergeImproveBranches: intParam(0, 10, 5, 'samples of the improve round after each inner merge (0: no such round)'),
  improveBranches: intParam(1, 20, 10, 'samples of each final improve round'),
  improveRounds: intParam(1, 3, 1, 'final improve rounds, one after the other'),
  ...splitByParam,
};

interface GotParams {
  sortBranches: number;
  mergeBranches: number;
  mergeImproveBranches: number;
  improveBranches: number;
  improveRounds: number;
  split: SplitBy;
}

/** The best of the input and `k` improvements of it. */
function improveRound(b: GooBuilder, input: Ref, k: number, id?: string): Ref {
  const improved = b.score([b.generate(input, { prompt: 'improve', k }), input]);
  return b.keepBestN(improved, { n: 1, ...LOWER, ...(id ? { id } : {}) });
}

/** Aggregate -> Score -> Keep, optionally followed by an improve round that competes with the merge. */
function mergeNode(b: GooBuilder, parts: Ref[], improveAfter: boolean, p: GotParams): Ref {
  const merged = b.keepBestN(b.score(b.aggregate(parts, { prompt: 'merge', k: p.mergeBranches })), { n: 1, ...LOWER });
  if (!improveAfter || p.mergeImproveBranches === 0) return merged;
  return improveRound(b, merged, p.mergeImproveBranches);
}

function got({ size, params }: SchemeOptions): GoO {
  const p = resolveConfig(GOT_SPACE, params) as Config & GotParams;
  const parts = Math.max(2, 2 ** Math.round(Math.log2(size / PART_SIZE)));
  const b = new GooBuilder();
  const split = splitStep(b, parts, p.split);
  let level: Ref[] = Array.from({ length: parts }, (_, i) => {
    const part = b.selector(split, { where: { part: i }, id: `part-${i}` });
    return b.keepBestN(b.score(b.generate(part, { prompt: 'sort', k: p.sortBranches })), { n: 1, ...LOWER });
  });
  while (level.length > 1) {
    // Inner merges get an improve round; the root merge feeds the final improve stage directly.
    const isRoot = level.length === 2;
    const next: Ref[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(mergeNode(b, level.slice(i, i + 2), !isRoot, p));
    level = next;
  }
  let best = level[0]!;
  for (let round = 1; round <= p.improveRounds; round++)
    best = improveRound(b, best, p.improveBranches, round === p.improveRounds ? 'final' : undefined);
  b.groundTruth(best);
  return b.build();
}

/** What `got tune` may change in each scheme, by problem size (IO and CoT: nothing). */
export const sortingTunables = {
  io: () => ({}),
  cot: () => ({}),
  tot: (size: number) => totSpace('tot', size),
  tot2: (size: number) => totSpace('tot2', size),
  got: () => GOT_SPACE,
} satisfies Record<string, (size: number) => SearchSpace>;

export const sortingSchemes = {
  io: () => single('sort'),
  cot: () => single('sortCot'),
  tot: (o: SchemeOptions) => tot('tot', o),
  tot2: (o: SchemeOptions) => tot('tot2', o),
  got,
} satisfies Record<string, (o: SchemeOptions) => GoO>;
