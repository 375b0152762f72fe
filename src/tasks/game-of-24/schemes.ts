import { GooBuilder, type Ref } from '../../goo/builder';
import type { GoO } from '../../goo/schema';
import { intParam, resolveConfig, type SearchSpace } from '../../tune/space';
import type { SchemeOptions } from '../task';

/**
 * Game of 24 as GoOs. IO asks for the expression in one go. ToT follows Tree of Thoughts as
 * Framework of Thoughts ran it: three levels of proposals (each combines two numbers, so four
 * numbers become one), every proposal valued by the LLM `valueSamples` times ("sure", "likely",
 * "impossible"), the best `keepTop` kept for the next level; the best chain is then written out as
 * one expression and checked. The values are a forEach over the proposals, so one value step is
 * added per proposal as the proposals arrive (docs/for-each.md).
 */

const HIGHER = { higherIsBetter: true } as const;
const LEVELS = 3;

/** ToT's tunables: FoT's Table 6 (number of examples, samples per level, keep top N of levels 1 and 2). */
const TOT_SPACE: SearchSpace = {
  proposals: intParam(4, 12, 8, 'next steps each propose prompt asks for'),
  valueSamples1: intParam(1, 5, 3, 'value judgements of each first-level proposal'),
  valueSamples2: intParam(1, 5, 3, 'value judgements of each second-level proposal'),
  valueSamples3: intParam(1, 5, 3, 'value judgements of each third-level proposal'),
  keepTop1: intParam(2, 7, 5, 'first-level proposals kept'),
  keepTop2: intParam(2, 7, 5, 'second-level proposals kept'),
};

interface TotParams {
  proposals: number;
  valueSamples1: number;
  valueSamples2: number;
  valueSamples3: number;
  keepTop1: number;
  keepTop2: number;
}

function io(): GoO {
  const b = new GooBuilder();
  b.groundTruth(b.score(b.generate(null, { prompt: 'answer', id: 'answer' })), { id: 'groundtruth' });
  return b.build();
}

function tot({ params }: SchemeOptions): GoO {
  const p = resolveConfig(TOT_SPACE, params) as unknown as TotParams;
  const samples = [p.valueSamples1, p.valueSamples2, p.valueSamples3];
  const keep = [p.keepTop1, p.keepTop2, 1];
  const b = new GooBuilder();
  let frontier: Ref | null = null;
  let width = 1; // thoughts going into this level's propose step
  for (let level = 0; level < LEVELS; level++) {
    const proposed = b.keepValidOnly(
      b.generate(frontier, { prompt: 'propose', id: `propose-${level + 1}`, params: { count: p.proposals } }),
    );
    const valued = b.forEach(proposed, {
      id: `value-${level + 1}`,
      parts: 'each',
      maxParts: width * p.proposals,
      body: (body) => body.score([], { id: 'value', llm: { prompt: 'value', samples: samples[level]! } }),
    });
    frontier = b.keepBestN(valued, { n: keep[level]!, ...HIGHER, id: `keep-${level + 1}` });
    width = keep[level]!;
  }
  const answered = b.score(b.generate(frontier, { prompt: 'answer', id: 'answer' }));
  b.groundTruth(b.keepBestN(answered, { n: 1, ...HIGHER, id: 'final' }), { id: 'groundtruth' });
  return b.build();
}

/** What `got tune` may change in each scheme (IO: nothing). */
export const game24Tunables = {
  io: () => ({}),
  tot: () => TOT_SPACE,
} satisfies Record<string, (size: number) => SearchSpace>;

export const game24Schemes = {
  io,
  tot,
} satisfies Record<string, (o: SchemeOptions) => GoO>;
