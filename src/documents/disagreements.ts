import { traceProvenance } from './provenance';
import { extractTerms, isSuggestion, PLACEHOLDER, type Term } from './terms';
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

/** A term as the wire carries it: its value, without what grouping it needs. */
export function termValue(term: Term): TermValue {
  const { text, normalized, start, end, section, page } = term;
  return { text, normalized, start, end, ...(section !== undefined ? { section } : {}), ...(page !== undefined ? { page } : {}) };
}

/**
 * A topic under which one document states more distinct values than this is too coarse to compare
 * ("Record retention period" over a long contract's dozen record-keeping clauses): its terms are
 * compared clause by clause instead, by their clauses' wording.
 */
const MAX_VALUES_PER_TOPIC = 3;

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

/** Two sets with the same members. */
export const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

/** The topic groups in which some document states more than `MAX_VALUES_PER_TOPIC` distinct values. */
function coarseGroups(sourceTerms: readonly Term[][]): Set<string> {
  const coarse = new Set<string>();
  for (const terms of sourceTerms) {
    const values = new Map<string, Set<string>>();
    for (const t of terms) {
      if (t.kind === 'party' || t.topicFrom === 'wording') continue;
      const set = values.get(t.group) ?? new Set();
      set.add(t.normalized);
      values.set(t.group, set);
      if (set.size > MAX_VALUES_PER_TOPIC) coarse.add(t.group);
    }
  }
  return coarse;
}

/**
 * Whether the documents' terms of one group disagree. Blanks ("[Date]", "[State]") state nothing:
 * the documents that state or suggest values (`[e.g., "two years"]`) must state the same set of
 * them, and a document with blanks only disagrees with one that states a value outright ("[State]"
 * against "New York"), not with one that merely suggests it ("[Date]" against "[Date, e.g.,
 * "August 15, 2023"]": both leave it to be filled in).
 */
function disagree(byDocument: readonly (readonly Term[])[]): boolean {
  const stated = byDocument.map((terms) => new Set(terms.filter((t) => t.normalized !== PLACEHOLDER).map((t) => t.normalized)));
  const withValues = stated.filter((s) => s.size > 0);
  if (withValues.some((s) => !sameSet(s, withValues[0]!))) return true;
  const blankOnly = stated.some((s) => s.size === 0);
  return blankOnly && byDocument.some((terms) => terms.some((t) => t.normalized !== PLACEHOLDER && !isSuggestion(t)));
}

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
    return match && term.topicFrom !== 'clause'
      ? {
          ...term,
          topic: match.topic,
          group: match.group,
          topicFrom: match.topicFrom,
          wording: match.wording,
          wordingTopic: match.wordingTopic,
        }
      : term;
  });
}

/**
 * The disagreements between the sources, in order of first appearance: per (kind, topic) group,
 * the documents' sets of normalised values; a group is a disagreement when two or more documents
 * state it and their values differ (see `disagree`: blanks such as "[Date]" and "[Effective Date]"
 * are alike, and disagree only with a value stated outright, "[State]" against "New York").
 * `kept` lists the merge's terms of the group (empty when the merge dropped it).
 */
export function findDisagreements(
  documents: readonly string[],
  merged: string,
  sources?: readonly SourceInfo[],
  options: DisagreementOptions = {},
): Disagreement[] {
  const sourceTerms = documents.map((text, d) => extractTerms(text, { pageStarts: sources?.[d]?.pageStarts ?? [] }));
  const coarse = coarseGroups(sourceTerms);
  const keyOf = (t: Term) => (coarse.has(t.group) ? t.wording : t.group);
  const groups = new Map<string, Group>();
  sourceTerms.forEach((terms, document) => {
    for (const term of terms) {
      const key = keyOf(term);
      let group = groups.get(key);
      if (!group) {
        group = { kind: term.kind, topic: coarse.has(term.group) ? term.wordingTopic : term.topic, byDocument: new Map() };
        groups.set(key, group);
      }
      const list = group.byDocument.get(document) ?? [];
      list.push(term);
      group.byDocument.set(document, list);
    }
  });
  const clauses = options.provenance ?? traceProvenance(merged, documents, sources).clauses;
  const kept = new Map<string, Term[]>();
  for (const term of mergedTerms(merged, clauses, sourceTerms)) {
    const list = kept.get(keyOf(term)) ?? [];
    list.push(term);
    kept.set(keyOf(term), list);
  }
  const out: Disagreement[] = [];
  for (const [key, group] of groups) {
    if (group.byDocument.size < 2) continue;
    if (!disagree([...group.byDocument.values()])) continue;
    const values = [...group.byDocument.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([document, terms]) => distinctValues(terms).map((t) => ({ document, value: termValue(t) })));
    out.push({
      id: `d${out.length + 1}`,
      kind: group.kind,
      topic: group.topic,
      values,
      kept: (kept.get(key) ?? []).map(termValue),
    });
  }
  return out;
}
