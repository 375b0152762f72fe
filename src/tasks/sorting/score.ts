/** Score of an unparseable answer (as in the paper's runs); plots clamp it to the list length. */
export const UNPARSEABLE_SCORE = 300;

function counts(list: readonly number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/**
 * The paper's error scope: how far each value's count is off, plus each adjacent pair out of
 * order. 0 means a correct sort; lower is better.
 */
export function errorScope(expected: readonly number[], answer: readonly number[]): number {
  const want = counts(expected);
  const got = counts(answer);
  let countErrors = 0;
  for (const value of new Set([...want.keys(), ...got.keys()])) {
    countErrors += Math.abs((want.get(value) ?? 0) - (got.get(value) ?? 0));
  }
  let descents = 0;
  for (let i = 1; i < answer.length; i++) if (answer[i - 1]! > answer[i]!) descents++;
  return countErrors + descents;
}

export function isSortedVersionOf(expected: readonly number[], answer: readonly number[]): boolean {
  return errorScope(expected, answer) === 0;
}
