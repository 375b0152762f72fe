import { z } from 'zod';
import type { ThoughtState } from '../../grs/types';
import { type AnswerSchema, answerSchema, endOf, integerList, integerListOf, splitSchema, stringField } from '../answer-schema';
import { equalSlice } from '../split-by';
import type { ParsedThought, PromptRequest, Task } from '../task';
import { generateSortingProblem, parseSortingCsv } from './dataset';
import { readList, readSplitLists } from './parse';
import { fmt, SORTING_LAYOUTS, type SortingPromptInput, sortingPrompt, splitPrompt } from './prompts';
import { sortingSchemes, sortingTunables } from './schemes';
import { errorScope, UNPARSEABLE_SCORE } from './score';
import { sortingSplits } from './splits';

export const SortingProblem = z.strictObject({
  list: z
    .array(z.number().int())
    .min(2, 'a list to sort needs at least 2 numbers')
    .max(4096)
    .describe("the numbers to sort (whole numbers; the paper's lists are digits 0-9)"),
});
export type SortingProblem = z.infer<typeof SortingProblem>;

/**
 * A sorting thought: `unsorted` is what the thought must be a sorted version of (its part of the
 * problem), `list` the LLM's current answer, `part` the index after a split.
 */
export interface SortingState extends ThoughtState {
  unsorted: number[];
  list?: number[];
  part?: number;
}

const asState = (s: ThoughtState) => s as SortingState;
const answerOf = (s: SortingState) => s.list ?? [];

/** What a layout needs of a request's thoughts: the first one's list, a merge's second list, the list the first must be a sorted version of. */
function promptInput(thoughts: ThoughtState[]): SortingPromptInput {
  const [first, second] = thoughts.map(asState);
  return { list: answerOf(first!), other: second ? answerOf(second) : [], unsorted: first!.unsorted };
}

function splitAnswer(parent: SortingState, parts: number, text: string): ParsedThought[] {
  const lists = readSplitLists(text, parts, [answerOf(parent)]);
  if (!lists.ok) return [{ state: { unsorted: parent.unsorted }, valid: false, error: lists.error }];
  return lists.value.map((list, part) => ({
    // The truth for part i is the i-th slice of the parent, whatever the LLM wrote: split errors then count in scores.
    state: { unsorted: equalSlice(parent.unsorted, parts, part), list, part },
    valid: true,
    ...endOf(lists),
  }));
}

/**
 * The answer each prompt expects as JSON (structured output): the list as `output`, after the
 * reasoning where the prompt asks to work it out. Every list's length is known (decision 85): a
 * sorting of n numbers has n, a merge the two lists' numbers together, a split's part its slice.
 */
function sortingSchema({ prompt, params, thoughts }: PromptRequest): AnswerSchema | undefined {
  const states = thoughts.map(asState);
  // A thought without its list (a request made up to list the prompts' schemas) gets an unbounded list.
  const exactly = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? integerList : integerListOf({ exactly: n }));
  const own = () => exactly(states[0]?.unsorted?.length);
  switch (prompt) {
    case 'sort':
      return answerSchema(`sorting_${prompt}`, { output: own() });
    case 'merge':
      return answerSchema(`sorting_${prompt}`, { output: exactly(states.reduce((n, s) => n + (s.unsorted?.length ?? Number.NaN), 0)) });
    case 'sortCot':
    case 'improve':
      return answerSchema(`sorting_${prompt}`, { reasoning: stringField, output: own() });
    case 'split': {
      const parts = Number(params.parts ?? 2);
      const list = states[0]?.unsorted;
      return splitSchema('sorting_split', parts, (part) => exactly(list && equalSlice(list, parts, part).length));
    }
    default:
      return undefined;
  }
}

/** `shown` are the lists the prompt gave: an answer that only copies them back has no answer of its own. */
function listAnswer(unsorted: number[], text: string, part: number | undefined, shown: number[][]): ParsedThought {
  const list = readList(text, shown);
  const base = { unsorted, ...(part === undefined ? {} : { part }) };
  if (!list.ok) return { state: base, valid: false, error: list.error };
  return { state: { ...base, list: list.value }, valid: true, ...endOf(list) };
}

export const sortingTask: Task<SortingProblem> = {
  id: 'sorting',
  title: 'Sorting lists of digits',
  problem: SortingProblem,
  higherIsBetter: false,
  noAnswerScore: UNPARSEABLE_SCORE,
  sizes: [32, 64, 128],
  prompts: ['sort', 'sortCot', 'split', 'merge', 'improve'],
  schemes: sortingSchemes,
  tunables: sortingTunables,
  splits: sortingSplits,
  sizeOf: (p) => p.list.length,
  sizeMeans: 'numbers in the list',
  rootState: (p): SortingState => ({ unsorted: p.list, list: p.list }),
  answerText: (state) => {
    const s = asState(state);
    return s.list ? fmt(s.list) : `(no list: ${String(state.answer ?? 'unparseable answer')})`;
  },
  datasetFile: (size) => `sorting_${String(size).padStart(3, '0')}.csv`,
  plotMax: (size) => size,
  parseDataset: parseSortingCsv,
  generateProblem: generateSortingProblem,

  buildPrompt({ prompt, params, thoughts, prompts }: PromptRequest) {
    const first = asState(thoughts[0]!);
    if (prompt === 'split') return [{ role: 'user', content: splitPrompt(answerOf(first), Number(params.parts ?? 2)) }];
    if (!Object.hasOwn(SORTING_LAYOUTS, prompt)) throw new Error(`sorting has no prompt "${prompt}"`);
    const name = prompt as keyof typeof SORTING_LAYOUTS;
    return [{ role: 'user', content: sortingPrompt(name, promptInput(thoughts), prompts?.[name]) }];
  },

  promptLayouts: Object.fromEntries(
    Object.entries(SORTING_LAYOUTS).map(([name, layout]) => [
      name,
      { ...layout, build: (req: PromptRequest) => layout.build(promptInput(req.thoughts)) },
    ]),
  ),

  answerSchema: sortingSchema,

  parseResponse({ prompt, params, thoughts }: PromptRequest, text: string) {
    const states = thoughts.map(asState);
    const first = states[0]!;
    if (prompt === 'split') return splitAnswer(first, Number(params.parts ?? 2), text);
    if (prompt === 'merge')
      return [
        listAnswer(
          states.flatMap((s) => s.unsorted),
          text,
          undefined,
          states.map(answerOf),
        ),
      ];
    const shown = prompt === 'improve' ? [first.unsorted, answerOf(first)] : [answerOf(first)];
    return [listAnswer(first.unsorted, text, first.part, shown)];
  },

  score(state) {
    const s = asState(state);
    return s.list ? errorScope(s.unsorted, s.list) : UNPARSEABLE_SCORE;
  },

  validate: (state) => {
    const s = asState(state);
    return !!s.list && errorScope(s.unsorted, s.list) === 0;
  },

  groundTruth(state, problem) {
    const s = asState(state);
    return !!s.list && errorScope(problem.list, s.list) === 0;
  },
};
