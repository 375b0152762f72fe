import { type PromptLayout, type PromptOverride, partsWith, renderParts } from '../../prompts/parts';

/**
 * Prompts for sorting digit lists, structured as in the paper (instruction, approach, few-shot
 * examples, then the input) and worded for this project. The markers at the start of each
 * instruction are stable: the simulated LLM recognises the prompt by them. Sort, CoT sort, merge and
 * improve are layouts (src/prompts): their parts can be reworded by a prompt set or a study.
 */

export const SORTING_MARKERS = {
  sort: 'Put the numbers of the list below into ascending order.',
  sortCot: 'Sort the list below in ascending order, working step by step.',
  split: 'Cut the list of numbers below into',
  merge: 'Combine the two ascending lists below',
  improve: 'Below you find a list of numbers and an attempt at sorting it',
} as const;

export const fmt = (list: readonly number[]) => `[${list.join(', ')}]`;

const SORT_EXAMPLES = [
  [
    [3, 8, 1, 1, 0, 9, 4, 2, 7, 7, 5, 0, 6, 3, 2, 8],
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 7, 8, 8, 9],
  ],
  [
    [9, 2, 6, 0, 4, 4, 1, 7, 3, 5, 8, 2, 6, 1, 0, 9],
    [0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 9, 9],
  ],
] as const;

const IMPROVE_EXAMPLE = `Original: [4, 1, 9, 0, 2, 2, 7, 5]
Attempt: [0, 1, 1, 2, 4, 5, 7, 9, 9]
Reason: the attempt has one 1 and one 9 too many and one 2 too few.
Output: [0, 1, 2, 2, 4, 5, 7, 9]`;

/** What a sorting prompt is about: the list to work on, the second list of a merge, the original list of an improve. */
export interface SortingPromptInput {
  list: readonly number[];
  other: readonly number[];
  unsorted: readonly number[];
}

const exampleOfSort = (problem: unknown) => {
  const list = (problem as { list?: unknown }).list;
  if (!Array.isArray(list) || !list.every((n) => typeof n === 'number')) return undefined;
  return `Input: ${fmt(list)}\nOutput: ${fmt([...list].sort((a, b) => a - b))}`;
};

const lengthOf = { length: 'how many numbers the list has' };

/** The prompts a prompt set may reword, by the names GoOs use. */
export const SORTING_LAYOUTS: Record<'sort' | 'sortCot' | 'merge' | 'improve', PromptLayout<SortingPromptInput>> = {
  sort: {
    variables: lengthOf,
    build: ({ list }) => ({
      parts: {
        instruction: SORTING_MARKERS.sort,
        format: 'Answer with the sorted list only, nothing else.',
        approach: '',
        examples: SORT_EXAMPLES.map(([i, o]) => `Input: ${fmt(i)}\nOutput: ${fmt(o)}`),
      },
      values: { length: String(list.length) },
      input: `Input: ${fmt(list)}`,
    }),
    exampleFrom: exampleOfSort,
  },
  sortCot: {
    variables: lengthOf,
    build: ({ list }) => ({
      parts: {
        instruction: SORTING_MARKERS.sortCot,
        format: 'Show your intermediate lists, then give the final answer on a line of its own as "Output: [..]".',
        approach: `1. Cut the list into sublists of 16 numbers each (the last one may be shorter).
2. Sort every sublist on its own.
3. Merge the sorted sublists pair by pair, always moving the smaller front number first, until one list remains.`,
        examples: [
          `Input: ${fmt([...SORT_EXAMPLES[0][0], ...SORT_EXAMPLES[1][0]])}
Sublists: ${fmt(SORT_EXAMPLES[0][0])}, ${fmt(SORT_EXAMPLES[1][0])}
Sorted sublists: ${fmt(SORT_EXAMPLES[0][1])}, ${fmt(SORT_EXAMPLES[1][1])}
Output: ${fmt([...SORT_EXAMPLES[0][1], ...SORT_EXAMPLES[1][1]].sort((a, b) => a - b))}`,
        ],
      },
      values: { length: String(list.length) },
      input: `Input: ${fmt(list)}`,
    }),
  },
  merge: {
    variables: { lengthA: 'how many numbers list A has', lengthB: 'how many numbers list B has', total: 'both lengths together' },
    build: ({ list: a, other: b }) => ({
      parts: {
        instruction: `${SORTING_MARKERS.merge} ({{lengthA}} and {{lengthB}} numbers) into one ascending list of {{total}} numbers, the way merge sort does.`,
        format: 'Answer with the merged list only.',
        approach: `1. Look at the first remaining number of each list.
2. Move the smaller of the two to the end of the merged list.
3. Repeat until one list is empty, then append what remains of the other.`,
        examples: [],
      },
      values: { lengthA: String(a.length), lengthB: String(b.length), total: String(a.length + b.length) },
      input: `List A: ${fmt(a)}\nList B: ${fmt(b)}\nMerged:`,
    }),
  },
  improve: {
    variables: lengthOf,
    build: ({ unsorted, list: attempt }) => ({
      parts: {
        instruction: `${SORTING_MARKERS.improve}. The attempt contains mistakes. Correct it: the answer must be in ascending order, have exactly {{length}} numbers and contain each number exactly as often as the original list does.`,
        format: '',
        approach: `1. For every digit from 0 to 9, count how often it occurs in the original list and in the attempt.
2. Add or remove copies in the attempt until every count matches, keeping the order ascending.`,
        examples: [IMPROVE_EXAMPLE],
      },
      values: { length: String(unsorted.length) },
      input: `Original: ${fmt(unsorted)}\nAttempt: ${fmt(attempt)}`,
    }),
  },
};

/** A layout's prompt for its input, with a prompt set's replacements for it if any. */
export function sortingPrompt(name: keyof typeof SORTING_LAYOUTS, input: SortingPromptInput, override?: PromptOverride): string {
  const { parts, values, input: shown } = SORTING_LAYOUTS[name].build(input);
  return renderParts(partsWith(parts, override, values), shown);
}

export const sortPrompt = (list: readonly number[]) => sortingPrompt('sort', { list, other: [], unsorted: list });
export const sortCotPrompt = (list: readonly number[]) => sortingPrompt('sortCot', { list, other: [], unsorted: list });
export const mergePrompt = (a: readonly number[], b: readonly number[]) => sortingPrompt('merge', { list: a, other: b, unsorted: a });
export const improvePrompt = (unsorted: readonly number[], attempt: readonly number[]) =>
  sortingPrompt('improve', { list: attempt, other: [], unsorted });

export function splitPrompt(list: readonly number[], parts: number): string {
  const size = Math.ceil(list.length / parts);
  const names = Array.from({ length: parts }, (_, i) => `"List ${i + 1}"`);
  const example = Array.from({ length: Math.min(parts, 2) * size }, (_, i) => (i * 7 + 3) % 10);
  const exampleParts = Math.min(parts, 2);
  return `<Instruction> ${SORTING_MARKERS.split} ${parts} lists of ${size} numbers each, keeping the order: the first list takes the first ${size} numbers, the second list the next ${size}, and so on.
Reply with a JSON object whose keys are ${names.join(', ')} and nothing else. </Instruction>

<Examples>
Input: ${fmt(example)}
Output: {${Array.from({ length: exampleParts }, (_, i) => `"List ${i + 1}": ${fmt(example.slice(i * size, (i + 1) * size))}`).join(', ')}}
</Examples>

Input: ${fmt(list)}`;
}
