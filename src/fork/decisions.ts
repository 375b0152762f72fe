import { checkDecisions } from '../documents/check-decisions';
import type { Disagreement, ReviewDecision } from '../documents/types';
import type { Recalled } from './types';

/**
 * A parent's decisions as they apply to a fork's disagreements (decision 102): a disagreement ids
 * name within one run, so each decision goes to the fork's disagreement on the same kind of term and
 * topic, and stays only where it can be applied there (the chosen source still states a value).
 * Pure: the Controller runs it in the workflow sandbox.
 */
export function carriedDecisions(parent: NonNullable<Recalled['decisions']>, disagreements: readonly Disagreement[]): ReviewDecision[] {
  const topicOf = new Map(parent.disagreements.map((d) => [d.id, `${d.kind}\u0000${d.topic}`]));
  const forkIdOf = new Map(disagreements.map((d) => [`${d.kind}\u0000${d.topic}`, d.id]));
  const carried: ReviewDecision[] = [];
  const taken = new Set<string>();
  for (const decision of parent.decisions) {
    const topic = topicOf.get(decision.id);
    const id = topic === undefined ? undefined : forkIdOf.get(topic);
    if (id === undefined || taken.has(id)) continue;
    const moved = { id, choose: decision.choose };
    if (checkDecisions(disagreements, [moved]).length) continue;
    taken.add(id);
    carried.push(moved);
  }
  return carried;
}
