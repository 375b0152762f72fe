/**
 * Exact arithmetic for the Game of 24: fractions (so 8 / 3 * 9 is exactly 24), a solver that finds
 * an expression for four numbers when there is one, and the checker of a final expression. Pure.
 */

/** A fraction n / d in lowest terms, d > 0. */
export interface Fraction {
  n: number;
  d: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b));

export function fraction(n: number, d = 1): Fraction {
  if (d === 0) throw new RangeError('division by zero');
  const g = gcd(n, d) || 1;
  const sign = d < 0 ? -1 : 1;
  return { n: (sign * n) / g, d: (sign * d) / g };
}

export type Operator = '+' | '-' | '*' | '/';
export const OPERATORS: readonly Operator[] = ['+', '-', '*', '/'];

/** a op b, or undefined for a division by zero. */
export function apply(a: Fraction, op: Operator, b: Fraction): Fraction | undefined {
  switch (op) {
    case '+':
      return fraction(a.n * b.d + b.n * a.d, a.d * b.d);
    case '-':
      return fraction(a.n * b.d - b.n * a.d, a.d * b.d);
    case '*':
      return fraction(a.n * b.n, a.d * b.d);
    case '/':
      return b.n === 0 ? undefined : fraction(a.n * b.d, a.d * b.n);
  }
}

export const equals = (a: Fraction, b: Fraction) => a.n === b.n && a.d === b.d;
export const TARGET = fraction(24);

/** An expression for `numbers` (each used once) that equals 24, or undefined when there is none. */
export function solve(numbers: readonly number[]): string | undefined {
  return search(numbers.map((x) => ({ value: fraction(x), text: String(x) })));
}

/** Whether the numbers can still make 24 (one number left: whether it is 24). */
export const solvable = (numbers: readonly number[]): boolean => solve(numbers) !== undefined;

function search(items: { value: Fraction; text: string }[]): string | undefined {
  if (items.length === 1) return equals(items[0]!.value, TARGET) ? items[0]!.text : undefined;
  for (let i = 0; i < items.length; i++)
    for (let j = 0; j < items.length; j++) {
      if (i === j) continue;
      const rest = items.filter((_, k) => k !== i && k !== j);
      for (const op of OPERATORS) {
        // + and * commute: one order is enough.
        if ((op === '+' || op === '*') && j < i) continue;
        const value = apply(items[i]!.value, op, items[j]!.value);
        if (!value) continue;
        const found = search([...rest, { value, text: `(${items[i]!.text} ${op} ${items[j]!.text})` }]);
        if (found) return found;
      }
    }
  return undefined;
}

/** The value of an arithmetic expression of whole numbers, + - * / and parentheses, with the numbers it uses. */
export function evaluate(expression: string): { value: Fraction; numbers: number[] } {
  const tokens = expression.match(/\d+|[-+*/()]|\S/g) ?? [];
  let at = 0;
  const numbers: number[] = [];
  const peek = () => tokens[at];
  const expect = (t: string) => {
    if (tokens[at] !== t) throw new Error(`expected "${t}" at token ${at + 1} of "${expression}"`);
    at++;
  };
  const primary = (): Fraction => {
    const t = tokens[at++];
    if (t === '(') {
      const v = sum();
      expect(')');
      return v;
    }
    if (t !== undefined && /^\d+$/.test(t)) {
      numbers.push(Number(t));
      return fraction(Number(t));
    }
    throw new Error(`unexpected ${t === undefined ? 'end' : `"${t}"`} in "${expression}"`);
  };
  const product = (): Fraction => {
    let v = primary();
    while (peek() === '*' || peek() === '/') {
      const op = tokens[at++] as Operator;
      const r = apply(v, op, primary());
      if (!r) throw new Error(`division by zero in "${expression}"`);
      v = r;
    }
    return v;
  };
  const sum = (): Fraction => {
    let v = product();
    while (peek() === '+' || peek() === '-') {
      const op = tokens[at++] as Operator;
      v = apply(v, op, product())!;
    }
    return v;
  };
  const value = sum();
  if (at !== tokens.length) throw new Error(`unexpected "${tokens[at]}" in "${expression}"`);
  return { value, numbers };
}

/** Why an expression does not solve the puzzle, or undefined when it does (each number once, nothing else, equal to 24). */
export function answerProblem(expression: string, puzzle: readonly number[]): string | undefined {
  let result: ReturnType<typeof evaluate>;
  try {
    result = evaluate(expression);
  } catch (e) {
    return (e as Error).message;
  }
  const used = [...result.numbers].sort((a, b) => a - b).join(' ');
  const given = [...puzzle].sort((a, b) => a - b).join(' ');
  if (used !== given) return `uses ${used || 'no numbers'}, not ${given}`;
  if (!equals(result.value, TARGET))
    return `equals ${result.value.d === 1 ? result.value.n : `${result.value.n}/${result.value.d}`}, not 24`;
  return undefined;
}
