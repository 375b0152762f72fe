import { z } from 'zod';
import type { ThoughtState } from '../../grs/types';
import { type AnswerSchema, answerSchema, endOf, type JsonSchema, splitSchema, strictObject, stringField } from '../answer-schema';
import type { ParsedThought, PromptRequest, Task } from '../task';
import { generateKeywordCountingProblem, parseKeywordCountingCsv } from './dataset';
import { readCounts, readPassages, splitSentences } from './parse';
import { COUNTING_LAYOUTS, type CountingPromptInput, countingPrompt, fmtCounts, improveMergePrompt, splitPrompt } from './prompts';
import { keywordCountingSchemes, keywordCountingTunables } from './schemes';
import { addCounts, type Counts, countError, countMentions, sameCounts, tally, UNPARSEABLE_SCORE } from './score';

export const KeywordCountingProblem = z
  .strictObject({
    text: z.string().min(1, 'a text to count countries in').max(200_000).describe('the text to count the countries mentioned in'),
    /** Every mention of a country in the text, in order and with repeats: the ground truth, and the keywords. */
    countries: z
      .array(z.string().min(1))
      .max(10_000)
      .describe(
        'every mention of a country in the text, in order and with repeats (the ground truth; each name as often as the text has it)',
      ),
  })
  .superRefine(({ text, countries }, ctx) => {
    // Parts are scored by counting the names in their passage; the list must agree with that count.
    const truth = tally(countries);
    const found = countMentions(text, countries);
    for (const name of Object.keys(truth)) {
      if (found[name] !== truth[name]) {
        ctx.addIssue({
          code: 'custom',
          path: ['countries'],
          message: `lists "${name}" ${truth[name]} times but the text mentions it ${found[name] ?? 0} times`,
        });
      }
    }
  });
export type KeywordCountingProblem = z.infer<typeof KeywordCountingProblem>;

/**
 * A keyword counting thought: `text` is the passage it counts, `counts` the LLM's tally. After a
 * split, `part` is the passage's index among `parts`; `covered` says how many passages a (merged)
 * thought spans, so a thought covering all of them is judged against the whole problem. A merged
 * thought also keeps the tallies it added up (`sources`) and their true sum (`expected`), which
 * validation and the improve-merge prompt use.
 */
export interface KeywordCountingState extends ThoughtState {
  text: string;
  counts?: Counts;
  part?: number;
  parts?: number;
  covered?: number;
  expected?: Counts;
  sources?: Counts[];
}

const asState = (s: ThoughtState) => s as KeywordCountingState;
const textOf = (s: KeywordCountingState) => s.text ?? '';
const countsOf = (s: KeywordCountingState | undefined) => s?.counts ?? {};
/** What a layout needs of a request's thoughts: the first one's text and tally, a merge's second tally. */
const promptInput = (states: KeywordCountingState[]): CountingPromptInput => ({
  text: textOf(states[0]!),
  counts: countsOf(states[0]),
  other: countsOf(states[1]),
});

/** The passage fields of a thought, without its answer: what a new count of the same passage starts from. */
function passageOf(s: KeywordCountingState): KeywordCountingState {
  const { text, part, parts, covered } = s;
  return {
    text: text ?? '',
    ...(part === undefined ? {} : { part }),
    ...(parts === undefined ? {} : { parts }),
    ...(covered === undefined ? {} : { covered }),
  };
}

/** `shown` are the tallies the prompt gave: an answer that only copies them back has no tally of its own. */
function withCounts(base: KeywordCountingState, text: string, shown: Counts[] = []): ParsedThought {
  const counts = readCounts(text, shown);
  if (!counts.ok) return { state: base, valid: false, error: counts.error };
  return { state: { ...base, counts: counts.value }, valid: true, ...endOf(counts) };
}

function splitAnswer(parent: KeywordCountingState, parts: number, text: string): ParsedThought[] {
  const read = readPassages(text);
  if (!read)
    return [{ state: { text: textOf(parent) }, valid: false, error: 'no passages (a JSON object of strings) in the split answer' }];
  const passages = read.passages;
  // Always exactly `parts` passages, so every branch has one and the merge tree covers them all:
  // surplus passages join the last one, missing ones are empty (their text is lost, which the final score shows).
  const fitted = Array.from({ length: parts }, (_, i) => (i < parts - 1 ? passages[i] : passages.slice(i).join(' ')) ?? '');
  return fitted.map((passage, part) => ({ state: { text: passage, part, parts, covered: 1 }, valid: true, ...endOf(read) }));
}

/** A tally as strict structured output can say it: a map has no fixed keys, so a list of country and count. */
const TALLY: JsonSchema = {
  type: 'array',
  items: strictObject({ country: stringField, count: { type: 'integer' } }),
};

/** The answer each prompt expects as JSON (structured output): the tally as `output`, after the working for CoT; the passages of a split. */
function keywordCountingSchema({ prompt, params }: PromptRequest): AnswerSchema | undefined {
  switch (prompt) {
    case 'count':
    case 'merge':
    case 'improveMerge':
    case 'improve':
      return answerSchema(`keyword_counting_${prompt}`, { output: TALLY });
    case 'countCot':
      return answerSchema('keyword_counting_countCot', { reasoning: stringField, output: TALLY });
    case 'split':
      return splitSchema('keyword_counting_split', Math.max(1, Number(params.parts ?? 4)), stringField, 'Passage');
    default:
      return undefined;
  }
}

