import { GooBuilder, type Ref } from '../../goo/builder';
import type { GoO } from '../../goo/schema';
import type { SchemeOptions } from '../task';

/**
 * The paper's sorting experiments as GoOs (its appendix and the reference runs): IO and CoT
 * sample once; ToT refines the best of k samples over L levels; GoT splits into 16-element
 * parts, sorts each, and merges them pairwise with improvement rounds.
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

function tot(variant: 'tot' | 'tot2', { size }: SchemeOptions): GoO {
  const k = TOT_BRANCHES[variant];
  const b = new GooBuilder();
  let best = b.keepBestN(b.score(b.generate(null, { prompt: 'sort', k })), { n: 1, ...LOWER });
  for (let level = 0; level < nearest(TOT_LEVELS[variant], size); level++) {
    const improved = b.score(b.generate(best, { prompt: 'improve', k }));
    best = b.keepBestN([improved, best], { n: 1, ...LOWER });
  }
  b.groundTruth(b.keepBestN(best, { n: 1, ...LOWER, id: 'final' }));
  return b.build();
}

/** Aggregate -> Score -> Keep, optionally followed by an improve round that competes with the merge. */
function mergeNode(b: GooBuilder, parts: Ref[], improveAfter: boolean): Ref {
  const merged = b.keepBestN(b.score(b.aggregate(parts, { prompt: 'merge', k: 10 })), { n: 1, ...LOWER });
  if (!improveAfter) return merged;
  const improved = b.score([b.generate(merged, { prompt: 'improve', k: 5 }), merged]);
  return b.keepBestN(improved, { n: 1, ...LOWER });
}

function got({ size }: SchemeOptions): GoO {
  const parts = Math.max(2, 2 ** Math.round(Math.log2(size / PART_SIZE)));
  const b = new GooBuilder();
  const split = b.generate(null, { prompt: 'split', id: 'split', params: { parts } });
  let level: Ref[] = Array.from({ length: parts }, (_, i) => {
    const part = b.selector(split, { where: { part: i }, id: `part-${i}` });
    return b.keepBestN(b.score(b.generate(part, { prompt: 'sort', k: 5 })), { n: 1, ...LOWER });
  });
  while (level.length > 1) {
    // Inner merges get an improve round; the root merge feeds the final improve stage directly.
    const isRoot = level.length === 2;
    const next: Ref[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(mergeNode(b, level.slice(i, i + 2), !isRoot));
    level = next;
  }
  const finalCandidates = b.score([b.generate(level[0]!, { prompt: 'improve', k: 10 }), level[0]!]);
  b.groundTruth(b.keepBestN(finalCandidates, { n: 1, ...LOWER, id: 'final' }));
  return b.build();
}

export const sortingSchemes = {
  io: () => single('sort'),
  cot: () => single('sortCot'),
  tot: (o: SchemeOptions) => tot('tot', o),
  tot2: (o: SchemeOptions) => tot('tot2', o),
  got,
} satisfies Record<string, (o: SchemeOptions) => GoO>;
