import { type PromptLayout, type PromptOverride, partsWith, renderParts } from '../../prompts/parts';
import { groupSentences, splitSentences } from './parse';
import { type Counts, countMentions } from './score';

/**
 * Prompts for counting countries in a text, structured as in the paper's appendix D (instruction,
 * approach where it has one, few-shot examples, then the input) and worded for this project. The
 * marker opening each instruction is stable: the simulated LLM recognises the prompt by it. Count,
 * CoT count, merge and improve are layouts (src/prompts): a prompt set or a study may reword them.
 */

export const KEYWORD_COUNTING_MARKERS = {
  count: 'Count how many times each country is mentioned in the text below.',
  countCot: 'Tally the country mentions of the text below passage by passage, then add the tallies up.',
  split: 'Divide the text below into consecutive passages without changing a word.',
  merge: 'Add up the two country tallies below into a single tally.',
  improveMerge: 'Two country tallies were added up into the combined tally below, but the sum has mistakes.',
  improve: 'Below is a text and an attempt at tallying the countries it mentions; the attempt has mistakes.',
} as const;

/** A tally as one line of JSON: `{"Peru": 2, "Chile": 1}`. */
export const fmtCounts = (counts: Counts) =>
  `{${Object.entries(counts)
    .map(([name, n]) => `${JSON.stringify(name)}: ${n}`)
    .join(', ')}}`;

const FORMAT = `Answer with a JSON object that maps each country mentioned at least once to its number of mentions, spelled as in the text, on a last line starting with "Output: ".`;

const COUNT_EXAMPLES: { text: string; counts: Counts }[] = [
  {
    text: 'Maria flew from Chile to Kenya for a wildlife survey. After two weeks in Kenya she crossed into Tanzania, where her team met researchers from Japan.',
    counts: { Chile: 1, Kenya: 2, Tanzania: 1, Japan: 1 },
  },
  {
    text: 'The bakery on the corner sells rye bread in the style of Finland and pastries from Austria. Its owner grew up in Austria and once ran a cafe in Morocco and another in Finland. It was raining all week. Customers from Thailand keep asking for coconut buns.',
    counts: { Finland: 2, Austria: 2, Morocco: 1, Thailand: 1 },
  },
  {
    text: 'A freighter from Singapore unloaded cars built in Germany, Germany and South Korea being the main suppliers that year.',
    counts: { Singapore: 1, Germany: 2, 'South Korea': 1 },
  },
];

const COT_EXAMPLE = {
  passages: [
    'The bakery on the corner sells rye bread in the style of Finland and pastries from Austria. Its owner grew up in Austria and once ran a cafe in Morocco and another in Finland.',
    'It was raining all week. Customers from Thailand keep asking for coconut buns, and a visitor from Austria ordered ten of them.',
  ],
  tallies: [
    { Finland: 2, Austria: 2, Morocco: 1 },
    { Thailand: 1, Austria: 1 },
  ] as Counts[],
  counts: { Finland: 2, Austria: 3, Morocco: 1, Thailand: 1 } as Counts,
};

const SPLIT_EXAMPLE =
  'Our tour began in Portugal. The guide there had studied in Egypt. We took a night train to Spain. Nobody slept much. In Spain we met two cyclists from Denmark. They had ridden all the way from Denmark through France. The last stop was Morocco. From Morocco we flew home.';

const passagesJson = (passages: readonly string[]) =>
  `{\n${passages.map((p, i) => `  "Passage ${i + 1}": ${JSON.stringify(p)}`).join(',\n')}\n}`;

/** Splits into `parts` passages of similar length, or one passage per sentence. */
export function splitPrompt(text: string, o: { parts: number; bySentence?: boolean }): string {
  const how = o.bySentence
    ? 'Make one passage per sentence, in the order of the text.'
    : `Make exactly ${o.parts} passages of roughly equal length, cutting only at sentence ends.`;
  const sentences = splitSentences(SPLIT_EXAMPLE);
  const example = o.bySentence ? sentences : groupSentences(sentences, o.parts);
  return `<Instruction> ${KEYWORD_COUNTING_MARKERS.split} ${how}
Reply with a JSON object whose keys are "Passage 1", "Passage 2", ... and whose values are the passages, and nothing else. </Instruction>

<Examples>
Input: ${SPLIT_EXAMPLE}
Output:
${passagesJson(example)}
</Examples>

Input: ${text}`;
}

export function improveMergePrompt(a: Counts, b: Counts, wrong: Counts): string {
  return `<Instruction> ${KEYWORD_COUNTING_MARKERS.improveMerge} Correct it: every country of tally A or tally B must appear once, with the sum of its numbers in A and B (a country missing from one tally counts 0 there). Answer with the corrected JSON object on a last line starting with "Output: ". </Instruction>

<Examples>
Tally A: {"Ghana": 2, "Nepal": 1, "Cuba": 1}
Tally B: {"Nepal": 3, "Fiji": 1, "Ghana": 1}
Wrong sum: {"Ghana": 2, "Nepal": 4, "Cuba": 1}
Output: {"Ghana": 3, "Nepal": 4, "Cuba": 1, "Fiji": 1}
</Examples>

Tally A: ${fmtCounts(a)}
Tally B: ${fmtCounts(b)}
Wrong sum: ${fmtCounts(wrong)}`;
}