function mergeAnswer(inputs: KeywordCountingState[], text: string): ParsedThought {
  const sources = inputs.map(countsOf);
  const base: KeywordCountingState = {
    text: inputs.map(textOf).join(' '),
    ...(inputs[0]?.parts === undefined ? {} : { parts: inputs[0].parts }),
    covered: inputs.reduce((sum, s) => sum + (s.covered ?? 1), 0),
    expected: sources.reduce(addCounts, {}),
    sources,
  };
  return withCounts(base, text, sources);
}

export const keywordCountingTask: Task<KeywordCountingProblem> = {
  id: 'keyword-counting',
  title: 'Counting the countries mentioned in a text',
  problem: KeywordCountingProblem,
  higherIsBetter: false,
  noAnswerScore: UNPARSEABLE_SCORE,
  sizes: [8, 12, 16],
  prompts: ['count', 'countCot', 'split', 'merge', 'improveMerge', 'improve'],
  schemes: keywordCountingSchemes,
  tunables: keywordCountingTunables,
  sizeOf: (p) => splitSentences(p.text).length,
  sizeMeans: 'sentences in the text',
  rootState: (p): KeywordCountingState => ({ text: p.text }),
  answerText: (state) => {
    const s = asState(state);
    return s.counts ? fmtCounts(s.counts) : `(no tally: ${String(state.answer ?? 'unparseable answer')})`;
  },
  parseDataset: parseKeywordCountingCsv,
  // The paper's texts in one file, whatever their number of sentences.
  datasetFile: () => 'countries.csv',
  generateProblem: generateKeywordCountingProblem,

  buildPrompt({ prompt, params, thoughts, prompts }: PromptRequest) {
    const states = thoughts.map(asState);
    const first = states[0]!;
    const content = (() => {
      switch (prompt) {
        case 'split':
          return splitPrompt(textOf(first), { parts: Number(params.parts ?? 4), bySentence: params.bySentence === true });
        case 'merge':
          if (states.length > 2) throw new Error(`the merge prompt adds up two tallies, but the aggregate has ${states.length} inputs`);
          return countingPrompt('merge', promptInput(states), prompts?.merge);
        case 'improveMerge':
          return improveMergePrompt(first.sources?.[0] ?? {}, first.sources?.[1] ?? {}, countsOf(first));
        default:
          if (!Object.hasOwn(COUNTING_LAYOUTS, prompt)) throw new Error(`keyword-counting has no prompt "${prompt}"`);
          return countingPrompt(prompt as keyof typeof COUNTING_LAYOUTS, promptInput(states), prompts?.[prompt]);
      }
    })();
    return [{ role: 'user', content }];
  },

  promptLayouts: Object.fromEntries(
    Object.entries(COUNTING_LAYOUTS).map(([name, layout]) => [
      name,
      { ...layout, build: (req: PromptRequest) => layout.build(promptInput(req.thoughts.map(asState))) },
    ]),
  ),

  checkParams(prompt, params, problem) {
    if (prompt !== 'split') return [];
    const { parts, bySentence } = params;
    if (!Number.isInteger(parts) || (parts as number) < 1)
      return [`parts: the number of passages to split into must be a positive integer, got ${JSON.stringify(parts)}`];
    const sentences = splitSentences(problem.text).length;
    // Branches are built per part before the run: one per sentence only works if the counts agree.
    if (bySentence === true && parts !== sentences)
      return [`parts: a split by sentence of this text makes ${sentences} passages, but the GoO has ${String(parts)} branches`];
    return [];
  },

  answerSchema: keywordCountingSchema,

  parseResponse({ prompt, params, thoughts }: PromptRequest, text: string) {
    const states = thoughts.map(asState);
    const first = states[0]!;
    switch (prompt) {
      case 'split':
        return splitAnswer(first, Math.max(1, Number(params.parts ?? 4)), text);
      case 'merge':
        return [mergeAnswer(states, text)];
      case 'improveMerge': {
        const { counts: _old, answer: _raw, ...merged } = first;
        return [withCounts(merged as KeywordCountingState, text, [...(first.sources ?? []), countsOf(first)])];
      }
      case 'improve':
        return [withCounts(passageOf(first), text, [countsOf(first)])];
      default:
        return [withCounts(passageOf(first), text)];
    }
  },

  score(state, problem) {
    const s = asState(state);
    if (!s.counts) return UNPARSEABLE_SCORE;
    const whole = s.parts === undefined || (s.covered ?? 1) >= s.parts;
    return countError(whole ? tally(problem.countries) : countMentions(textOf(s), problem.countries), s.counts);
  },

  validate(state) {
    const s = asState(state);
    return !!s.counts && (!s.expected || sameCounts(s.counts, s.expected));
  },

  groundTruth(state, problem) {
    const s = asState(state);
    return !!s.counts && sameCounts(s.counts, tally(problem.countries));
  },
};
