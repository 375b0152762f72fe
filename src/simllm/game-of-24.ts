import { apply, fraction, OPERATORS, type Operator, solvable, solve } from '../tasks/game-of-24/arithmetic';
import { GAME24_MARKERS } from '../tasks/game-of-24/prompts';
import { type Random, randomInt } from '../util/random';
import { responderFor } from './prompt-input';
import type { Answer } from './responders';

/**
 * Simulated answers to the Game of 24 prompts: proposals of valid-looking steps, some with wrong
 * arithmetic; value judgements that follow the truth (whether the numbers left can make 24) with
 * noise; final expressions written from the steps, now and then with a slip.
 */

/** How often a proposed step gets its result wrong. */
const WRONG_STEP = 0.08;
/** How often the final expression slips (an operator changed). */
const ANSWER_SLIP = 0.08;
/** Without steps (IO), how often the model finds an expression that works. */
const SOLVES_IN_ONE_GO = 0.3;
/** The judgement's noise: the probability of each word when the numbers can, and cannot, make 24. */
const JUDGE = {
  reachable: { sure: 0.65, likely: 0.3, impossible: 0.05 },
  unreachable: { sure: 0.08, likely: 0.3, impossible: 0.62 },
} as const;

const numbersAfter = (prompt: string, label: string): number[] | undefined => {
  const line = [...prompt.matchAll(new RegExp(`^${label}\\s*([\\d .\\-]+)$`, 'gm'))].at(-1)?.[1];
  const numbers = line?.trim().split(/\s+/).map(Number);
  return numbers?.length && numbers.every(Number.isFinite) ? numbers : undefined;
};

const show = (x: number) => (Number.isInteger(x) ? String(x) : String(Math.round(x * 1000) / 1000));

/** Every step from these numbers: a pair, an operator, a result (whole-number divisions only, as puzzles are usually solved). */
function candidateSteps(left: readonly number[]): { a: number; b: number; op: Operator; c: number; rest: number[] }[] {
  const out: { a: number; b: number; op: Operator; c: number; rest: number[] }[] = [];
  for (let i = 0; i < left.length; i++)
    for (let j = 0; j < left.length; j++) {
      if (i === j) continue;
      const [a, b] = [left[i]!, left[j]!];
      const rest = left.filter((_, k) => k !== i && k !== j);
      for (const op of OPERATORS) {
        if ((op === '+' || op === '*') && j < i) continue;
        if (op === '-' && a < b) continue;
        const r = apply(fraction(a), op, fraction(b));
        if (r?.d !== 1) continue;
        out.push({ a, b, op, c: r.n, rest });
      }
    }
  return out;
}

function proposeAnswer(left: number[], count: number): Answer {
  return (random) => {
    const candidates = candidateSteps(left);
    // A shuffle: each sample proposes its own selection.
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = randomInt(random, i + 1);
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    return candidates
      .slice(0, count)
      .map(({ a, b, op, c, rest }) => {
        const said = random() < WRONG_STEP ? c + (random() < 0.5 ? -1 : 1) * (1 + randomInt(random, 2)) : c;
        return `${a} ${op} ${b} = ${said} (left: ${[...rest, said]
          .sort((x, y) => x - y)
          .map(show)
          .join(' ')})`;
      })
      .join('\n');
  };
}

function pick<K extends string>(weights: Record<K, number>, random: Random): K {
  let u = random();
  const keys = Object.keys(weights) as K[];
  for (const k of keys) {
    u -= weights[k];
    if (u < 0) return k;
  }
  return keys.at(-1)!;
}

function valueAnswer(left: number[]): Answer {
  const reachable = left.length === 1 ? left[0] === 24 : solvable(left);
  return (random) => {
    const word = pick(reachable ? JUDGE.reachable : JUDGE.unreachable, random);
    const tried = left.length > 1 ? `${left.map(show).join(' + ')} = ${show(left.reduce((a, b) => a + b, 0))}\n` : '';
    return `${tried}${word}`;
  };
}

/** The expression the steps build, each number replaced by how it was made; undefined when a step uses a number not there. */
function expressionOf(numbers: readonly number[], steps: readonly string[]): string | undefined {
  const items = numbers.map((n) => ({ value: n, text: String(n) }));
  for (const step of steps) {
    const m = /(-?[\d.]+)\s*([-+*/])\s*(-?[\d.]+)\s*=\s*(-?[\d.]+)/.exec(step);
    if (!m) return undefined;
    const i = items.findIndex((x) => x.value === Number(m[1]));
    if (i < 0) return undefined;
    const [first] = items.splice(i, 1);
    const j = items.findIndex((x) => x.value === Number(m[3]));
    if (j < 0) return undefined;
    const [second] = items.splice(j, 1);
    items.push({ value: Number(m[4]), text: `(${first!.text} ${m[2]} ${second!.text})` });
  }
  return items.length === 1 ? items[0]!.text.replace(/^\((.*)\)$/, '$1') : undefined;
}

function answerAnswer(numbers: number[], steps: string[]): Answer {
  return (random) => {
    let expression = steps.length ? expressionOf(numbers, steps) : undefined;
    if (!steps.length) {
      // In one go: sometimes the model finds a solution, otherwise it writes something plausible.
      const solution = random() < SOLVES_IN_ONE_GO ? solveText(numbers) : undefined;
      expression = solution ?? numbers.join(` ${OPERATORS[randomInt(random, 3)]} `);
    }
    if (!expression) return 'Answer: I could not combine these steps into one expression.';
    if (random() < ANSWER_SLIP) {
      const ops = [...expression.matchAll(/[-+*/]/g)];
      const at = ops[randomInt(random, ops.length)]?.index;
      if (at !== undefined) expression = `${expression.slice(0, at)}${OPERATORS[randomInt(random, 4)]}${expression.slice(at + 1)}`;
    }
    return `Answer: ${expression} = 24`;
  };
}

const solveText = (numbers: readonly number[]) => solve(numbers)?.replace(/^\((.*)\)$/, '$1');

type Game24Prompt = keyof typeof GAME24_MARKERS;

function answerFor(kind: Game24Prompt, prompt: string): Answer | undefined {
  switch (kind) {
    case 'propose': {
      const left = numbersAfter(prompt, 'Input:');
      const count = Number(/write up to (\d+) such steps/.exec(prompt)?.[1] ?? 8);
      return left && left.length > 1 ? proposeAnswer(left, count) : undefined;
    }
    case 'value': {
      const left = numbersAfter(prompt, 'Numbers:');
      return left ? valueAnswer(left) : undefined;
    }
    case 'answer': {
      const numbers = numbersAfter(prompt, 'Input:');
      const steps = prompt.slice(prompt.lastIndexOf('Steps:') + 'Steps:'.length).trim();
      return numbers ? answerAnswer(numbers, steps ? steps.split('\n') : []) : undefined;
    }
  }
}

/** The Game of 24 responder: undefined unless the prompt is one of its prompts with a readable input. */
export const game24Responder = responderFor('game-of-24', GAME24_MARKERS, answerFor);
