/**
 * Scores of a merged NDA. The paper's score is an LLM judge's two ratings (redundancy and retained
 * information, 0-10 each) combined by a harmonic mean; `combineRatings` does that combination.
 * The rest is a deterministic proxy of the same two ratings at clause level, for tests, offline
 * comparison and the simulated judge: a source clause is retained when some merged clause says
 * it, and a merged clause is redundant when it says only what an earlier merged clause said.
 */

import { findRepeats } from '../../documents/repeats';
import { measureRetention, retentionTotals } from '../../documents/retention';

/** Score of an answer the judge could not read (as in the paper's runs: no information). */
export const UNPARSEABLE_SCORE = 0;

/** Two clauses with at least this word overlap (Dice) say the same thing in other words. */
const SAME_CLAUSE = 0.55;
/** A merged clause holding this share of a source clause's words retains it, even inside a longer sentence. */
const CONTAINS = 0.8;
/** Shorter pieces (headings, signature blocks, placeholders) carry no clause of their own. */
const MIN_WORDS = 3;

const STOPWORDS = new Set(
  'a an and are as at be been by for from has have in is it its of on or that the their these this those to was were which will with any all such shall may must not no nor other than into'.split(
    ' ',
  ),
);

export interface Clause {
  text: string;
  words: ReadonlySet<string>;
}

function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w)));
}

// "1.", "(a)", "iv)", bullets, and clause numbers without a closing dot ("4.2 The Supplier ...").
const LIST_MARKER = /^\s*(?:\(?(?:\d{1,3}(?:\.\d{1,3})*|[a-z]|[ivx]{1,4})[.)]|\d{1,3}(?:\.\d{1,3})+(?=\s)|[-*\u2022])\s+/i;

/** The clauses of a text: its sentences, without list markers, headings and short fragments. */
export function clausesOf(text: string): Clause[] {
  const out: Clause[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trim();
    while (LIST_MARKER.test(line)) line = line.replace(LIST_MARKER, '');
    // A short line without closing punctuation is a heading.
    if (!/[.!?;:]$/.test(line) && line.split(/\s+/).length <= 8) continue;
    for (const sentence of line.split(/(?<=[.!?])\s+(?=[^a-z\s])/)) {
      const words = wordsOf(sentence);
      if (words.size >= MIN_WORDS) out.push({ text: sentence.trim(), words });
    }
  }
  return out;
}

/** How much a shared word says: words found in many source clauses (party names, "confidential") say little. */
export type Weights = (word: string) => number;

/** Inverse document frequency over the sources' clauses; words the sources never use weigh most. */
export function weightsOf(clauses: readonly Clause[]): Weights {
  const df = new Map<string, number>();
  for (const c of clauses) for (const w of c.words) df.set(w, (df.get(w) ?? 0) + 1);
  const n = Math.max(1, clauses.length);
  // Remembered per word: a merge is compared clause by clause with every source clause.
  const known = new Map<string, number>();
  return (word) => {
    let w = known.get(word);
    if (w === undefined) {
      w = Math.log(1 + n / (df.get(word) ?? 1));
      known.set(word, w);
    }
    return w;
  };
}

const UNIFORM: Weights = () => 1;

/** Each clause's word mass, remembered per weighting (the same clauses are weighed again for every pair). */
const masses = new WeakMap<Weights, WeakMap<ReadonlySet<string>, number>>();

function mass(words: ReadonlySet<string>, weight: Weights): number {
  let byWords = masses.get(weight);
  if (!byWords) {
    byWords = new WeakMap();
    masses.set(weight, byWords);
  }
  let m = byWords.get(words);
  if (m === undefined) {
    m = 0;
    for (const w of words) m += weight(w);
    byWords.set(words, m);
  }
  return m;
}

function shared(a: ReadonlySet<string>, b: ReadonlySet<string>, weight: Weights): number {
  let m = 0;
  for (const w of a) if (b.has(w)) m += weight(w);
  return m;
}

/** Weighted Dice coefficient of two clauses' words: 1 = same words, 0 = none in common. */
export function similarity(a: Clause, b: Clause, weight: Weights = UNIFORM): number {
  const total = mass(a.words, weight) + mass(b.words, weight);
  return total === 0 ? 0 : (2 * shared(a.words, b.words, weight)) / total;
}

/** Whether `merged` states the source clause, alone or as part of a longer sentence. */
function states(merged: Clause, source: Clause, weight: Weights): boolean {
  return (
    similarity(merged, source, weight) >= SAME_CLAUSE || shared(source.words, merged.words, weight) / mass(source.words, weight) >= CONTAINS
  );
}

export interface Units {
  /** Clauses grouped with their rewordings; the first of each group is its representative. */
  units: Clause[][];
  weight: Weights;
}

/** The last few sources' units: every step of a run (and every judge call) reads the same documents again. */
const recentUnits = new Map<string, Units>();
const RECENT_UNITS = 16;

