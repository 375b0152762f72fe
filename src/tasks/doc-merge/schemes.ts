import { GooBuilder } from '../../goo/builder';
import type { GoO } from '../../goo/schema';
import type { SchemeOptions } from '../task';

/**
 * The paper's document merging experiments as GoOs (REFERENCE-GOO.md): every Score asks the LLM
 * judge 3 times, and higher scores are better. IO and CoT merge once; ToT refines the best of 10
 * merges twice; GoT aggregates the best 3 merges and refines; GoT2 merges each half of the
 * documents on its own, aggregates the two halves and refines.
 */

const HIGHER = { higherIsBetter: true } as const;
const JUDGE = { llm: { prompt: 'judge', samples: 3 } } as const;

function single(prompt: 'merge' | 'mergeCot'): GoO {
  const b = new GooBuilder();
  b.score(b.generate(null, { prompt, id: prompt }), { ...JUDGE, id: 'final' });
  return b.build();
}

function tot(): GoO {
  const b = new GooBuilder();
  let best = b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: 10 }), JUDGE), { n: 1, ...HIGHER });
  for (let level = 0; level < 2; level++) {
    const improved = b.score(b.generate(best, { prompt: 'improve', k: 10 }), JUDGE);
    best = b.keepBestN([improved, best], { n: 1, ...HIGHER, ...(level === 1 ? { id: 'final' } : {}) });
  }
  return b.build();
}

function got(): GoO {
  const b = new GooBuilder();
  const drafts = b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: 5 }), JUDGE), { n: 3, ...HIGHER });
  const aggregated = b.score(b.aggregate(drafts, { prompt: 'aggregate', k: 5 }), JUDGE);
  const best = b.keepBestN([aggregated, drafts], { n: 1, ...HIGHER });
  const improved = b.score(b.generate(best, { prompt: 'improve', k: 10 }), JUDGE);
  b.keepBestN([improved, best], { n: 1, ...HIGHER, id: 'final' });
  return b.build();
}

/** The documents' indices cut in two: the first half (one more when odd) and the rest. */
export function halves(count: number): [number[], number[]] {
  const all = Array.from({ length: count }, (_, i) => i);
  const cut = Math.ceil(count / 2);
  return [all.slice(0, cut), all.slice(cut)];
}

function got2({ size }: SchemeOptions): GoO {
  if (!Number.isInteger(size) || size < 2)
    throw new RangeError(`got2 merges two halves of the documents: it needs at least 2 documents, got ${size}`);
  const b = new GooBuilder();
  const parts = halves(size).map((documents, i) =>
    b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: 5, id: `merge-half-${i + 1}`, params: { documents } }), JUDGE), {
      n: 1,
      ...HIGHER,
    }),
  );
  const best = b.keepBestN(b.score(b.aggregate(parts, { prompt: 'aggregate', k: 5 }), JUDGE), { n: 1, ...HIGHER });
  const improved = b.score(b.generate(best, { prompt: 'improve', k: 5 }), JUDGE);
  b.keepBestN([improved, best], { n: 1, ...HIGHER, id: 'final' });
  return b.build();
}

export const docMergeSchemes = {
  io: () => single('merge'),
  cot: () => single('mergeCot'),
  tot,
  got,
  got2,
} satisfies Record<string, (o: SchemeOptions) => GoO>;
