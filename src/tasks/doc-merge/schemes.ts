import { GooBuilder } from '../../goo/builder';
import type { GoO } from '../../goo/schema';
import { intParam, resolveConfig, type SearchSpace } from '../../tune/space';
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

/** What `got tune` may change in each scheme (FoT tuned GoT's merges, kept merges, aggregations and improvements). */
export const docMergeTunables = {
  io: () => ({}),
  cot: () => ({}),
  tot: () => ({
    branches: intParam(2, 15, 10, 'samples of the first merge and of each improvement level'),
    levels: intParam(1, 4, 2, 'improvement levels'),
  }),
  got: () => ({
    merges: intParam(1, 10, 5, 'merges of all documents'),
    keepBest: intParam(1, 5, 3, 'best merges aggregated'),
    aggregations: intParam(1, 10, 5, 'samples of the aggregation'),
    improvements: intParam(1, 15, 10, 'samples of the final improvement'),
  }),
  got2: () => ({
    merges: intParam(1, 10, 5, 'merges of each half'),
    aggregations: intParam(1, 10, 5, 'samples of the aggregation of the halves'),
    improvements: intParam(1, 10, 5, 'samples of the final improvement'),
  }),
} satisfies Record<string, (size: number) => SearchSpace>;

const paramsOf = (scheme: keyof typeof docMergeTunables, o: SchemeOptions) =>
  resolveConfig(docMergeTunables[scheme](), o.params) as Record<string, number>;

function tot(o: SchemeOptions): GoO {
  const p = paramsOf('tot', o);
  const b = new GooBuilder();
  let best = b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: p.branches }), JUDGE), { n: 1, ...HIGHER });
  for (let level = 0; level < p.levels!; level++) {
    const improved = b.score(b.generate(best, { prompt: 'improve', k: p.branches }), JUDGE);
    best = b.keepBestN([improved, best], { n: 1, ...HIGHER, ...(level === p.levels! - 1 ? { id: 'final' } : {}) });
  }
  return b.build();
}

function got(o: SchemeOptions): GoO {
  const p = paramsOf('got', o);
  const b = new GooBuilder();
  const drafts = b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: p.merges }), JUDGE), { n: p.keepBest!, ...HIGHER });
  const aggregated = b.score(b.aggregate(drafts, { prompt: 'aggregate', k: p.aggregations }), JUDGE);
  const best = b.keepBestN([aggregated, drafts], { n: 1, ...HIGHER });
  const improved = b.score(b.generate(best, { prompt: 'improve', k: p.improvements }), JUDGE);
  b.keepBestN([improved, best], { n: 1, ...HIGHER, id: 'final' });
  return b.build();
}

/** The documents' indices cut in two: the first half (one more when odd) and the rest. */
export function halves(count: number): [number[], number[]] {
  const all = Array.from({ length: count }, (_, i) => i);
  const cut = Math.ceil(count / 2);
  return [all.slice(0, cut), all.slice(cut)];
}

function got2(o: SchemeOptions): GoO {
  const { size } = o;
  const p = paramsOf('got2', o);
  if (!Number.isInteger(size) || size < 2)
    throw new RangeError(`got2 merges two halves of the documents: it needs at least 2 documents, got ${size}`);
  const b = new GooBuilder();
  const parts = halves(size).map((documents, i) =>
    b.keepBestN(b.score(b.generate(null, { prompt: 'merge', k: p.merges, id: `merge-half-${i + 1}`, params: { documents } }), JUDGE), {
      n: 1,
      ...HIGHER,
    }),
  );
  const best = b.keepBestN(b.score(b.aggregate(parts, { prompt: 'aggregate', k: p.aggregations }), JUDGE), { n: 1, ...HIGHER });
  const improved = b.score(b.generate(best, { prompt: 'improve', k: p.improvements }), JUDGE);
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
