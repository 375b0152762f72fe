import { splitClausesOnce } from './clauses';
import { documentName } from './names';
import { SourceIndex } from './provenance';
import type { Disagreement, SourceRetention } from './types';

/**
 * What of each source a merged text keeps: the other half of checking a merge. Provenance asks of
 * every merged clause where it came from; this asks of every source clause whether the merge says
 * it: a merged clause close to it at the bar a merged clause needs to count as traced, or holding it
 * whole inside a longer sentence (`SourceIndex.says`, decision 99). A "merge" that restates one
 * document and drops the others traces cleanly; here it keeps 0 of the others' clauses.
 * Pure and deterministic.
 */
export function measureRetention(merged: string, documents: readonly string[], disagreements?: readonly Disagreement[]): SourceRetention[] {
  // Each merged clause its own document: a source clause is kept when some merged clause says it.
  const index = new SourceIndex(splitClausesOnce(merged).clauses.map((u) => u.text));
  return documents.map((text, document) => {
    const units = splitClausesOnce(text).clauses;
    const lost = units.filter((u) => !index.says(u.text));
    const out: SourceRetention = { document, clauses: units.length, kept: units.length - lost.length };
    if (!disagreements) return out;
    // Set aside, not lost: a clause stating a value of a disagreement the merge chose otherwise (decision 99).
    const values = disagreements.flatMap((d) => d.values.filter((v) => v.document === document).map((v) => v.value));
    return { ...out, setAside: lost.filter((u) => values.some((v) => v.start >= u.start && v.end <= u.end)).length };
  });
}

/** All sources together: their clauses, and how many of them the merge keeps. */
export function retentionTotals(retention: readonly SourceRetention[]): { clauses: number; kept: number; setAside: number } {
  const sum = (of: (r: SourceRetention) => number) => retention.reduce((n, r) => n + of(r), 0);
  return { clauses: sum((r) => r.clauses), kept: sum((r) => r.kept), setAside: sum((r) => r.setAside ?? 0) };
}

/** Retention in words: the total kept, those set aside for the disagreements, and the sources kept least (`names` by document index), e.g. for a report line. */
export function retentionLine(retention: readonly SourceRetention[], names: readonly string[], least = 3): string {
  const { clauses, kept, setAside } = retentionTotals(retention);
  const share = clauses ? Math.round((100 * kept) / clauses) : 100;
  const aside = setAside ? `; ${setAside.toLocaleString('en')} set aside for the disagreements` : '';
  const lowest = [...retention]
    .filter((r) => r.kept < r.clauses)
    .sort((a, b) => a.kept / a.clauses - b.kept / b.clauses || a.document - b.document)
    .slice(0, least)
    .map((r) => `${documentName(names, r.document)} ${r.kept}/${r.clauses}`);
  return `${kept.toLocaleString('en')} of ${clauses.toLocaleString('en')} source clauses (${share}%)${aside}${lowest.length ? `; kept least: ${lowest.join(', ')}` : ''}`;
}