/** What a counting prompt is about: the text (or passage), the tally of the first input and of the second (a merge). */
export interface CountingPromptInput {
  text: string;
  counts: Counts;
  other: Counts;
}

const COUNT_INSTRUCTION = `${KEYWORD_COUNTING_MARKERS.count} Count only explicit mentions of country names; a country named three times counts 3.`;
const countExample = (text: string, counts: Counts) => `Input: ${text}\nOutput: ${fmtCounts(counts)}`;
const noVariables = {};

/** A solved training problem as the count prompt shows its examples. */
function exampleOfCount(problem: unknown): string | undefined {
  const { text, countries } = problem as { text?: unknown; countries?: unknown };
  if (typeof text !== 'string' || !Array.isArray(countries)) return undefined;
  return countExample(text, countMentions(text, countries as string[]));
}

/** The prompts a prompt set may reword, by the names GoOs use. */
export const COUNTING_LAYOUTS: Record<'count' | 'countCot' | 'merge' | 'improve', PromptLayout<CountingPromptInput>> = {
  count: {
    variables: noVariables,
    build: ({ text }) => ({
      parts: {
        instruction: COUNT_INSTRUCTION,
        format: FORMAT,
        approach: '',
        examples: COUNT_EXAMPLES.map((e) => countExample(e.text, e.counts)),
      },
      values: {},
      input: `Input: ${text}`,
    }),
    exampleFrom: exampleOfCount,
  },
  countCot: {
    variables: noVariables,
    build: ({ text }) => ({
      parts: {
        instruction: `${KEYWORD_COUNTING_MARKERS.countCot} Count only explicit mentions of country names. Write down your passages and their tallies first.`,
        format: FORMAT,
        approach: `1. Cut the text into a few passages of similar length at sentence ends.
2. Tally the countries mentioned in each passage on its own.
3. Add the passage tallies together, country by country.`,
        examples: [
          `Input: ${COT_EXAMPLE.passages.join(' ')}
Passages:
${COT_EXAMPLE.passages.join('\n')}
Tallies:
${COT_EXAMPLE.tallies.map(fmtCounts).join('\n')}
Output: ${fmtCounts(COT_EXAMPLE.counts)}`,
        ],
      },
      values: {},
      input: `Input: ${text}`,
    }),
  },
  merge: {
    variables: noVariables,
    build: ({ counts, other }) => ({
      parts: {
        instruction: `${KEYWORD_COUNTING_MARKERS.merge} Each tally counts the countries of one part of a text. A country present in both gets the sum of its two numbers; a country present in only one keeps its number.`,
        format: 'Answer with the combined JSON object only.',
        approach: `1. Start from a copy of tally A.
2. For each country of tally B, add its number to the country's entry, creating the entry if it is missing.`,
        examples: [],
      },
      values: {},
      input: `Tally A: ${fmtCounts(counts)}\nTally B: ${fmtCounts(other)}\nCombined tally:`,
    }),
  },
  improve: {
    variables: noVariables,
    build: ({ text, counts }) => ({
      parts: {
        instruction: `${KEYWORD_COUNTING_MARKERS.improve} Some countries may be missing or extra, and some numbers may be wrong. Go through the text again and correct the tally.`,
        format: FORMAT,
        approach: '',
        examples: [
          `Input: ${COUNT_EXAMPLES[1]!.text}
Attempt: {"Finland": 1, "Austria": 2, "Morocco": 1, "Thailand": 1, "Sweden": 1}
Output: ${fmtCounts(COUNT_EXAMPLES[1]!.counts)}`,
        ],
      },
      values: {},
      input: `Input: ${text}\nAttempt: ${fmtCounts(counts)}`,
    }),
  },
};

/** A layout's prompt for its input, with a prompt set's replacements for it if any. */
export function countingPrompt(name: keyof typeof COUNTING_LAYOUTS, input: CountingPromptInput, override?: PromptOverride): string {
  const { parts, values, input: shown } = COUNTING_LAYOUTS[name].build(input);
  return renderParts(partsWith(parts, override, values), shown);
}

export const countPrompt = (text: string) => countingPrompt('count', { text, counts: {}, other: {} });
export const countCotPrompt = (text: string) => countingPrompt('countCot', { text, counts: {}, other: {} });
export const mergePrompt = (a: Counts, b: Counts) => countingPrompt('merge', { text: '', counts: a, other: b });
export const improvePrompt = (text: string, attempt: Counts) => countingPrompt('improve', { text, counts: attempt, other: {} });
