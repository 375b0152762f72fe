import type { Thought } from '../grs/types';

/**
 * The operations that need no LLM: they choose among thoughts and run inside the workflow.
 * All are pure and deterministic, so replaying a workflow reproduces their choices exactly.
 */

/**
 * Keeps the n best thoughts. The sort is stable, so ties keep input order; thoughts without a score
 * (never scored, or whose scoring failed) rank after every scored one. With `validFirst`, every
 * valid thought ranks before every invalid one: a cut-off answer may score well on what it has, but
 * it is not an answer.
 */
export function keepBestN(thoughts: readonly Thought[], n: number, higherIsBetter: boolean, validFirst = false): Thought[] {
  const rank = (t: Thought) => (t.score === undefined ? Infinity : higherIsBetter ? -t.score : t.score);
  const tier = (t: Thought) => (validFirst && !t.valid ? 1 : 0);
  return thoughts
    .map((t, i) => ({ t, i }))
    .sort((a, b) => tier(a.t) - tier(b.t) || rank(a.t) - rank(b.t) || a.i - b.i)
    .slice(0, n)
    .map(({ t }) => t);
}

/** Keeps the valid thoughts (a thought is invalid when its answer did not parse or failed validation). */
export function keepValidOnly(thoughts: readonly Thought[]): Thought[] {
  return thoughts.filter((t) => t.valid);
}

/** Keeps the thoughts whose state matches every field of `where`, e.g. `{ part: 1 }` after a split. */
export function select(thoughts: readonly Thought[], where: Record<string, string | number | boolean>): Thought[] {
  return thoughts.filter((t) => Object.entries(where).every(([key, value]) => t.state[key] === value));
}

/** Deduplicates by id while keeping first occurrence order (an operation may see a thought via two inputs). */
export function uniqueThoughts(thoughts: readonly Thought[]): Thought[] {
  const seen = new Set<string>();
  return thoughts.filter((t) => {
    if (seen.has(t.id)) return false;
    seen.add(t.id);
    return true;
  });
}
