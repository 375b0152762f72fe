import { splitClausesOnce } from '../../../documents/clauses';
import { sameSet } from '../../../documents/disagreements';
import { extractTerms, PLACEHOLDER } from '../../../documents/terms';

/**
 * Where a group's clauses state different values of one kind (two years / five years, $200,000 /
 * $280,000; a blank and a name), the merge states one of them, not both: the base document's, the
 * one whose values most often are its groups' majority (the first on a tie), so a merge's terms come
 * from one version where they can (decision 97). The others stay in the review's disagreements, where a person may choose
 * them. Pure.
 */

/** Between two sentences of one clause: a full stop or semicolon, then a capital, a bracket or a parenthesis. */
const SENTENCE_END = /(?<=[.;!?])\s+(?=[A-Z[(])/;

/** A value as compared: its kind and normalised form ("duration:P2Y"). */
const keyOf = (kind: string, normalized: string) => `${kind}:${normalized}`;

/**
 * Each kind's stated values in a text; a kind it names by blanks only ("[Recipient Name]") has the
 * blank as its value: a template's blank and another version's name disagree, as the review says.
 * `blanksBesideNames`: blanks count beside named values too.
 */
function valuesOf(text: string, blanksBesideNames = false): Map<string, Set<string>> {
  const byKind = new Map<string, Set<string>>();
  // Sentence by sentence: the terms' reader takes parties from a text's opening only, and a merged
  // clause that restates four party lines names the later parties after its first.
  const terms = splitClausesOnce(text).clauses.flatMap((c) => c.text.split(SENTENCE_END).flatMap((sentence) => extractTerms(sentence)));
  for (const t of terms) {
    const stated = terms.some((o) => o.kind === t.kind && o.normalized !== PLACEHOLDER);
    if (stated && t.normalized === PLACEHOLDER && !blanksBesideNames) continue;
    const set = byKind.get(t.kind) ?? new Set<string>();
    set.add(keyOf(t.kind, t.normalized));
    byKind.set(t.kind, set);
  }
  return byKind;
}

/** What a disagreeing group's merge keeps: the member whose values it states, and the values it must not state. */
export interface KeptValues {
  /** Index among the group's members of the one whose values the merge states. */
  base: number;
  /** Values other members state in a kind where they disagree with the base ("amount:USD 280000"). */
  others: string[];
}

/**
 * The values a group's merge keeps, when its members disagree on any; undefined when they do not.
 * `prefer`: the member to take them from (the room's base document's), instead of the members' majority.
 */
export function keptValues(texts: readonly string[], prefer?: number): KeptValues | undefined {
  const values = texts.map((t) => valuesOf(t));
  const kinds = [...new Set(values.flatMap((v) => [...v.keys()]))];
  const disagreeing = kinds.filter((kind) => {
    const stated = values.flatMap((v) => (v.has(kind) ? [v.get(kind)!] : []));
    return stated.some((s) => !sameSet(s, stated[0]!));
  });
  if (!disagreeing.length) return undefined;
  // The member whose values most others share, kind by kind; the earliest on a tie.
  const agreement = values.map((mine) =>
    disagreeing.reduce((n, kind) => {
      const set = mine.get(kind);
      return set ? n + values.filter((v) => v.get(kind) && sameSet(v.get(kind)!, set)).length : n;
    }, 0),
  );
  const base = prefer ?? agreement.indexOf(Math.max(...agreement));
  const kept = new Set(disagreeing.flatMap((kind) => [...(values[base]!.get(kind) ?? [])]));
  const others = new Set(disagreeing.flatMap((kind) => values.flatMap((v) => [...(v.get(kind) ?? [])])).filter((k) => !kept.has(k)));
  return { base, others: [...others] };
}

/** How many of the values a merge must not state (`KeptValues.others`) a text states. */
export function otherValuesIn(text: string, others: readonly string[]): number {
  if (!others.length) return 0;
  // A merge that names the parties and leaves a blank for them too states both.
  const stated = new Set([...valuesOf(text, true).values()].flatMap((s) => [...s]));
  return others.filter((k) => stated.has(k)).length;
}
