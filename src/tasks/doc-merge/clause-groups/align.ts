import { clauseKind, kindLabel } from '../../../documents/clause-kinds';
import { splitClausesOnce } from '../../../documents/clauses';
import { SourceIndex } from '../../../documents/provenance';
import { distinctionsOf, REPEAT_SIMILARITY } from '../../../documents/repeats';
import { alignmentOf } from '../sections';
import { type KeptValues, keptValues } from './values';

/**
 * Documents' clauses aligned into groups that state the same term, in a reading order taken from the
 * documents (issue 38, decision 91). A clause joins the group of its most similar clause in another
 * document (the provenance's cosine), wherever it stands; the clauses left alone are paired by their
 * rank within the documents' aligned sections (decision 36), since the NDAs state their terms in the
 * same order in other words, which word overlap alone does not see. Groups are read section by
 * section, by where their clauses stand in it. Pure and deterministic.
 */

/** From this similarity on (the provenance's cosine), clauses of two documents state the same term. */
export const GROUP_SIMILARITY = 0.5;

/** One source clause in a group. */
export interface GroupMember {
  document: number;
  /** Index among the document's clauses (`splitClausesOnce`). */
  clause: number;
  text: string;
}

/** Clauses of several documents that state one term; at most one per document, in document order. */
export interface ClauseGroup {
  members: GroupMember[];
  /** What the merge puts it under: its kind's label, else the aligned section's title. */
  heading: string;
  /** What its clauses are about ("Governing law"), when their words or headings say: what the model is told. */
  kind?: string;
  /**
   * The members say the same thing (one member, or one wording, or rewordings at the repeat bar with
   * the same numbers and short words): the merge keeps the first one, and no model is asked.
   */
  same: boolean;
  /** The members state different values: whose the merge states and the others it must not (`keptValues`). */
  values?: KeptValues;
}

/** The documents' clauses aligned: the title (the first document's heading before its first clause) and the groups in reading order. */
export interface ClauseAlignment {
  title?: string;
  groups: ClauseGroup[];
}

export const normalized = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether every member says what the first says, so the first stands for all. */
export function saySame(members: readonly GroupMember[]): boolean {
  const [first, ...rest] = members;
  if (!first || !rest.length) return true;
  const index = new SourceIndex([first.text]);
  const alike = rest.every(
    (m) =>
      normalized(m.text) === normalized(first.text) ||
      ((index.match(m.text)[0]?.similarity ?? 0) >= REPEAT_SIMILARITY && distinctionsOf(m.text) === distinctionsOf(first.text)),
  );
  // "The laws of Ireland" and "the laws of France" read alike and differ in what matters.
  return alike && (rest.every((m) => normalized(m.text) === normalized(first.text)) || !keptValues(members.map((m) => m.text)));
}

interface Placed extends GroupMember {
  /** What the clause is about (`clauseKind`), when its words or heading say. */
  kind?: string;
  /** Where the clause stands in its document, 0 to 1. */
  rank: number;
  section: number;
}

/** The kind of a group: its first member's that has one. */
const kindOfGroup = (g: readonly Placed[]) => g.find((m) => m.kind)?.kind;

/**
 * Groups by similarity over all the documents (a clause said word for word may stand in sections the
 * alignment did not pair), each clause joining the group of its most similar earlier clause of the
 * same kind (or of none) that has no clause of its document yet. Then groups of one kind without a
 * document in common join (versions state a kind's terms in other words and places); clauses still
 * alone are paired by rank within their section where each version has as many.
 */
