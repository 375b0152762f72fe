import { splitClausesOnce } from '../../../documents/clauses';
import { SourceIndex } from '../../../documents/provenance';
import { distinctionsOf, REPEAT_SIMILARITY } from '../../../documents/repeats';
import { alignmentOf } from '../sections';

/**
 * Documents' clauses aligned into groups that state the same term, in a reading order taken from the
 * documents (issue 38). The documents' sections are aligned first (`alignmentOf`, decision 36); within
 * a section a clause joins the group of the most similar clause another document has there, and the
 * clauses left over are grouped by their rank in their section (the NDAs state their terms in the
 * same order in different words, which word overlap alone does not see). Groups are read section by
 * section, in the order of the section's fullest version. Pure and deterministic.
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
  /** The aligned section's title. */
  heading: string;
  /**
   * The members say the same thing (one member, or one wording, or rewordings at the repeat bar with
   * the same numbers and short words): the merge keeps the first one, and no model is asked.
   */
  same: boolean;
}

/** The documents' clauses aligned: the title (the first document's heading before its first clause) and the groups in reading order. */
export interface ClauseAlignment {
  title?: string;
  groups: ClauseGroup[];
}

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether every member says what the first says, so the first stands for all. */
export function saySame(members: readonly GroupMember[]): boolean {
  const [first, ...rest] = members;
  if (!first || !rest.length) return true;
  const index = new SourceIndex([first.text]);
  return rest.every(
    (m) =>
      normalized(m.text) === normalized(first.text) ||
      ((index.match(m.text)[0]?.similarity ?? 0) >= REPEAT_SIMILARITY && distinctionsOf(m.text) === distinctionsOf(first.text)),
  );
}

/** One section's clauses (per document, in order) grouped: by similarity first, by rank for the rest. */
function groupSection(perDocument: GroupMember[][]): GroupMember[][] {
  const fullest = perDocument.reduce((best, c, d) => (c.length > perDocument[best]!.length ? d : best), 0);
  const groups: GroupMember[][] = perDocument[fullest]!.map((m) => [m]);
  const index = new SourceIndex(groups.map((g) => g[0]!.text));
  perDocument.forEach((clauses, d) => {
    if (d === fullest) return;
    const taken = new Set<number>();
    const left: GroupMember[] = [];
    for (const m of clauses) {
      const hit = index.match(m.text).find((h) => h.similarity >= GROUP_SIMILARITY && !taken.has(h.document));
      if (hit) {
        taken.add(hit.document);
        groups[hit.document]!.push(m);
      } else left.push(m);
    }
    // The rest by rank among the groups this document has not joined; past them, groups of their own.
    const open = groups.map((_, g) => g).filter((g) => !taken.has(g));
    left.forEach((m, i) => {
      if (i < open.length) groups[open[i]!]!.push(m);
      else groups.push([m]);
    });
  });
  return groups.map((g) => g.sort((a, b) => a.document - b.document));
}

/** Aligns the documents' clauses into groups (see the module's comment). */
export function alignClauses(documents: readonly string[]): ClauseAlignment {
  const splits = documents.map((d) => splitClausesOnce(d));
  const { sections } = alignmentOf(documents);
  const groups: ClauseGroup[] = [];
  for (const section of sections) {
    const perDocument = section.spans.map((span, document) =>
      span
        ? splits[document]!.clauses.flatMap((c, clause) =>
            c.start >= span.start && c.start < span.end ? [{ document, clause, text: c.text }] : [],
          )
        : [],
    );
    if (!perDocument.some((c) => c.length)) continue;
    for (const members of groupSection(perDocument)) groups.push({ members, heading: section.title, same: saySame(members) });
  }
  const first = splits[0];
  const titleLine = first?.headings.find((h) => !first.clauses.length || h.start < first.clauses[0]!.start);
  return { ...(titleLine ? { title: titleLine.title } : {}), groups };
}
