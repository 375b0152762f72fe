import { z } from 'zod';
import type { ThoughtState } from '../../grs/types';
import { type AnswerSchema, answerSchema, endOf, integerList, integerListOf, splitSchema, stringField } from '../answer-schema';
import { EQUAL_PARTS_SPLIT, equalSlice, partsParam } from '../split-by';
import type { ParsedThought, Part, PromptRequest, Split, Task } from '../task';
import { generateSetIntersectionProblem, IntegerSet, parseSetIntersectionCsv } from './dataset';
import { readList, readSplitLists } from './parse';
import { fmt, improvePrompt, intersectCotPrompt, intersectPrompt, mergePrompt, splitPrompt } from './prompts';
import { setIntersectionSchemes, setIntersectionTunables } from './schemes';
import { errorScope, intersect, UNPARSEABLE_SCORE } from './score';

export const SetIntersectionProblem = z.strictObject({
  set1: IntegerSet.min(1, 'set1 needs at least one number').describe('the first set: distinct whole numbers'),
  set2: IntegerSet.min(1, 'set2 needs at least one number').describe(
    'the second set: distinct whole numbers (the one GoT splits into parts)',
  ),
});
export type SetIntersectionProblem = z.infer<typeof SetIntersectionProblem>;

/**
 * A set intersection thought. `subset` is the part of set2 the thought is about (all of set2, the
 * i-th true slice after a split, or the union of slices after a merge), so the score needs nothing
 * else; `given` is that part as the model copied it during the split, which is what later prompts
 * show; `result` is the model's current intersection; `part` the index after a split.
 */
export interface SetIntersectionState extends ThoughtState {
  set1: number[];
  subset: number[];
  given?: number[];
  result?: number[];
  part?: number;
}

const asState = (s: ThoughtState) => s as SetIntersectionState;
const shownSet2 = (s: SetIntersectionState) => s.given ?? s.subset;

function splitAnswer(parent: SetIntersectionState, parts: number, text: string): ParsedThought[] {
  const lists = readSplitLists(text, parts, [shownSet2(parent)]);
  if (!lists.ok) return [{ state: { set1: parent.set1, subset: parent.subset }, valid: false, error: lists.error }];
  return lists.value.map((given, part) => ({
    // The truth for part i is the i-th slice of the parent, whatever the model wrote: split errors then count in scores.
    state: { set1: parent.set1, subset: equalSlice(parent.subset, parts, part), given, part },
    valid: true,
    ...endOf(lists),
  }));
}

/** `equalParts` (`params.parts`): each input thought's part of set2 in that many consecutive slices, as GoT's split prompt asks of the LLM (decision 83). */
const equalParts: Split<SetIntersectionProblem> = (inputs, _problem, params) => {
  const count = partsParam(params);
  return inputs.flatMap((input) => {
    const { set1, subset } = asState(input);
    return Array.from({ length: count }, (_, part): Part => {
      const slice = equalSlice(subset, count, part);
      return { state: { set1, subset: slice, given: slice, part } satisfies SetIntersectionState };
    });
  });
};

/**
 * The answer each prompt expects as JSON (structured output): the shared numbers as `output`, after
 * the reasoning where the prompt asks to work it out. An intersection has at most as many numbers as
 * the smaller of its two sets, a split's part exactly its slice (decision 85).
 */
function setIntersectionSchema({ prompt, params, thoughts }: PromptRequest): AnswerSchema | undefined {
  const states = thoughts.map(asState);
  // What the answer intersects: set1 with the part(s) of set2 these thoughts are about (unbounded for a thought without them).
  const bound = Math.min(
    states[0]?.set1?.length ?? Number.NaN,
    states.reduce((n, s) => n + (s.subset?.length ?? Number.NaN), 0),
  );
  const atMost = () => (Number.isNaN(bound) ? integerList : integerListOf({ atMost: bound }));
  switch (prompt) {
    case 'intersect':
    case 'merge':
      return answerSchema(`set_intersection_${prompt}`, { output: atMost() });
    case 'intersectCot':
    case 'improve':
      return answerSchema(`set_intersection_${prompt}`, { reasoning: stringField, output: atMost() });
    case 'split': {
      const parts = Number(params.parts ?? 2);
      const set2 = states[0]?.subset;
      return splitSchema('set_intersection_split', parts, (part) =>
        set2 ? integerListOf({ exactly: equalSlice(set2, parts, part).length }) : integerList,
      );
    }
    default:
      return undefined;
  }
}

