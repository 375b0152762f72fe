import { EQUAL_PARTS_SPLIT, equalSlice, partsParam } from '../split-by';
import type { Part, Split } from '../task';
import type { SortingProblem, SortingState } from './index';
import { isSortedVersionOf } from './score';

/**
 * Sorting's splits, for forEach operations: cutting a list into parts needs no LLM (the paper's GoT
 * asks one for it; `chunks` is the local alternative), and a round of repair needs to run only on
 * the parts that are still wrong (`unsolvedParts`).
 */

/** `chunks` (`params.size`, default 16): each input thought's list cut into consecutive parts of `size` numbers, each a new thought. */
const chunks: Split<SortingProblem> = (inputs, _problem, params) => {
  const size = params.size ?? 16;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1)
    throw new Error(`params.size must be a positive integer, got ${JSON.stringify(size)}`);
  const parts: Part[] = [];
  for (const input of inputs) {
    const list = (input as SortingState).list ?? [];
    for (let at = 0; at < list.length; at += size) {
      const chunk = list.slice(at, at + size);
      parts.push({ state: { unsorted: chunk, list: chunk, part: parts.length } satisfies SortingState });
    }
  }
  return parts;
};

/** `equalParts` (`params.parts`): each input thought's list in that many consecutive slices, as GoT's split prompt asks of the LLM (decision 83). */
const equalParts: Split<SortingProblem> = (inputs, _problem, params) => {
  const count = partsParam(params);
  return inputs.flatMap((input) => {
    const list = (input as SortingState).list ?? [];
    return Array.from({ length: count }, (_, part): Part => {
      const slice = equalSlice(list, count, part);
      return { state: { unsorted: slice, list: slice, part } satisfies SortingState };
    });
  });
};

/**
 * `unsolvedParts`: the input thoughts grouped by the list they sort (`unsorted`), groups in the order
 * they first appear. A group with a correct sorting of its list is kept (that thought only, as it is);
 * every other group is one part, its thoughts the candidates a body can repair or choose among.
 */
const unsolvedParts: Split<SortingProblem> = (inputs) => {
  const groups = new Map<string, number[]>();
  inputs.forEach((input, i) => {
    const key = JSON.stringify((input as SortingState).unsorted);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return [...groups.values()].map((members): Part => {
    const solved = members.find((i) => {
      const s = inputs[i] as SortingState;
      return !!s.list && isSortedVersionOf(s.unsorted, s.list);
    });
    return solved === undefined ? { thoughts: members } : { keep: [solved] };
  });
};

/** Sorting's splits by name (`Task.splits`). */
export const sortingSplits = { chunks, [EQUAL_PARTS_SPLIT]: equalParts, unsolvedParts } satisfies Record<string, Split<SortingProblem>>;
