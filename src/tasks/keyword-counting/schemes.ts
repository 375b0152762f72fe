import { GooBuilder, type Ref } from '../../goo/builder';
import type { GoO } from '../../goo/schema';
import { intParam, resolveConfig, type SearchSpace } from '../../tune/space';
import type { SchemeOptions } from '../task';
import type { KeywordCountingProblem } from './index';
import { splitSentences } from './parse';

/**
 * The paper's keyword counting experiments as GoOs (REFERENCE-GOO.md): IO and CoT count once; ToT
 * refines the best of k counts over fixed levels; GoT splits the text into 4 or 8 passages or one
 * per sentence, counts each passage 10 times keeping the best, and adds the tallies up pairwise,
 * checking every sum against its two inputs and asking for a fix when it is wrong.
 */

type Options = SchemeOptions<KeywordCountingProblem>;

const LOWER = { higherIsBetter: false } as const;
const TOT = { tot: { k: 20, levels: 3 }, tot2: { k: 10, levels: 5 } } as const;
const PART_COUNTS = 10;
const MERGE_SAMPLES = 3;
const MERGE_TRIES = 3;

function single(prompt: 'count' | 'countCot'): GoO {
  const b = new GooBuilder();
  b.groundTruth(b.score(b.generate(null, { prompt, id: prompt })), { id: 'groundtruth' });
  return b.build();
}

/** ToT's tunables: branches per level and improvement levels. */
function totSpace(variant: keyof typeof TOT): SearchSpace {
  const { k, levels } = TOT[variant];
  return {
    branches: intParam(2, 25, k, 'samples of the first count and of each improvement level'),
    levels: intParam(1, 6, levels, 'improvement levels after the first count'),
  };
}

/** GoT's tunables: counts per passage, and each pairwise sum's samples and fix attempts. */
const GOT_SPACE: SearchSpace = {
  countBranches: intParam(1, 20, PART_COUNTS, 'samples of each passage count'),
  mergeBranches: intParam(1, 6, MERGE_SAMPLES, 'samples of each sum of two tallies'),
  mergeTries: intParam(1, 5, MERGE_TRIES, 'attempts to fix a sum that disagrees with its two tallies'),
};

interface GotParams {
  countBranches: number;
  mergeBranches: number;
  mergeTries: number;
}

function tot(variant: keyof typeof TOT, params: SchemeOptions['params']): GoO {
  const { branches: k, levels } = resolveConfig(totSpace(variant), params) as { branches: number; levels: number };
  const b = new GooBuilder();
  let best = b.keepBestN(b.score(b.generate(null, { prompt: 'count', k })), { n: 1, ...LOWER });
  for (let level = 0; level < levels; level++) {
    const improved = b.score(b.generate(best, { prompt: 'improve', k }));
    best = b.keepBestN([improved, best], { n: 1, ...LOWER });
  }
  b.groundTruth(b.keepBestN(best, { n: 1, ...LOWER, id: 'final' }));
  return b.build();
}

/** Aggregate -> ValidateAndImprove -> Score -> Keep: the best checked sum of two tallies. */
function mergeNode(b: GooBuilder, pair: Ref[], p: GotParams): Ref {
  const merged = b.aggregate(pair, { prompt: 'merge', k: p.mergeBranches });
  const checked = b.validateAndImprove(merged, { prompt: 'improveMerge', tries: p.mergeTries });
  return b.keepBestN(b.score(checked), { n: 1, ...LOWER });
}

function got(parts: number, bySentence: boolean, params: SchemeOptions['params']): GoO {
  const p = resolveConfig(GOT_SPACE, params) as GotParams & Record<string, number>;
  const b = new GooBuilder();
  const split = b.generate(null, { prompt: 'split', id: 'split', params: bySentence ? { parts, bySentence } : { parts } });
  let level: Ref[] = Array.from({ length: parts }, (_, i) => {
    const part = b.selector(split, { where: { part: i }, id: `part-${i}` });
    return b.keepBestN(b.score(b.generate(part, { prompt: 'count', k: p.countBranches })), { n: 1, ...LOWER });
  });
  while (level.length > 1) {
    const next: Ref[] = [];
    // An odd one out moves up a level unmerged.
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? mergeNode(b, level.slice(i, i + 2), p) : level[i]!);
    level = next;
  }
  b.groundTruth(level[0]!, { id: 'groundtruth' });
  return b.build();
}

function gotx({ problem, params }: Options): GoO {
  if (!problem) throw new Error('the gotx scheme splits the text into one passage per sentence: pass the problem in the scheme options');
  return got(Math.max(1, splitSentences(problem.text).length), true, params);
}

/** What `got tune` may change in each scheme (IO and CoT: nothing). */
export const keywordCountingTunables = {
  io: () => ({}),
  cot: () => ({}),
  tot: () => totSpace('tot'),
  tot2: () => totSpace('tot2'),
  got4: () => GOT_SPACE,
  got8: () => GOT_SPACE,
  gotx: () => GOT_SPACE,
} satisfies Record<string, (size: number) => SearchSpace>;

export const keywordCountingSchemes = {
  io: () => single('count'),
  cot: () => single('countCot'),
  tot: (o: Options) => tot('tot', o.params),
  tot2: (o: Options) => tot('tot2', o.params),
  got4: (o: Options) => got(4, false, o.params),
  got8: (o: Options) => got(8, false, o.params),
  gotx,
} satisfies Record<string, (o: Options) => GoO>;
