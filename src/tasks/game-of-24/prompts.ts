/**
 * The Game of 24 prompts, after Tree of Thoughts' propose / value / answer steps (our own wording
 * and examples). Each prompt's first sentence is its marker: the simulated LLM recognises it.
 */

export const GAME24_MARKERS = {
  propose: 'Propose next steps towards 24.',
  value: 'Judge whether these numbers can still make 24.',
  answer: 'Write the whole calculation towards 24 as one expression.',
} as const;

const list = (numbers: readonly number[]) => numbers.join(' ');

/** Up to `count` next steps: two of the numbers combined by one operation, with the numbers left. */
export function proposePrompt(left: readonly number[], count: number): string {
  return `${GAME24_MARKERS.propose} Combine two of the numbers with one of + - * / and write up to ${count} such steps, one per line, as "a op b = c (left: the numbers that remain)". Nothing else.
Input: 3 5 9 12
Possible next steps:
3 + 5 = 8 (left: 8 9 12)
12 / 3 = 4 (left: 4 5 9)
9 - 5 = 4 (left: 3 4 12)
5 * 3 = 15 (left: 9 12 15)
12 - 9 = 3 (left: 3 3 5)
Input: ${list(left)}
Possible next steps:`;
}

/** Whether the numbers left can still reach 24: a few attempts, then one word. */
export function valuePrompt(left: readonly number[]): string {
  return `${GAME24_MARKERS.value} Each number is used once, with + - * / and parentheses. Try a few combinations, then end with one word on its own line: sure, likely or impossible.
Numbers: 4 6
4 * 6 = 24
sure
Numbers: 1 2 5
1 + 2 + 5 = 8
(1 + 2) * 5 = 15
all three are small
impossible
Numbers: 3 7 9
3 + 7 + 9 = 19
9 * 3 - 7 = 20
close, worth trying more
likely
Numbers: ${list(left)}`;
}

/** The final expression from the steps taken (none: solve it in one go). */
export function answerPrompt(numbers: readonly number[], steps: readonly string[]): string {
  return `${GAME24_MARKERS.answer} It uses each input number exactly once and equals 24; answer on one line starting with "Answer:".
Input: 1 2 3 4
Steps:
4 * 3 = 12 (left: 1 2 12)
2 * 12 = 24 (left: 1 24)
24 * 1 = 24 (left: 24)
Answer: (4 * 3) * 2 * 1 = 24
Input: ${list(numbers)}
Steps:
${steps.join('\n')}`.trimEnd();
}
