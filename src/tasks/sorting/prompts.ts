/**
 * Prompts for sorting digit lists, structured as in the paper (instruction, approach, few-shot
 * examples, then the input) and worded for this project. The markers at the start of each
 * instruction are stable: the simulated LLM recognises the prompt by them.
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

export function sortPrompt(list: readonly number[]): string {
  return `<Instruction> ${SORTING_MARKERS.sort} Answer with the sorted list only, nothing else. </Instruction>

<Examples>
${SORT_EXAMPLES.map(([i, o]) => `Input: ${fmt(i)}\nOutput: ${fmt(o)}`).join('\n\n')}
</Examples>

Input: ${fmt(list)}`;
}

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

export function mergePrompt(a: readonly number[], b: readonly number[]): string {
  return `<Instruction> ${SORTING_MARKERS.merge} (${a.length} and ${b.length} numbers) into one ascending list of ${a.length + b.length} numbers, the way merge sort does. Answer with the merged list only. </Instruction>

<Approach>
1. Look at the first remaining number of each list.
2. Move the smaller of the two to the end of the merged list.
3. Repeat until one list is empty, then append what remains of the other.
</Approach>

List A: ${fmt(a)}
List B: ${fmt(b)}
Merged:`;
}

export function improvePrompt(unsorted: readonly number[], attempt: readonly number[]): string {
  return `<Instruction> ${SORTING_MARKERS.improve}. The attempt contains mistakes. Correct it: the answer must be in ascending order, have exactly ${unsorted.length} numbers and contain each number exactly as often as the original list does. </Instruction>

<Approach>
1. For every digit from 0 to 9, count how often it occurs in the original list and in the attempt.
2. Add or remove copies in the attempt until every count matches, keeping the order ascending.
</Approach>

<Examples>
Original: [4, 1, 9, 0, 2, 2, 7, 5]
Attempt: [0, 1, 1, 2, 4, 5, 7, 9, 9]
Reason: the attempt has one 1 and one 9 too many and one 2 too few.
Output: [0, 1, 2, 2, 4, 5, 7, 9]
</Examples>

Original: ${fmt(unsorted)}
Attempt: ${fmt(attempt)}`;
}

export function sortCotPrompt(list: readonly number[]): string {
  return `<Instruction> ${SORTING_MARKERS.sortCot} Show your intermediate lists, then give the final answer on a line of its own as "Output: [..]". </Instruction>

<Approach>
1. Cut the list into sublists of 16 numbers each (the last one may be shorter).
2. Sort every sublist on its own.
3. Merge the sorted sublists pair by pair, always moving the smaller front number first, until one list remains.
</Approach>

<Examples>
Input: ${fmt([...SORT_EXAMPLES[0][0], ...SORT_EXAMPLES[1][0]])}
Sublists: ${fmt(SORT_EXAMPLES[0][0])}, ${fmt(SORT_EXAMPLES[1][0])}
Sorted sublists: ${fmt(SORT_EXAMPLES[0][1])}, ${fmt(SORT_EXAMPLES[1][1])}
Output: ${fmt([...SORT_EXAMPLES[0][1], ...SORT_EXAMPLES[1][1]].sort((a, b) => a - b))}
</Examples>

Input: ${fmt(list)}`;
}
