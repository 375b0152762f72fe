import { splitClausesOnce } from './clauses';
import { MIN_COVERED_WORDS, SourceIndex, wordCount } from './provenance';

/**
 * Clauses of a merged text that say again what an earlier clause of it says: the redundancy a merge
 * should have removed (a model that strings the documents together instead of merging them repeats
 * whatever they share). Pure and deterministic.
 */

/**
 * Two clauses of one text are the same statement from this similarity on (the provenance's cosine
 * over words and bigrams). Measured on generated contracts, whose clauses are built from templates
 * that differ in a few words: 19 of 210 clauses have an earlier one at 0.5 or more, 6 at 0.6, none
 * at 0.7. With the numbers and short words compared too, `findRepeats` finds 110 of 210 in the same
 * contracts concatenated, and 75 of 1,785 in the paper's NDAs concatenated (40 samples).
 */
export const REPEAT_SIMILARITY = 0.7;

/** Numbers and one- or two-character words ("30", "B", "(a)"): the similarity ignores them, and they tell clauses apart. */
const DISTINCTIONS = /\b(?:\d+(?:[.,]\d+)*|[A-Za-z]{1,2})\b/g;
export const distinctionsOf = (text: string) => [...new Set(text.match(DISTINCTIONS) ?? [])].sort().join(' ');

/**
 * A clause an earlier one holds this much of (`SourceIndex.coverage`) says nothing new when its
 * numbers and short words are among the earlier one's too: "By signing below, the parties agree to
 * these terms." after a longer signature clause that begins with it (decision 99).
 */
export const REPEAT_COVERAGE = 0.9;

/** A text's clauses, indexed each as its own document, with their distinctions. */
function clausesOf(text: string) {
  const units = splitClausesOnce(text).clauses;
  return { units, index: new SourceIndex(units.map((u) => u.text)), distinctions: units.map((u) => distinctionsOf(u.text)) };
}

/** The other clauses that say clause `at` already: alike in words with the same distinctions, or holding it with its distinctions. */
function sayersOf({ units, index, distinctions }: ReturnType<typeof clausesOf>, at: number): Set<number> {
  const text = units[at]!.text;
  const mine = distinctions[at]!.split(' ').filter(Boolean);
  // Held whole counts only for a clause of a few words (as for what a merge keeps).
  const share = wordCount(text) >= MIN_COVERED_WORDS ? REPEAT_COVERAGE : Number.POSITIVE_INFINITY;
  const out = new Set<number>();
  for (const m of index.alike(text, { similarity: REPEAT_SIMILARITY, share })) {
    if (m.document === at) continue;
    const theirs = distinctions[m.document]!;
    if (m.similarity >= REPEAT_SIMILARITY && theirs === distinctions[at]) out.add(m.document);
    else if (m.share >= share && mine.every((d) => theirs.split(' ').includes(d))) out.add(m.document);
  }
  return out;
}

/** For each clause of `merged` (as `splitClausesOnce` cuts it), the earliest clause it repeats, if any. */
export function findRepeats(merged: string): (number | undefined)[] {
  const clauses = clausesOf(merged);
  return clauses.units.map((_, at) => {
    const earlier = [...sayersOf(clauses, at)].filter((j) => j < at);
    return earlier.length ? Math.min(...earlier) : undefined;
  });
}

/**
 * The text without the clauses another of its clauses says already (as `findRepeats` finds them,
 * either way round): the longest clauses stay, so a clause holding a shorter one keeps it said, and
 * of clauses alike the first stays. For a merge put together from several sources' wordings.
 */
export function withoutRepeats(text: string): { text: string; dropped: number } {
  const clauses = clausesOf(text);
  const { units } = clauses;
  const order = units.map((_, i) => i).sort((a, b) => units[b]!.text.length - units[a]!.text.length || a - b);
  const kept = new Set<number>();
  const dropped: number[] = [];
  for (const at of order) {
    if ([...sayersOf(clauses, at)].some((j) => kept.has(j))) dropped.push(at);
    else kept.add(at);
  }
  if (!dropped.length) return { text, dropped: 0 };
  let out = text;
  for (const at of dropped.sort((a, b) => b - a)) out = out.slice(0, units[at]!.start) + out.slice(units[at]!.end);
  const tidy = out
    .split('\n')
    .map((line) => line.replace(/[ \t]{2,}/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { text: tidy, dropped: dropped.length };
}
