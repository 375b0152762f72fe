import type { GooBuilder, Ref } from '../goo/builder';
import { choiceParam } from '../tune/space';

/**
 * Who cuts GoT's input into its parts (decision 83): the LLM, as the paper's GoT does (one call,
 * whose mistakes count in the scores), or the engine (no call; the parts are exact slices). Small
 * models get the cut wrong: Qwen2.5-Coder-1.5B never cut a 32-number list correctly.
 */
export const SPLIT_BY = ['llm', 'engine'] as const;
export type SplitBy = (typeof SPLIT_BY)[number];

/** The name of the split (`Task.splits`) a task gives for `split: engine`: `parts` equal consecutive slices. */
export const EQUAL_PARTS_SPLIT = 'equalParts';

/** The `split` scheme parameter of a GoT that cuts its input into parts. */
export const splitByParam = {
  split: choiceParam(
    [...SPLIT_BY],
    'llm',
    "who cuts the input into parts: the LLM (the paper's GoT, one call) or the engine (no call, exact parts)",
  ),
};

/** The first step of such a GoT: the input in `parts` parts (each thought has its `part` index), made as `by` says. */
export function splitStep(b: GooBuilder, parts: number, by: SplitBy | undefined): Ref {
  if (by === 'engine')
    // An empty forEach body passes its parts on: a local transform recorded in history, no LLM call.
    return b.forEach(null, { parts: { split: EQUAL_PARTS_SPLIT, params: { parts } }, maxParts: parts, id: 'split' });
  return b.generate(null, { prompt: 'split', id: 'split', params: { parts } });
}

/** The i-th of `parts` consecutive slices of `list`, cut as the LLM's split prompts ask (`ceil(n / parts)` each). */
export function equalSlice<T>(list: readonly T[], parts: number, i: number): T[] {
  const size = Math.ceil(list.length / parts);
  return list.slice(i * size, (i + 1) * size);
}

/** `params.parts` of an equal-parts split, checked. */
export function partsParam(params: Record<string, unknown>): number {
  const parts = params.parts;
  if (typeof parts !== 'number' || !Number.isInteger(parts) || parts < 1)
    throw new Error(`params.parts must be a positive integer, got ${JSON.stringify(parts)}`);
  return parts;
}
