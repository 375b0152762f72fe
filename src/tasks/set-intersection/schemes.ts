import { GooBuilder, type Ref } from '../../goo/builder';
import type { GoO } from '../../goo/schema';
import { intParam, resolveConfig, type SearchSpace } from '../../tune/space';
import { type SplitBy, splitByParam, splitStep } from '../split-by';
import type { SchemeOptions } from '../task';

/**
 * The paper's set intersection experiments as GoOs (REFERENCE-GOO.md): IO and CoT sample once;
 * ToT refines the best of k samples over L levels; GoT splits the second set into parts of 16 (by
 * the LLM, or with `split: engine` by the engine),
 * intersects each part with the first set, and merges the partial intersections pairwise.
 *
 * ToT's later levels use the `improve` prompt (the attempt so far plus both sets), as the
 * reference does: re-asking `intersect` would only resample the first level, not refine its best.
 */

const LOWER = { higherIsBetter: false } as const;

/** ToT shape per set size in the paper; other sizes take the nearest listed size. */
const TOT = {
  tot: { 32: { k: 20, levels: 1 }, 64: { k: 20, levels: 3 }, 128: { k: 25, levels: 3 } },
  tot2: { 32: { k: 10, levels: 2 }, 64: { k: 10, levels: 6 }, 128: { k: 10, levels: 8 } },
} as const;
/** Samples per merge: the paper halves them for 128 (eight parts, seven merges). */
const MERGE_BRANCHES = { 32: 10, 64: 10, 128: 5 } as const;
const PART_SIZE = 16;
const INTERSECT_BRANCHES = 5;

function nearest<T>(table: Record<number, T>, size: number): T {
  const key = Object.keys(table)
    .map(Number)
    .sort((a, b) => Math.abs(a - size) - Math.abs(b - size) || a - b)[0]!;
  return table[key]!;
}

function single(prompt: 'intersect' | 'intersectCot'): GoO {
  const b = new GooBuilder();
  b.groundTruth(b.score(b.generate(null, { prompt, id: prompt })), { id: 'groundtruth' });
  return b.build();
}

/** ToT's tunables: branches per level and improvement levels (the paper's values per size as defaults). */
function totSpace(variant: 'tot' | 'tot2', size: number): SearchSpace {
  const { k, levels } = nearest<{ k: number; levels: number }>(TOT[variant], size);
  return {
    branches: intParam(2, 25, k, 'samples of the first intersection and of each improvement level'),
    levels: intParam(1, Math.max(8, levels), levels, 'improvement levels after the first intersection'),
  };
}

function tot(variant: 'tot' | 'tot2', { size, params }: SchemeOptions): GoO {
  const { branches: k, levels } = resolveConfig(totSpace(variant, size), params) as { branches: number; levels: number };
  const b = new GooBuilder();
  let best = b.keepBestN(b.score(b.generate(null, { prompt: 'intersect', k })), { n: 1, ...LOWER });
  for (let level = 0; level < levels; level++) {
    const improved = b.score(b.generate(best, { prompt: 'improve', k }));
    best = b.keepBestN([improved, best], { n: 1, ...LOWER });
  }
  b.groundTruth(best, { id: 'groundtruth' });
  return b.build();
}

/** GoT's tunables: samples of each part's intersection and of each merge. */
function gotSpace(size: number): SearchSpace {
  return {
    intersectBranches: intParam(1, 10, INTERSECT_BRANCHES, "samples of each part's intersection"),
    mergeBranches: intParam(1, 25, nearest(MERGE_BRANCHES, size), 'samples of each merge'),
    ...splitByParam,
  };
}

function got({ size, params }: SchemeOptions): GoO {
  const p = resolveConfig(gotSpace(size), params) as { intersectBranches: number; mergeBranches: number; split: SplitBy };
  const parts = Math.max(2, 2 ** Math.round(Math.log2(size / PART_SIZE)));
  const mergeK = p.mergeBranches;
  const b = new GooBuilder();
  const split = splitStep(b, parts, p.split);
  let level: Ref[] = Array.from({ length: parts }, (_, i) => {
    const part = b.selector(split, { where: { part: i }, id: `part-${i}` });
    return b.keepBestN(b.score(b.generate(part, { prompt: 'intersect', k: p.intersectBranches })), { n: 1, ...LOWER });
  });
  while (level.length > 1) {
    const next: Ref[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const last = level.length === 2;
      next.push(
        b.keepBestN(b.score(b.aggregate(level.slice(i, i + 2), { prompt: 'merge', k: mergeK })), {
          n: 1,
          ...LOWER,
          ...(last ? { id: 'final' } : {}),
        }),
      );
    }
    level = next;
  }
  b.groundTruth(level[0]!, { id: 'groundtruth' });
  return b.build();
}

/** What `got tune` may change in each scheme, by set size (IO and CoT: nothing). */
export const setIntersectionTunables = {
  io: () => ({}),
  cot: () => ({}),
  tot: (size: number) => totSpace('tot', size),
  tot2: (size: number) => totSpace('tot2', size),
  got: gotSpace,
} satisfies Record<string, (size: number) => SearchSpace>;

export const setIntersectionSchemes = {
  io: () => single('intersect'),
  cot: () => single('intersectCot'),
  tot: (o: SchemeOptions) => tot('tot', o),
  tot2: (o: SchemeOptions) => tot('tot2', o),
  got,
} satisfies Record<string, (o: SchemeOptions) => GoO>;
