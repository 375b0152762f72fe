import type { Disagreement, ReviewDecision } from './types';

// Kept apart from the rest of decisions.ts, with no imports but types: the Controller's update validator
// runs it inside the workflow sandbox, so a decision is refused by the same rules before it enters history.

/** Problems with decisions on these disagreements, each a sentence a person can act on; empty when all can be applied. */
export function checkDecisions(disagreements: readonly Disagreement[], decisions: readonly ReviewDecision[]): string[] {
  const problems: string[] = [];
  const byId = new Map(disagreements.map((d) => [d.id, d]));
  const seen = new Set<string>();
  const known = disagreements.length ? disagreements.map((d) => d.id).join(', ') : 'none';
  decisions.forEach((decision, i) => {
    const disagreement = byId.get(decision.id);
    if (!disagreement) {
      problems.push(`decision ${i + 1}: there is no disagreement "${decision.id}" (known: ${known})`);
      return;
    }
    if (seen.has(decision.id)) problems.push(`decision ${i + 1}: "${decision.id}" is decided twice`);
    seen.add(decision.id);
    if (!('document' in decision.choose)) return;
    const { document } = decision.choose;
    const stating = [...new Set(disagreement.values.map((v) => v.document))];
    if (!stating.includes(document)) {
      problems.push(
        `decision ${i + 1}: document ${document} states no value for "${disagreement.topic}" (${decision.id}); documents that do: ${stating.join(', ')}`,
      );
    }
  });
  return problems;
}
