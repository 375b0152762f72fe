/**
 * Prompts for intersecting two sets of numbers, structured as in the paper (instruction, approach
 * where it helps, few-shot examples, then the real input) and worded for this project. The
 * markers at the start of each instruction are stable: the simulated LLM recognises prompts by them.
 */

export const SET_INTERSECTION_MARKERS = {
  intersect: 'Write down every number that occurs in both of the sets below.',
  intersectCot: 'Work out, one step at a time, which numbers the two sets below have in common.',
  improve: 'Below are two sets of numbers and an attempt at listing the numbers they share',
  split: 'Break the list of numbers below into',
  merge: 'Join the two sets of numbers below into a single set',
} as const;

export const fmt = (list: readonly number[]) => `[${list.join(', ')}]`;

/** Invented examples: [set 1, set 2, the numbers in both, in the order of set 2]. */
const EXAMPLES = [
  [
    [42, 7, 19, 3, 58, 26, 11, 35],
    [5, 26, 60, 3, 44, 19, 0, 51],
    [26, 3, 19],
  ],
  [
    [14, 2, 29, 47, 8, 61, 33, 20, 55, 9, 38, 0, 17, 52, 41, 24],
    [31, 9, 50, 20, 6, 47, 13, 62, 24, 45, 1, 36, 55, 27, 14, 58],
    [9, 20, 47, 24, 55, 14],
  ],
] as const;

const inputLines = (set1: readonly number[], set2: readonly number[]) => `Set 1: ${fmt(set1)}\nSet 2: ${fmt(set2)}`;

export function intersectPrompt(set1: readonly number[], set2: readonly number[]): string {
  return `<Instruction> ${SET_INTERSECTION_MARKERS.intersect} List each shared number once and reply with that list only, no other text. </Instruction>

<Examples>
${EXAMPLES.map(([a, b, both]) => `${inputLines(a, b)}\nOutput: ${fmt(both)}`).join('\n\n')}
</Examples>

${inputLines(set1, set2)}`;
}

export function intersectCotPrompt(set1: readonly number[], set2: readonly number[]): string {
  const [a, b, both] = EXAMPLES[1];
  const halves = [b.slice(0, 8), b.slice(8)];
  return `<Instruction> ${SET_INTERSECTION_MARKERS.intersectCot} You may write intermediate results; finish with the shared numbers, each once, on a line of its own starting with "Output: ". </Instruction>

<Approach>
1. Cut Set 2 into pieces of at most 16 numbers, without overlaps.
2. For every piece, keep the numbers that Set 1 also contains.
3. Join the kept numbers of all pieces into one list: that is the answer.
</Approach>

<Examples>
${inputLines(a, b)}
Pieces of Set 2: ${halves.map(fmt).join(', ')}
Shared with Set 1, per piece: ${halves.map((h) => fmt(h.filter((x) => (a as readonly number[]).includes(x)))).join(', ')}
Output: ${fmt(both)}
</Examples>

${inputLines(set1, set2)}`;
}

export function improvePrompt(set1: readonly number[], set2: readonly number[], attempt: readonly number[]): string {
  const [a, b] = EXAMPLES[1];
  return `<Instruction> ${SET_INTERSECTION_MARKERS.improve}. The attempt has mistakes: fix it so that it holds exactly the numbers found in both sets, each of them once. Reply with the corrected list on a line starting with "Output: ". </Instruction>

<Approach>
1. Drop every number of the attempt that is missing from Set 1 or from Set 2, and every repeated copy.
2. Go through Set 2; add each number that Set 1 also holds and the attempt lacks.
</Approach>

<Examples>
${inputLines(a, b)}
Attempt: [9, 20, 20, 31, 24, 55, 14]
Reason: 31 is not in Set 1, 20 appears twice, and 47 is missing.
Output: [9, 20, 47, 24, 55, 14]
</Examples>

${inputLines(set1, set2)}
Attempt: ${fmt(attempt)}`;
}

export function splitPrompt(list: readonly number[], parts: number): string {
  const size = Math.ceil(list.length / parts);
  const names = Array.from({ length: parts }, (_, i) => `"List ${i + 1}"`);
  const example = Array.from({ length: 2 * size }, (_, i) => (i * 37 + 11) % (4 * size));
  return `<Instruction> ${SET_INTERSECTION_MARKERS.split} ${parts} lists of ${size} numbers each without changing their order: the first list takes the first ${size} numbers, the second list the next ${size}, and so on.
Reply with a JSON object whose keys are ${names.join(', ')} and nothing else. </Instruction>

<Examples>
Input: ${fmt(example)}
Output: {"List 1": ${fmt(example.slice(0, size))}, "List 2": ${fmt(example.slice(size))}}
</Examples>

Input: ${fmt(list)}`;
}

export function mergePrompt(a: readonly number[], b: readonly number[]): string {
  return `<Instruction> ${SET_INTERSECTION_MARKERS.merge}: write the numbers of the first set, then those of the second set, leaving out any number that is already written. Reply with the joined list only. </Instruction>

<Examples>
First set: [12, 40, 7]
Second set: [33, 7, 2]
Output: [12, 40, 7, 33, 2]
</Examples>

First set: ${fmt(a)}
Second set: ${fmt(b)}`;
}