function groupClauses(units: readonly Placed[]): Placed[][] {
  const index = new SourceIndex(units.map((u) => u.text));
  const groupOf = new Int32Array(units.length).fill(-1);
  const groups: Placed[][] = [];
  const join = (at: number, g: number) => {
    groupOf[at] = g;
    groups[g]!.push(units[at]!);
  };
  // A clause said (nearly) word for word is one term whatever kind its heading gave it elsewhere.
  const fits = (unit: Placed, g: readonly Placed[], similarity: number) => {
    const kind = kindOfGroup(g);
    return !g.some((x) => x.document === unit.document) && (similarity >= REPEAT_SIMILARITY || !unit.kind || !kind || unit.kind === kind);
  };
  units.forEach((unit, at) => {
    const best = index
      .matchAll(unit.text, GROUP_SIMILARITY)
      .filter((m) => m.document < at && groupOf[m.document]! >= 0 && fits(unit, groups[groupOf[m.document]!]!, m.similarity))
      .sort((a, b) => b.similarity - a.similarity || a.document - b.document)[0];
    if (best) join(at, groupOf[best.document]!);
    else join(at, groups.push([]) - 1);
  });
  const absorbed = new Set<Placed[]>();
  const absorb = (into: Placed[], g: Placed[]) => {
    into.push(...g);
    absorbed.add(g);
  };
  // Groups of one kind with no document in common are one term stated in other words: the fuller first,
  // then by where they stand in their documents, each joins the first earlier group it fits.
  const byKind = new Map<string, Placed[][]>();
  for (const g of groups) {
    const kind = kindOfGroup(g);
    if (kind) byKind.set(kind, [...(byKind.get(kind) ?? []), g]);
  }
  const rank = (g: readonly Placed[]) => Math.min(...g.map((m) => m.rank));
  for (const bucket of byKind.values()) {
    const kept: Placed[][] = [];
    for (const g of [...bucket].sort((a, b) => b.length - a.length || rank(a) - rank(b))) {
      const into = kept.find((k) => !k.some((m) => g.some((x) => x.document === m.document)));
      if (into) absorb(into, g);
      else kept.push(g);
    }
  }
  // Clauses still alone: where every version of an aligned section has as many of them, paired by rank
  // (one confidentiality clause in each version's "Confidentiality", its kind read differently).
  const lone = new Map<number, Placed[][]>();
  for (const g of groups) if (g.length === 1 && !absorbed.has(g)) lone.set(g[0]!.section, [...(lone.get(g[0]!.section) ?? []), g]);
  for (const bucket of lone.values()) {
    const perDocument = new Map<number, Placed[][]>();
    for (const g of bucket) perDocument.set(g[0]!.document, [...(perDocument.get(g[0]!.document) ?? []), g]);
    const [anchor, ...others] = [...perDocument.values()].sort((a, b) => a[0]![0]!.document - b[0]![0]!.document);
    if (!others.length || others.some((o) => o.length !== anchor!.length)) continue;
    for (const other of others)
      other.forEach((g, i) => {
        absorb(anchor![i]!, g);
      });
  }
  return groups.filter((g) => !absorbed.has(g)).map((g) => g.sort((a, b) => a.document - b.document));
}

/**
 * Where a group's members disagree on values, the merge states those of one member (`keptValues`):
 * the base document's, the one whose member is most often its group's majority (the earliest on a
 * tie), in every group it is in, so the merge's terms come from one version where they can; in a
 * group without it, the next such document's.
 */
function settleValues(groups: ClauseGroup[]): void {
  const majority = groups.map((g) => (g.same ? undefined : keptValues(g.members.map((m) => m.text))));
  const votes = new Map<number, number>();
  majority.forEach((v, i) => {
    if (v) votes.set(groups[i]!.members[v.base]!.document, (votes.get(groups[i]!.members[v.base]!.document) ?? 0) + 1);
  });
  const rank = (document: number) => -(votes.get(document) ?? 0) * 1e6 + document;
  groups.forEach((g, i) => {
    if (!majority[i]) return;
    const preferred = g.members.reduce((best, m, at) => (rank(m.document) < rank(g.members[best]!.document) ? at : best), 0);
    g.values = keptValues(
      g.members.map((m) => m.text),
      preferred,
    );
  });
}

/** Aligns the documents' clauses into groups (see the module's comment). */
export function alignClauses(documents: readonly string[]): ClauseAlignment {
  const splits = documents.map((d) => splitClausesOnce(d));
  const { sections } = alignmentOf(documents);
  const units: Placed[] = [];
  sections.forEach((aligned, section) => {
    aligned.spans.forEach((span, document) => {
      if (!span) return;
      const inside = splits[document]!.clauses.flatMap((c, clause) => (c.start >= span.start && c.start < span.end ? [{ c, clause }] : []));
      inside.forEach(({ c, clause }) => {
        const kind = clauseKind(c.text, c.heading)?.id;
        units.push({
          document,
          clause,
          text: c.text,
          ...(kind ? { kind } : {}),
          rank: clause / splits[document]!.clauses.length,
          section,
        });
      });
    });
  });
  // A group stands where its members stand in their documents, on average; under its kind's label (else
  // its members' section's title), each heading once: the groups under one heading follow each other
  // from where the first of them stands. Versions order their terms alike but not the same, and the
  // sections found in them differ; their kinds do not.
  const sectionOf = (g: Placed[]) => {
    const counts = new Map<number, number>();
    for (const m of g) counts.set(m.section, (counts.get(m.section) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
  };
  const placed = groupClauses(units).map((g) => {
    const kind = kindOfGroup(g);
    const label = kind && kindLabel(kind);
    return { g, label, heading: label || sections[sectionOf(g)]!.title, at: g.reduce((n, m) => n + m.rank, 0) / g.length };
  });
  const headingAt = new Map<string, number>();
  for (const p of placed) headingAt.set(p.heading, Math.min(headingAt.get(p.heading) ?? 1, p.at));
  const groups = placed
    .sort((a, b) => headingAt.get(a.heading)! - headingAt.get(b.heading)! || a.heading.localeCompare(b.heading) || a.at - b.at)
    .map(({ g, label, heading }): ClauseGroup => {
      const members = g.map(({ document, clause, text }) => ({ document, clause, text }));
      return { members, heading, ...(label ? { kind: label } : {}), same: saySame(members) };
    });
  settleValues(groups);
  const first = splits[0];
  const titleLine = first?.headings.find((h) => !first.clauses.length || h.start < first.clauses[0]!.start);
  return { ...(titleLine ? { title: titleLine.title } : {}), groups };
}