/** `shown` are the lists the prompt gave: an answer that only copies them back has no answer of its own. */
function resultAnswer(base: SetIntersectionState, text: string, shown: number[][]): ParsedThought {
  const result = readList(text, shown);
  if (!result.ok) return { state: base, valid: false, error: result.error };
  return { state: { ...base, result: result.value }, valid: true, ...endOf(result) };
}

/** The fields a new answer about the same part keeps from the thought it came from. */
function sameQuestion({ set1, subset, given, part }: SetIntersectionState): SetIntersectionState {
  return { set1, subset, ...(given ? { given } : {}), ...(part === undefined ? {} : { part }) };
}

/** Errors against the thought's own part; undefined without an answer (or without the part, for a state the engine made). */
function ownErrors(s: SetIntersectionState): number | undefined {
  return s.result && s.set1 && s.subset ? errorScope(intersect(s.set1, s.subset), s.result) : undefined;
}

export const setIntersectionTask: Task<SetIntersectionProblem> = {
  id: 'set-intersection',
  title: 'Intersecting two sets of numbers',
  problem: SetIntersectionProblem,
  higherIsBetter: false,
  noAnswerScore: UNPARSEABLE_SCORE,
  sizes: [32, 64, 128],
  prompts: ['intersect', 'intersectCot', 'improve', 'split', 'merge'],
  schemes: setIntersectionSchemes,
  tunables: setIntersectionTunables,
  splits: { [EQUAL_PARTS_SPLIT]: equalParts },
  // The second set is the one the GoT scheme splits into parts of 16.
  sizeOf: (p) => p.set2.length,
  sizeMeans: 'numbers in set2',
  rootState: (p): SetIntersectionState => ({ set1: p.set1, subset: p.set2 }),
  answerText: (state) => {
    const s = asState(state);
    return s.result ? fmt(s.result) : `(no intersection: ${String(state.answer ?? 'unparseable answer')})`;
  },
  datasetFile: (size) => `set_intersection_${String(size).padStart(3, '0')}.csv`,
  // Clamped at the set size, as sorting's figures clamp at the list length.
  plotMax: (size) => size,
  parseDataset: parseSetIntersectionCsv,
  generateProblem: generateSetIntersectionProblem,

  buildPrompt({ prompt, params, thoughts }: PromptRequest) {
    const states = thoughts.map(asState);
    const first = states[0]!;
    const content = (() => {
      switch (prompt) {
        case 'intersect':
          return intersectPrompt(first.set1, shownSet2(first));
        case 'intersectCot':
          return intersectCotPrompt(first.set1, shownSet2(first));
        case 'improve':
          return improvePrompt(first.set1, shownSet2(first), first.result ?? []);
        case 'split':
          return splitPrompt(shownSet2(first), Number(params.parts ?? 2));
        case 'merge':
          return mergePrompt(first.result ?? [], states[1]?.result ?? []);
        default:
          throw new Error(`set-intersection has no prompt "${prompt}"`);
      }
    })();
    return [{ role: 'user', content }];
  },

  answerSchema: setIntersectionSchema,

  parseResponse({ prompt, params, thoughts }: PromptRequest, text: string) {
    const states = thoughts.map(asState);
    const first = states[0]!;
    if (prompt === 'split') return splitAnswer(first, Number(params.parts ?? 2), text);
    if (prompt === 'merge')
      return [
        resultAnswer(
          { set1: first.set1, subset: states.flatMap((s) => s.subset ?? []) },
          text,
          states.map((s) => s.result ?? []),
        ),
      ];
    const shown = [first.set1, shownSet2(first), ...(prompt === 'improve' && first.result ? [first.result] : [])];
    return [resultAnswer(sameQuestion(first), text, shown)];
  },

  score: (state) => ownErrors(asState(state)) ?? UNPARSEABLE_SCORE,

  validate: (state) => ownErrors(asState(state)) === 0,

  groundTruth(state, problem) {
    const s = asState(state);
    return !!s.result && errorScope(intersect(problem.set1, problem.set2), s.result) === 0;
  },
};