/** The distinct pieces of information in the sources, in order of first appearance. */
export function informationUnits(sources: readonly string[]): Units {
  const key = sources.join('\u0000');
  const known = recentUnits.get(key);
  if (known) return known;
  const units = unitsOf(sources);
  if (recentUnits.size >= RECENT_UNITS) recentUnits.delete(recentUnits.keys().next().value!);
  recentUnits.set(key, units);
  return units;
}

function unitsOf(sources: readonly string[]): Units {
  const clauses = sources.flatMap(clausesOf);
  const weight = weightsOf(clauses);
  const units: Clause[][] = [];
  for (const clause of clauses) {
    // Against the representative only: chaining through rewordings would glue distinct clauses together.
    const unit = units.find((u) => similarity(u[0]!, clause, weight) >= SAME_CLAUSE);
    if (unit) unit.push(clause);
    else units.push([clause]);
  }
  return { units, weight };
}

export interface MergeAnalysis {
  units: Clause[][];
  mergedClauses: Clause[];
  /** How many merged clauses state each unit. */
  coverage: number[];
  /** Per merged clause: whether it only repeats what earlier merged clauses said. */
  redundant: boolean[];
}

export function analyseMerge(sources: readonly string[], merged: string, { units, weight } = informationUnits(sources)): MergeAnalysis {
  const mergedClauses = clausesOf(merged);
  const coverage = units.map(() => 0);
  const redundant = mergedClauses.map((clause, j) => {
    const matched = units.flatMap((unit, u) => (unit.some((source) => states(clause, source, weight)) ? [u] : []));
    const repeatsUnits = matched.length > 0 && matched.every((u) => coverage[u]! > 0);
    const repeatsText = mergedClauses.slice(0, j).some((earlier) => similarity(earlier, clause, weight) >= SAME_CLAUSE);
    for (const u of matched) coverage[u]!++;
    return repeatsUnits || repeatsText;
  });
  return { units, mergedClauses, coverage, redundant };
}

export interface Ratings {
  /** 10 = nothing said twice, 0 = at least half of the merged clauses repeat others. */
  redundancy: number;
  /** 10 = every source unit kept, 0 = none. */
  retention: number;
}

export function proxyRatings(sources: readonly string[], merged: string): Ratings {
  const { units, mergedClauses, coverage, redundant } = analyseMerge(sources, merged);
  const repeated = mergedClauses.length ? redundant.filter(Boolean).length / mergedClauses.length : 0;
  const kept = units.length ? coverage.filter((c) => c > 0).length / units.length : 1;
  return { redundancy: 10 * Math.max(0, 1 - 2 * repeated), retention: 10 * kept };
}

export function harmonicMean(a: number, b: number): number {
  return a <= 0 || b <= 0 ? 0 : (2 * a * b) / (a + b);
}

/**
 * The proxy's two ratings by the review's own measures, which index the merge once (a data room of
 * thirty contracts of 200,000 characters in seconds, where the proxy's units compare every source
 * clause with every other): 10 x the share of the sources' clauses the merge keeps, and 10 less 20 x
 * the share of its clauses that repeat an earlier one; their harmonic mean.
 */
export function measuredMergeScore(sources: readonly string[], merged: string): number {
  const { clauses, kept } = retentionTotals(measureRetention(merged, sources));
  const repeats = findRepeats(merged);
  const repeated = repeats.length ? repeats.filter((r) => r !== undefined).length / repeats.length : 0;
  return harmonicMean(10 * Math.max(0, 1 - 2 * repeated), clauses ? (10 * kept) / clauses : 10);
}

/** The proxy score: harmonic mean of the proxy ratings, 0-10, higher is better. */
export function mergeScore(sources: readonly string[], merged: string): number {
  const { redundancy, retention } = proxyRatings(sources, merged);
  return harmonicMean(redundancy, retention);
}

/** One rating (0: redundancy, 1: retention) averaged over the judge's samples. */
const meanRating = (samples: readonly (readonly number[])[], i: number) => samples.reduce((sum, s) => sum + s[i]!, 0) / samples.length;

/** The paper's combination of judge samples: each rating averaged over the samples, then their harmonic mean. */
export function combineRatings(samples: readonly (readonly number[])[]): number {
  if (samples.length === 0) return UNPARSEABLE_SCORE;
  return harmonicMean(meanRating(samples, 0), meanRating(samples, 1));
}

/**
 * The paper's combination with the retention rating measured instead of judged (decision 82): the
 * judge's redundancy ratings averaged, and 10 x the share of the sources' clauses the merge keeps
 * (`measureRetention`, the review's own measure), combined by the harmonic mean. A small judge rated
 * a merge that restated one of four NDAs as well retained; this one cannot.
 */
export function combineWithMeasuredRetention(samples: readonly (readonly number[])[], merged: string, sources: readonly string[]): number {
  if (samples.length === 0) return UNPARSEABLE_SCORE;
  const { clauses, kept } = retentionTotals(measureRetention(merged, sources));
  return harmonicMean(meanRating(samples, 0), clauses === 0 ? 10 : (10 * kept) / clauses);
}
