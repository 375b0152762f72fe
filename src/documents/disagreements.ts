import { traceProvenance } from './provenance';
import { extractTerms, type Term } from './terms';
import type { Disagreement, MergedClause, SourceInfo, TermValue } from './types';

/**
 * Where the sources disagree: their terms grouped by kind and topic, and every group in which two
 * or more documents state different normalised values, with what the merge kept. Pure and
 * deterministic; ids `d1`, `d2`, ... follow the groups' first appearance in the sources.
 */

/** Options of `findDisagreements`. */
export interface DisagreementOptions {
  /** The merge's provenance, when already traced (a review traces it once for both). */
  provenance?: readonly MergedClause[];
}

/** A term as the wire carries it: its value without kind, topic and group. */
export function valueOf(term: Term): TermValue {
  const { kind: _kind, topic: _topic, group: _group, topicFrom: _from, ...value } = term;
  return value;
}

interface Group {
  kind: Term['kind'];
  topic: string;
  /** Per document, its terms in this group, in text order. */
  byDocument: Map<number, Term[]>;
}

/**
 * Each document's distinct values of a group, first occurrence each. Parties count by their words
 * too: "[Your Company Name]" and "[Recipient Name]" are both placeholders but two parties.
 */
function distinctValues(terms: readonly Term[]): Term[] {
  const seen = new Set<string>();
  const key = (t: Term) => (t.kind === 'party' ? `${t.normalized}\u0000${t.text.toLowerCase()}` : t.normalized);
  return terms.filter((t) => !seen.has(key(t)) && seen.add(key(t)));
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((x) => b.has(x));

/**
 * The merge's terms, each put in its sources' group where its clause came from a source stating
 * a term of the same kind there: the merge may drop the heading or the words a source's topic was
 * read from, while the clause still says the same.
 */
function mergedTerms(merged: string, clauses: readonly MergedClause[], sourceTerms: readonly Term[][]): Term[] {
  return extractTerms(merged).map((term) => {
    const clause = clauses.find((c) => c.start <= term.start && term.end <= c.end);
    const source = clause?.supported ? clause.sources[0] : undefined;
    if (!source) return term;
    const there = (sourceTerms[source.document] ?? []).filter(
      (t) => t.kind === term.kind && source.start <= t.start && t.end <= source.end,
    );
    const match = there.find((t) => t.normalized === term.normalized) ?? there[0];
    // A topic the merged clause states in its own words stands; one read from a heading or the wording is its source's.
    return match && term.topicFrom !== 'clause' ? { ...term, topic: match.topic, group: match.group, topicFrom: match.topicFrom } : term;
  });
}

/**
 * The disagreements between the sources, in order of first appearance: per (kind, topic) group,
 * the documents' sets of normalised values; a group is a disagreement when two or more documents
 * state it and their sets differ. Placeholders without an example normalise alike ("[Date]" =
 * "[Effective Date]"), so they disagree only with a stated value ("[State]" vs "New York").
 * `kept` lists the merge's terms of the group (empty when the merge dropped it).
 */
export function findDisagreements(
  documents: readonly string[],
  merged: string,
  sources?: readonly SourceInfo[],
  options: DisagreementOptions = {},
): Disagreement[] {
  const sourceTerms = documents.map((text, d) => extractTerms(text, { pageStarts: sources?.[d]?.pageStarts ?? [] }));
  const groups = new Map<string, Group>();
  sourceTerms.forEach((terms, document) => {
    for (const term of terms) {
      let group = groups.get(term.group);
      if (!group) {
        group = { kind: term.kind, topic: term.topic, byDocument: new Map() };
        groups.set(term.group, group);
      }
      const list = group.byDocument.get(document) ?? [];
      list.push(term);
      group.byDocument.set(document, list);
    }
  });
  const clauses = options.provenance ?? traceProvenance(merged, documents, sources).clauses;
  const kept = new Map<string, Term[]>();
  for (const term of mergedTerms(merged, clauses, sourceTerms)) {
    const list = kept.get(term.group) ?? [];
    list.push(term);
    kept.set(term.group, list);
  }
  const out: Disagreement[] = [];
  for (const [key, group] of groups) {
    if (group.byDocument.size < 2) continue;
    const sets = [...group.byDocument.values()].map((terms) => new Set(terms.map((t) => t.normalized)));
    if (sets.every((s) => sameSet(s, sets[0]!))) continue;
    const values = [...group.byDocument.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([document, terms]) => distinctValues(terms).map((t) => ({ document, value: valueOf(t) })));
    out.push({
      id: `d${out.length + 1}`,
      kind: group.kind,
      topic: group.topic,
      values,
      kept: (kept.get(key) ?? []).map(valueOf),
    });
  }
  return out;
}
