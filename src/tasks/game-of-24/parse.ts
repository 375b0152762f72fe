/** Reading the Game of 24 answers: proposed steps, a judgement, a final expression. Pure. */

import { answerSchema, type JsonSchema, jsonAnswer, numberList, strictObject, stringField } from '../answer-schema';

const OPERATION: JsonSchema = { type: 'string', enum: ['+', '-', '*', '/'] };

/** The answers as structured output asks for them (decision 65): each step's parts, the expression, the judgement after its working. */
export const GAME24_SCHEMAS = {
  propose: answerSchema('game_of_24_propose', {
    steps: {
      type: 'array',
      items: strictObject({ a: { type: 'number' }, op: OPERATION, b: { type: 'number' }, result: { type: 'number' }, left: numberList }),
    },
  }),
  answer: answerSchema('game_of_24_answer', { expression: stringField }),
  value: answerSchema('game_of_24_value', {
    reasoning: stringField,
    judgement: { type: 'string', enum: ['sure', 'likely', 'impossible'] },
  }),
};

/**
 * The steps of a JSON answer, as the lines the free text has (`a op b = c (left: ...)`), so both are
 * checked alike; where the object closed. Undefined when the answer has no such object.
 */
export function jsonSteps(text: string): { lines: string; end: number } | undefined {
  const json = jsonAnswer(text, ['steps']);
  if (!json || !Array.isArray(json.value.steps)) return undefined;
  const lines = json.value.steps.map((step) => {
    if (typeof step === 'string') return step;
    const { a, op, b, result, left } = (step ?? {}) as Record<string, unknown>;
    return `${a} ${op} ${b} = ${result} (left: ${Array.isArray(left) ? left.join(' ') : ''})`;
  });
  return { lines: lines.join('\n'), end: json.end };
}

/** A proposed step as the model wrote it, with the numbers it says remain. */
export interface Step {
  line: string;
  left: number[];
}

const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const STEP = new RegExp(String.raw`(${NUMBER})\s*([-+*/x×÷])\s*(${NUMBER})\s*=\s*(${NUMBER})\s*\(\s*left:\s*([^)]*)\)`, 'i');

const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;

/** Removes one of each of `take` from `from`; undefined when one is missing. */
function without(from: readonly number[], take: readonly number[]): number[] | undefined {
  const rest = [...from];
  for (const x of take) {
    const i = rest.findIndex((y) => near(x, y));
    if (i < 0) return undefined;
    rest.splice(i, 1);
  }
  return rest;
}

/**
 * The first `count` well-formed steps from `left`: both operands among the numbers, and the numbers
 * said to remain are the others plus the result. The arithmetic itself is the model's claim (a wrong
 * result is kept, as a real model's would be: later steps and the final check find it out).
 */
export function readSteps(text: string, left: readonly number[], count: number): Step[] {
  const steps: Step[] = [];
  for (const raw of text.split('\n')) {
    if (steps.length >= count) break;
    const m = STEP.exec(raw);
    if (!m) continue;
    const [a, b, c] = [Number(m[1]), Number(m[3]), Number(m[4])];
    const said = m[5]!
      .trim()
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    const rest = without(left, [a, b]);
    if (!rest || said.some(Number.isNaN)) continue;
    const expected = [...rest, c].sort((x, y) => x - y);
    const stated = [...said].sort((x, y) => x - y);
    if (expected.length !== stated.length || expected.some((x, i) => !near(x, stated[i]!))) continue;
    steps.push({ line: `${m[1]} ${normalOp(m[2]!)} ${m[3]} = ${m[4]} (left: ${said.join(' ')})`, left: stated });
  }
  return steps;
}

const normalOp = (op: string) => ({ x: '*', X: '*', '×': '*', '÷': '/' })[op] ?? op;

/** The judgement's value words, as Tree of Thoughts weighs them: one sure counts for twenty likelies. */
export const JUDGEMENT_VALUES = { sure: 20, likely: 1, impossible: 0.001 } as const;

/** The judgement of a JSON answer, else the last judgement word in an answer, or undefined when there is none. */
export function readJudgement(text: string): keyof typeof JUDGEMENT_VALUES | undefined {
  const judged = jsonAnswer(text, ['judgement'])?.value.judgement;
  if (typeof judged === 'string' && Object.hasOwn(JUDGEMENT_VALUES, judged.trim().toLowerCase()))
    return judged.trim().toLowerCase() as keyof typeof JUDGEMENT_VALUES;
  const words = text.toLowerCase().match(/\b(sure|likely|impossible)\b/g);
  return words?.at(-1) as keyof typeof JUDGEMENT_VALUES | undefined;
}

/** The expression of a JSON answer or of the last `Answer:` line (the part before "="), or undefined when there is none. */
export function readExpression(text: string): string | undefined {
  const json = jsonAnswer(text, ['expression'])?.value.expression;
  const line = typeof json === 'string' ? json : [...text.matchAll(/answer:\s*(.+)/gi)].at(-1)?.[1];
  const expression = line === undefined ? undefined : line.split('=')[0]!.trim();
  return expression && /\d/.test(expression) && /^[\d\s()+\-*/.]+$/.test(expression) ? expression : undefined;
}
