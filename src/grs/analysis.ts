import { keepBestN, uniqueThoughts } from '../operations/filters';
import type { Grs, Thought } from './types';

/** Index of a GRS's thoughts by id. */
export function thoughtsById(grs: Grs): Map<string, Thought> {
  return new Map(grs.thoughts.map((t) => [t.id, t]));
}

/** Every thought from which there is a path to `id` (its transitive parents). */
export function ancestors(grs: Grs, id: string, index = thoughtsById(grs)): Set<string> {
  const seen = new Set<string>();
  const stack = [...(index.get(id)?.parents ?? [])];
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(index.get(next)?.parents ?? []));
  }
  return seen;
}

/**
 * The paper's volume of a thought: how many thoughts can reach it, i.e. how much of the reasoning
 * could have contributed to it (GoT's aggregation gives a final thought a far larger volume than
 * ToT's chain does).
 */
export function volume(grs: Grs, id: string, index = thoughtsById(grs)): number {
  return ancestors(grs, id, index).size;
}

/** The best final thought and everything it was built from: what a viewer highlights. */
export function bestPath(grs: Grs, bestId: string | undefined): Set<string> {
  if (!bestId) return new Set();
  return new Set([bestId, ...ancestors(grs, bestId)]);
}

/** Per-operation wall times (ms, workflow clock) for operations that ran. */
export function operationTimings(grs: Grs): { id: string; type: string; status: string; ms?: number }[] {
  return grs.operations.map((o) => ({
    id: o.id,
    type: o.type,
    status: o.status,
    ...(o.startedAt !== undefined && o.endedAt !== undefined ? { ms: o.endedAt - o.startedAt } : {}),
  }));
}

/** The output thoughts of the final operations, in order, each once. */
export function finalThoughts(grs: Grs, index = thoughtsById(grs)): Thought[] {
  const outputs = grs.operations.filter((o) => grs.finalOperations.includes(o.id)).flatMap((o) => o.outputThoughts);
  return uniqueThoughts(outputs.map((id) => index.get(id)!).filter(Boolean));
}

/** The best scored final thought by the task's direction, if any final thought was scored. */
export function bestThought(grs: Grs, higherIsBetter: boolean, index = thoughtsById(grs)): Thought | undefined {
  return keepBestN(
    finalThoughts(grs, index).filter((t) => t.score !== undefined),
    1,
    higherIsBetter,
  )[0];
}

/**
 * A score as people read it: whole numbers as they are, others to at most 3 decimals ("0.833"),
 * a tiny non-zero score in exponent form ("1.23e-5") rather than a misleading "0".
 */
export function formatScore(score: number): string {
  if (Number.isInteger(score) || !Number.isFinite(score)) return String(score);
  const rounded = Number(score.toFixed(3));
  return rounded === 0 ? score.toExponential(2) : String(rounded);
}
