import { z } from 'zod';
import type { ThoughtState } from '../../grs/types';
import type { LlmScorer, ParsedThought, PromptRequest, Task } from '../task';
import { answerProblem } from './arithmetic';
import { game24Csv, generateGame24Problem, parseGame24Csv } from './dataset';
import { GAME24_SCHEMAS, JUDGEMENT_VALUES, jsonSteps, readExpression, readJudgement, readSteps } from './parse';
import { answerPrompt, proposePrompt, valuePrompt } from './prompts';
import { game24Schemes, game24Tunables } from './schemes';

export const Game24Problem = z.strictObject({
  numbers: z
    .array(z.number().int().min(1).max(13))
    .length(4, 'a Game of 24 puzzle is four numbers')
    .describe('the four numbers (1 to 13) to combine into 24'),
});
export type Game24Problem = z.infer<typeof Game24Problem>;

/**
 * A Game of 24 thought: the numbers still to combine (`left`), the steps taken so far, and once
 * written out, the whole `expression`.
 */
export interface Game24State extends ThoughtState {
  left: number[];
  steps: string[];
  expression?: string;
}

const asState = (s: ThoughtState) => s as Game24State;

/** How many steps a propose prompt asks for when its operation does not say. */
const DEFAULT_PROPOSALS = 8;
const countOf = (params: Record<string, unknown>) => (typeof params.count === 'number' ? params.count : DEFAULT_PROPOSALS);

/** The LLM judge of a thought's numbers: Tree of Thoughts' value step, its samples summed. */
const value: LlmScorer<Game24Problem> = {
  buildPrompt: (state) => [{ role: 'user', content: valuePrompt(asState(state).left) }],
  parseRatings(text) {
    const word = readJudgement(text);
    return word ? [JUDGEMENT_VALUES[word]] : undefined;
  },
  combine: (samples) => samples.reduce((a, s) => a + s[0]!, 0),
  unparseableScore: 0,
  ratingsSchema: GAME24_SCHEMAS.value,
};

export const game24Task: Task<Game24Problem> = {
  id: 'game-of-24',
  title: 'Game of 24',
  problem: Game24Problem,
  higherIsBetter: true,
  // Accuracy: a solved puzzle scores 1, anything else 0.
  noAnswerScore: 0,
  sizes: [4],
  prompts: ['propose', 'answer'],
  schemes: game24Schemes,
  tunables: game24Tunables,
  llmScorers: { value },
  sizeOf: (p) => p.numbers.length,
  sizeMeans: 'numbers in the puzzle (always 4)',
  rootState: (p): Game24State => ({ left: p.numbers, steps: [] }),
  answerText: (state) => {
    const s = asState(state);
    return s.expression
      ? `${s.expression} = 24`
      : s.steps.length
        ? s.steps.join('; ')
        : `(no expression: ${String(state.answer ?? 'unparseable answer')})`;
  },
  datasetFile: () => 'game_of_24.csv',
  parseDataset: parseGame24Csv,
  generateProblem: (_size, seed) => generateGame24Problem(seed),

  checkParams(prompt, params) {
    if (prompt !== 'propose' || params.count === undefined) return [];
    return Number.isInteger(params.count) && (params.count as number) >= 1 && (params.count as number) <= 50
      ? []
      : [`count: expected a whole number of steps from 1 to 50, got ${JSON.stringify(params.count)}`];
  },

  buildPrompt({ prompt, params, thoughts, problem }: PromptRequest) {
    const s = asState(thoughts[0]!);
    switch (prompt) {
      case 'propose':
        return [{ role: 'user', content: proposePrompt(s.left, countOf(params)) }];
      case 'answer':
        return [{ role: 'user', content: answerPrompt((problem as Game24Problem).numbers, s.steps) }];
      default:
        throw new Error(`game-of-24 has no prompt "${prompt}"`);
    }
  },

  answerSchema: ({ prompt }) => (prompt === 'propose' || prompt === 'answer' ? GAME24_SCHEMAS[prompt] : undefined),

  parseResponse({ prompt, params, thoughts }: PromptRequest, text: string): ParsedThought[] {
    const s = asState(thoughts[0]!);
    if (prompt === 'propose') {
      const json = jsonSteps(text);
      const steps = readSteps(json?.lines ?? text, s.left, countOf(params));
      if (!steps.length)
        return [{ state: { left: s.left, steps: s.steps }, valid: false, error: 'no well-formed step ("a op b = c (left: ...)")' }];
      // Steps are read line by line: only a JSON answer has a closing mark an answer cut at max tokens can be checked against.
      return steps.map((step) => ({
        state: { left: step.left, steps: [...s.steps, step.line] },
        valid: true,
        ...(json ? { end: json.end } : {}),
      }));
    }
    const expression = readExpression(text);
    if (!expression) return [{ state: { left: s.left, steps: s.steps }, valid: false, error: 'no "Answer:" line with an expression' }];
    return [{ state: { left: s.left, steps: s.steps, expression }, valid: true }];
  },

  score: (state, problem) => (game24Task.groundTruth!(state, problem) ? 1 : 0),

  groundTruth(state, problem) {
    const { expression } = asState(state);
    return !!expression && answerProblem(expression, problem.numbers) === undefined;
  },
};

/** A reproducible dataset of `count` puzzles in this task's CSV format (for `--dataset`). */
export const game24Dataset = game24Csv;
