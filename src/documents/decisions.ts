import { titleKey, titleSimilarity } from '../tasks/doc-merge/headings';
import { checkDecisions } from './check-decisions';
import { splitClauses } from './clauses';
import { normalizeLaw } from './terms';
import type { Disagreement, ReviewDecision, TermValue } from './types';

export { checkDecisions };

/**
 * A person's decisions on the sources' disagreements, applied to the merged text: each decided
 * disagreement then states the chosen value (a source's or the person's own words). Pure.
 */

/** Decisions that cannot be applied: unknown ids, documents out of range or without a value; `problems` says which. */
export class DecisionError extends Error {
  override readonly name = 'DecisionError';
  constructor(readonly problems: string[]) {
    super(`the decisions cannot be applied: ${problems.join('; ')}`);
  }
}

/** Titles of a heading that match a topic this much (Dice on word stems) take an added sentence. */
const SAME_HEADING = 0.5;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The chosen values of a decision, in the order the document states them. */
function chosenValues(disagreement: Disagreement, decision: ReviewDecision): { text: string; normalized?: string; section?: string }[] {
  if ('text' in decision.choose) return [{ text: decision.choose.text }];
  const { document } = decision.choose;
  return disagreement.values.filter((v) => v.document === document).map((v) => v.value);
}

/** The words that replace a kept value: a law named by an adjective ("English") goes in by its name where a name stood. */
function replacement(kind: Disagreement['kind'], kept: TermValue, chosen: { text: string; normalized?: string }): string {
  if (kind !== 'governingLaw' || chosen.normalized === undefined) return chosen.text;
  const adjective = (text: string) => /^[A-Za-z]+$/.test(text) && normalizeLaw(text) !== text;
  return adjective(chosen.text) && !adjective(kept.text) ? chosen.normalized : chosen.text;
}

/** A sentence stating a value the merge dropped, worded so that term extraction reads it back under the same topic. */
function statement(disagreement: Disagreement, values: readonly { text: string; normalized?: string }[]): string {
  const texts = values.map((v) => v.text);
  const list = texts.length > 1 ? `${texts.slice(0, -1).join(', ')} and ${texts.at(-1)}` : (texts[0] ?? '');
  switch (disagreement.kind) {
    case 'governingLaw': {
      const v = values[0]!;
      const name = v.normalized !== undefined && !v.text.startsWith('[') ? v.normalized : v.text;
      return `${capitalised(disagreement.topic)}: this agreement is governed by the laws of ${name}.`;
    }
    case 'noticePeriod':
      return `${capitalised(disagreement.topic)}: ${list} written notice.`;
    case 'party':
      return `${capitalised(disagreement.topic)}: this agreement is made between ${list}.`;
    default:
      return `${capitalised(disagreement.topic)}: ${list}.`;
  }
}

interface Edit {
  start: number;
  end: number;
  text: string;
  /** The decision's place in the list: sentences added at one place keep the decisions' order. */
  order: number;
}

/**
 * Where a sentence about a dropped term goes: after the last clause under the merged heading most
 * like the chosen source's section or the topic; parties after the title; else at the end.
 */
function insertionPoint(merged: string, disagreement: Disagreement, section: string | undefined): { at: number; prefix: string } {
  const { clauses, headings } = splitClauses(merged);
  if (disagreement.kind === 'party') {
    const title = headings[0];
    return title && title.start < (clauses[0]?.start ?? merged.length) ? { at: title.end, prefix: '\n\n' } : { at: 0, prefix: '' };
  }
  const wanted = [disagreement.topic, section].filter((t): t is string => !!t).map(titleKey);
  const score = (title: string) => Math.max(...wanted.map((w) => titleSimilarity(w, titleKey(title)) ?? 0));
  const lineEnd = (at: number) => (merged.indexOf('\n', at) === -1 ? merged.length : merged.indexOf('\n', at));
  let best: { at: number; prefix: string; score: number } | undefined;
  const consider = (candidate: { at: number; prefix: string; score: number }) => {
    if (candidate.score >= SAME_HEADING && (!best || candidate.score >= best.score)) best = candidate;
  };
  // A heading line: after the last clause of its section, or right under it when the merge left it empty.
  headings.forEach((heading, i) => {
    const end = headings[i + 1]?.start ?? merged.length;
    const last = clauses.filter((c) => c.start >= heading.end && c.end <= end).at(-1);
    consider(
      last
        ? { at: lineEnd(last.end), prefix: ' ', score: score(heading.title) }
        : { at: heading.end, prefix: '\n\n', score: score(heading.title) },
    );
  });
  // A run-in title ("Governing Law: ..."): after that clause.
  for (const clause of clauses) if (clause.heading) consider({ at: lineEnd(clause.end), prefix: ' ', score: score(clause.heading) });
  if (best) return { at: best.at, prefix: best.prefix };
  return { at: merged.trimEnd().length, prefix: '\n\n' };
}

/**
 * The merged text with each decision applied: every kept value of the decided disagreement is
 * replaced by the chosen value (a source's as that source wrote it, or the person's text); where
 * the merge kept several values, the first distinct kept value gets the first chosen one, and so
 * on. Where the merge dropped the term, a sentence stating it is added under the matching heading
 * or at the end. Throws `DecisionError` when `checkDecisions` finds problems, or when the
 * disagreements were not found on this text.
 */
export function applyDecisions(
  merged: string,
  disagreements: readonly Disagreement[],
  decisions: readonly ReviewDecision[],
  documents: readonly string[],
): string {
  const problems = checkDecisions(disagreements, decisions);
  decisions.forEach((decision, i) => {
    if ('document' in decision.choose && decision.choose.document >= documents.length)
      problems.push(`decision ${i + 1}: document ${decision.choose.document} is out of range (${documents.length} documents)`);
  });
  if (problems.length) throw new DecisionError([...new Set(problems)]);
  const byId = new Map(disagreements.map((d) => [d.id, d]));
  const edits: Edit[] = [];
  for (const [order, decision] of decisions.entries()) {
    const disagreement = byId.get(decision.id)!;
    const chosen = chosenValues(disagreement, decision);
    if (disagreement.kept.length === 0) {
      const { choose } = decision;
      const section = 'document' in choose ? disagreement.values.find((v) => v.document === choose.document)?.value.section : undefined;
      const { at, prefix } = insertionPoint(merged, disagreement, section);
      edits.push({ start: at, end: at, text: `${prefix}${statement(disagreement, chosen)}${at === 0 ? '\n\n' : ''}`, order });
      continue;
    }
    const distinct: string[] = [];
    for (const kept of disagreement.kept) {
      if (merged.slice(kept.start, kept.end) !== kept.text) {
        throw new DecisionError([
          `${decision.id}: the merged text does not say "${kept.text}" at ${kept.start}; review the current text again`,
        ]);
      }
      if (!distinct.includes(kept.text)) distinct.push(kept.text);
      const value = chosen[Math.min(distinct.indexOf(kept.text), chosen.length - 1)]!;
      edits.push({ start: kept.start, end: kept.end, text: replacement(disagreement.kind, kept, value), order });
    }
  }
  // Applied from the end, so earlier offsets stay valid; two decisions never touch the same span (a term is in one group).
  edits.sort((a, b) => b.start - a.start || b.end - a.end || b.order - a.order);
  let out = merged;
  let limit = Number.POSITIVE_INFINITY;
  for (const edit of edits) {
    if (edit.end > limit) continue;
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    limit = edit.start;
  }
  return out;
}
