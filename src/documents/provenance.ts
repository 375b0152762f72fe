import type { DocumentSection } from '../tasks/doc-merge/headings';
import { type ClauseUnit, splitClausesOnce } from './clauses';
import { pagesOf, sectionsOf, sectionTitleAt } from './places';
import type { AnswerReview, ClauseSource, MergedClause, SourceInfo } from './types';

/**
 * Where each clause of a merged text came from: every merged clause is compared with the sources'
 * sentences by TF-IDF-weighted cosine similarity over normalised words and word bigrams, found
 * through an inverted index so a data room of hundreds of long contracts takes seconds. Pure and
 * deterministic (no I/O, no clock): usable in an activity or the workflow sandbox.
 */

/**
 * A merged clause is supported when its best source sentence reaches this similarity. Measured on
 * the simulator's merges of the 100 paper NDA samples with an invention share of 0.3
 * (test/documents-provenance.test.ts): the best similarity of copied sentences is 1 for 99% of
 * them and at least 0.52 for all (the lowest are sentences a merge cut differently from its
 * source); of the 298 invented NDA-sounding sentences, 99% stay below 0.14 and the highest reaches
 * 0.33 (generated NDAs: at most 0.19), sharing only the usual contract words. 0.5 lies in the gap.
 */
export const SUPPORTED_SIMILARITY = 0.5;
/**
 * A document is listed as a source when its best sentence is within this much of the best
 * document's. A sentence copied word for word scores the same in every document holding it (a
 * margin of 0 would do for those), while another document's rewording of it scores at least 0.3
 * lower in 99.5% of cases (same measurement). The only closer ones differ in stopwords alone
 * ("Any changes ..." against "Changes ..."), which say the same.
 */
export const SAME_SOURCE_MARGIN = 0.05;
/**
 * A text is said by a sentence holding this share of its weighted words and word pairs
 * (`SourceIndex.coverage`). Measured on the paper's 100 NDA samples (decision 99): a source sentence
 * copied into a sentence three times as long keeps 1.0 (every one of 4,503); the simulator's 2,400
 * invented sentences reach at most 0.06; against the other three documents of its own sample a
 * sentence reaches it under the cosine's bar in 0.8% of cases, mostly short ones ("Date: [Insert
 * Date]"), hence `MIN_COVERED_WORDS`.
 */
export const COVERED_SHARE = 0.8;
/** Texts of fewer words (of three letters or more, outside placeholders) are said only by the cosine. */
export const MIN_COVERED_WORDS = 4;
const WORD = /[\p{L}\p{N}]{3,}/gu;
export const wordCount = (text: string): number => (text.replace(/\[[^\]]*\]/g, ' ').match(WORD) ?? []).length;
/** Words inside a placeholder ("[Your Company Name]") weigh this much: placeholders recur everywhere and say little of a clause. */
const PLACEHOLDER_WEIGHT = 0.25;
/** Each merged clause is scored exactly against this many candidates, the best by their rarest shared features. */
const CANDIDATES = 64;
/** Candidates scoring below this share of the best candidate's partial score are not scored exactly. */
const CANDIDATE_FLOOR = 0.25;
/** Postings read per merged clause before frequent features are skipped (they cannot lift a candidate much). */
const POSTINGS_BUDGET = 40_000;

const STOPWORDS = new Set(
  'a an and are as at be been being by for from has have had in into is it its of on or that the their them then there these they this those to was were which will with shall may must any all such other than so do does upon its our your his her he she we you'.split(
    ' ',
  ),
);

/** A word's comparable form: lower case, a plural's "s" dropped ("parties" = "party"). */
function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/** What a word token says: nothing (a stopword, a stray letter), or its stem. */
const meaningOf = (token: string): string | undefined =>
  STOPWORDS.has(token) || (token.length === 1 && !/\d/.test(token)) ? undefined : stem(token);

// Brackets (placeholders) and words; thousands separators are dropped first ("200,000" = "200000").
const TOKEN = /\[|\]|[\p{L}\p{N}]+/gu;
const THOUSANDS = /(\d)[,.](?=\d{3}\b)/g;

/** A sentence as features: word and bigram ids, ascending, with their raw weights (before IDF). */
interface Features {
  ids: number[];
  raw: number[];
  /** Raw weight of features the sources do not have (they count in the norm, never in a match). */
  unknown: number;
}

/** Word pairs to bigram ids: open addressing over typed arrays (a data room has millions of distinct pairs). */
class PairTable {
  private first = new Int32Array(1 << 16).fill(-1);
  private second = new Int32Array(1 << 16);
  private ids = new Int32Array(1 << 16);
  private count = 0;

  private slot(a: number, b: number): number {
    const mask = this.first.length - 1;
    // Mixed so that the low bits depend on all bits of both ids (a multiply alone leaves them to the low bits).
    let h = Math.imul(a, 0x85ebca6b) ^ b;
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    h = (h ^ (h >>> 13)) & mask;
    while (this.first[h] !== -1 && (this.first[h] !== a || this.second[h] !== b)) h = (h + 1) & mask;
    return h;
  }

  get(a: number, b: number): number | undefined {
    const h = this.slot(a, b);
    return this.first[h] === -1 ? undefined : this.ids[h];
  }

  add(a: number, b: number, id: number): void {
    if (2 * (this.count + 1) > this.first.length) this.grow();
    const h = this.slot(a, b);
    this.first[h] = a;
    this.second[h] = b;
    this.ids[h] = id;
    this.count++;
  }

  private grow(): void {
    const [first, second, ids] = [this.first, this.second, this.ids];
    this.first = new Int32Array(first.length * 2).fill(-1);
    this.second = new Int32Array(first.length * 2);
    this.ids = new Int32Array(first.length * 2);
    this.count = 0;
    for (let h = 0; h < first.length; h++) if (first[h] !== -1) this.add(first[h]!, second[h]!, ids[h]!);
  }
}

const ascending = (a: number, b: number) => a - b;
/** Dampened repeats: a clause naming "Confidential Information" three times is not three times as much about it. */
const dampen = (weight: number) => (weight <= 1 ? weight : 1 + Math.log(weight));

/** A growable array of numbers backed by a typed array. */
class Growable<T extends Int32Array | Float64Array> {
  length = 0;
  constructor(public data: T) {}

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new (this.data.constructor as new (n: number) => T)(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** The filled part, as its own array. */
  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

class Vocabulary {
  /** Lower-case tokens to word ids; -2 for tokens that say nothing. Tokens, not stems: most sentences repeat known tokens. */
  private readonly tokens = new Map<string, number>();
  private readonly stems = new Map<string, number>();
  private readonly pairs = new PairTable();
  /** Scratch: a weight per feature id while one sentence is read, and the ids touched. */
  private sums = new Float64Array(1 << 16);
  private readonly touched: number[] = [];
  size = 0;

  private tokenId(token: string, grow: boolean): number {
    const known = this.tokens.get(token);
    if (known !== undefined) return known;
    const meaning = meaningOf(token);
    let id = meaning === undefined ? -2 : (this.stems.get(meaning) ?? -1);
    if (id === -1 && grow) {
      id = this.size++;
      this.stems.set(meaning!, id);
    }
    // Unknown words of a merged text are not remembered: the vocabulary is the sources'.
    if (id !== -1) this.tokens.set(token, id);
    return id;
  }

  private add(id: number, weight: number): void {
    if (id >= this.sums.length) {
      const bigger = new Float64Array(Math.max(id + 1, this.sums.length * 2));
      bigger.set(this.sums);
      this.sums = bigger;
    }
    if (this.sums[id] === 0) this.touched.push(id);
    this.sums[id]! += weight;
  }

  /**
   * The sentence's features: its words (placeholder words light, stopwords out) and the pairs of
   * consecutive words. `grow` adds new words and pairs (sources); else they count as unknown (a merged text).
   */
  features(text: string, grow: boolean): Features {
    const plain = text.replace(THOUSANDS, '$1').toLowerCase();
    let unknown = 0;
    let depth = 0;
    let prev = -1;
    let prevWeight = 0;
    let first = true;
    TOKEN.lastIndex = 0;
    for (let m = TOKEN.exec(plain); m; m = TOKEN.exec(plain)) {
      const t = m[0];
      if (t === '[') depth++;
      else if (t === ']') depth = Math.max(0, depth - 1);
      else {
        const id = this.tokenId(t, grow);
        if (id === -2) continue;
        // Placeholders recur in every template and say little of a clause.
        const weight = depth > 0 ? PLACEHOLDER_WEIGHT : 1;
        if (id === -1) unknown += weight;
        else this.add(id, weight);
        if (!first) {
          const pairWeight = Math.min(weight, prevWeight);
          let pair = prev === -1 || id === -1 ? -1 : (this.pairs.get(prev, id) ?? -1);
          if (pair === -1 && grow && prev !== -1 && id !== -1) {
            pair = this.size++;
            this.pairs.add(prev, id, pair);
          }
          if (pair === -1) unknown += pairWeight;
          else this.add(pair, pairWeight);
        }
        first = false;
        prev = id;
        prevWeight = weight;
      }
    }
    const ids = this.touched.sort(ascending).slice();
    const raw: number[] = [];
    for (const id of ids) {
      raw.push(dampen(this.sums[id]!));
      this.sums[id] = 0;
    }
    this.touched.length = 0;
    return { ids, raw, unknown };
  }
}

/**
 * The sources' sentences, each distinct wording once (a data room's contracts repeat their
 * template's sentences word for word), with an inverted index from features to sentences. All
 * per-sentence data lives in flat typed arrays: a data room has hundreds of thousands of sentences.
 */
export class SourceIndex {
  /** Per document, its clause units. */
  readonly clauses: ClauseUnit[][];
  private readonly vocabulary = new Vocabulary();
  /** Where each distinct sentence occurs: a chain through `nextOccurrence`, in document order. */
  private readonly firstOccurrence: Int32Array;
  private readonly nextOccurrence: Int32Array;
  private readonly occurrenceDocument: Int32Array;
  private readonly occurrenceClause: Int32Array;
  /** Each distinct sentence's features (`featureStart[s]` to `featureStart[s + 1]`), weights with IDF, and norm. */
  private readonly featureStart: Int32Array;
  private readonly featureId: Int32Array;
  private readonly featureWeight: Float64Array;
  private readonly norms: Float64Array;
  private readonly idf: Float64Array;
  private readonly df: Int32Array;
  /** Per feature, the sentences having it and its weight there divided by their norm. */
  private readonly postingStart: Int32Array;
  private readonly postingSentence: Int32Array;
  private readonly postingWeight: Float64Array;
  private readonly unknownIdf: number;
  private readonly sections: (DocumentSection[] | undefined)[];
  private readonly scores: Float64Array;
  private readonly touched: Int32Array;

  constructor(readonly documents: readonly string[]) {
    this.clauses = documents.map((d) => splitClausesOnce(d).clauses);
    this.sections = documents.map(() => undefined);
    const distinct = new Map<string, number>();
    const occurrences = this.clauses.reduce((sum, units) => sum + units.length, 0);
    this.occurrenceDocument = new Int32Array(occurrences);
    this.occurrenceClause = new Int32Array(occurrences);
    this.nextOccurrence = new Int32Array(occurrences).fill(-1);
    const first: number[] = [];
    const last: number[] = [];
    const starts = new Growable(new Int32Array(1024));
    starts.push(0);
    const ids = new Growable(new Int32Array(1 << 16));
    const raws = new Growable(new Float64Array(1 << 16));
    let o = 0;
    for (let document = 0; document < this.clauses.length; document++) {
      const units = this.clauses[document]!;
      for (let clause = 0; clause < units.length; clause++, o++) {
        const text = units[clause]!.text;
        let s = distinct.get(text);
        if (s === undefined) {
          s = first.length;
          distinct.set(text, s);
          const f = this.vocabulary.features(text, true);
          for (let i = 0; i < f.ids.length; i++) {
            ids.push(f.ids[i]!);
            raws.push(f.raw[i]!);
          }
          starts.push(ids.length);
          first.push(o);
        } else this.nextOccurrence[last[s]!] = o;
        last[s] = o;
        this.occurrenceDocument[o] = document;
        this.occurrenceClause[o] = clause;
      }
    }
    const n = first.length;
    this.firstOccurrence = Int32Array.from(first);
    this.featureStart = starts.done();
    this.featureId = ids.done();
    const features = this.vocabulary.size;
    this.df = new Int32Array(features);
    for (const id of this.featureId) this.df[id]!++;
    this.idf = new Float64Array(features);
    for (let f = 0; f < features; f++) this.idf[f] = Math.log(1 + n / this.df[f]!);
    // A feature no source sentence has is as rare as can be.
    this.unknownIdf = Math.log(1 + Math.max(1, n));
    this.featureWeight = new Float64Array(ids.length);
    this.norms = new Float64Array(n);
    for (let s = 0; s < n; s++) {
      let sum = 0;
      for (let i = this.featureStart[s]!; i < this.featureStart[s + 1]!; i++) {
        const w = raws.data[i]! * this.idf[this.featureId[i]!]!;
        this.featureWeight[i] = w;
        sum += w * w;
      }
      this.norms[s] = Math.sqrt(sum);
    }
    this.postingStart = new Int32Array(features + 1);
    for (let f = 0; f < features; f++) this.postingStart[f + 1] = this.postingStart[f]! + this.df[f]!;
    const fill = this.postingStart.slice(0, features);
    this.postingSentence = new Int32Array(ids.length);
    this.postingWeight = new Float64Array(ids.length);
    for (let s = 0; s < n; s++) {
      for (let i = this.featureStart[s]!; i < this.featureStart[s + 1]!; i++) {
        const at = fill[this.featureId[i]!]!++;
        this.postingSentence[at] = s;
        // Divided by the sentence's norm already: a candidate's score is then its share of a cosine.
        this.postingWeight[at] = this.featureWeight[i]! / this.norms[s]!;
      }
    }
    // Scratch space reused by every query: typed arrays instead of a map per merged clause.
    this.scores = new Float64Array(n);
    this.touched = new Int32Array(n);
  }

  /** Distinct source sentences indexed. */
  get size(): number {
    return this.firstOccurrence.length;
  }

  /**
   * Each document's best-matching sentence for a text, best first: its similarity (cosine, 0..1)
   * and the clause of that document. Documents with nothing in common are left out.
   */
  match(text: string): { document: number; clause: number; similarity: number }[] {
    const out: { document: number; clause: number; similarity: number }[] = [];
    const seen = new Set<number>();
    for (const { sentence, similarity } of this.scored(text)) {
      if (similarity <= 0) break;
      for (let o = this.firstOccurrence[sentence]!; o !== -1; o = this.nextOccurrence[o]!) {
        const document = this.occurrenceDocument[o]!;
        if (seen.has(document)) continue;
        seen.add(document);
        out.push({ document, clause: this.occurrenceClause[o]!, similarity: Math.min(1, similarity) });
      }
    }
    return out.sort((a, b) => b.similarity - a.similarity || a.document - b.document);
  }

  /** Every indexed clause (not only each document's best) whose similarity with a text reaches `floor`, best first. */
  matchAll(text: string, floor: number): { document: number; clause: number; similarity: number }[] {
    const out: { document: number; clause: number; similarity: number }[] = [];
    for (const { sentence, similarity } of this.scored(text)) {
      if (similarity < floor) break;
      for (let o = this.firstOccurrence[sentence]!; o !== -1; o = this.nextOccurrence[o]!)
        out.push({ document: this.occurrenceDocument[o]!, clause: this.occurrenceClause[o]!, similarity: Math.min(1, similarity) });
    }
    return out;
  }

  /**
   * How much of a text the best indexed sentence says: the share of the text's weighted words and
   * word pairs (squared, as in its norm) that sentence has. A source sentence copied into a longer
   * merged clause is covered whole while its cosine with that clause falls with the clause's length.
   * 0 for a text of no known words.
   */
  coverage(text: string): number {
    return this.related(text).reduce((best, c) => Math.max(best, c.share), 0);
  }

  /**
   * Every indexed clause alike a text by either measure: cosine similarity reaching `similarity`, or
   * holding at least `share` of it (as `coverage` measures); both measures of each, from one pass.
   */
  alike(
    text: string,
    floors: { similarity: number; share: number },
  ): { document: number; clause: number; similarity: number; share: number }[] {
    const out: { document: number; clause: number; similarity: number; share: number }[] = [];
    for (const { sentence, similarity, share } of this.related(text)) {
      if (similarity < floors.similarity && share < floors.share) continue;
      for (let o = this.firstOccurrence[sentence]!; o !== -1; o = this.nextOccurrence[o]!)
        out.push({
          document: this.occurrenceDocument[o]!,
          clause: this.occurrenceClause[o]!,
          similarity: Math.min(1, similarity),
          share: Math.min(1, share),
        });
    }
    return out;
  }

  /**
   * Whether an indexed sentence says a text: close by cosine (`SUPPORTED_SIMILARITY`), or, for a text
   * of a few words at least, holding `COVERED_SHARE` of it (the text copied into a longer sentence).
   */
  says(text: string): boolean {
    const byShare = wordCount(text) >= MIN_COVERED_WORDS;
    return this.related(text).some((c) => c.similarity >= SUPPORTED_SIMILARITY || (byShare && c.share >= COVERED_SHARE));
  }

  /** The candidate sentences for a text with their exact cosine similarity, best first. */
  private scored(text: string): { sentence: number; similarity: number }[] {
    return this.related(text).sort((a, b) => b.similarity - a.similarity || a.sentence - b.sentence);
  }

  /**
   * The candidate sentences for a text (unordered), each with its cosine similarity and the share of
   * the text's squared feature weight it has: both from one walk over their common features.
   */
  private related(text: string): { sentence: number; similarity: number; share: number }[] {
    const f = this.vocabulary.features(text, false);
    const q = f.ids.map((id, i) => f.raw[i]! * this.idf[id]!);
    let mass = (f.unknown * this.unknownIdf) ** 2;
    for (const w of q) mass += w * w;
    const qNorm = Math.sqrt(mass);
    if (qNorm === 0 || f.ids.length === 0) return [];
    return this.candidates(f.ids, q).map((sentence) => {
      const { dot, shared } = this.overlap(sentence, f.ids, q);
      return { sentence, similarity: dot / (qNorm * this.norms[sentence]!), share: shared / mass };
    });
  }

  /**
   * The sentences most likely to match: scored by the query's rarest features first (they decide
   * a cosine), reading postings until the budget is spent, then the best `CANDIDATES` by that score.
   */
  private candidates(ids: readonly number[], q: readonly number[]): number[] {
    const order = ids.map((_, i) => i).sort((a, b) => this.df[ids[a]!]! - this.df[ids[b]!]! || ids[a]! - ids[b]!);
    const { scores, touched } = this;
    let count = 0;
    let read = 0;
    for (const i of order) {
      const f = ids[i]!;
      const from = this.postingStart[f]!;
      const to = this.postingStart[f + 1]!;
      if (read > 0 && read + (to - from) > POSTINGS_BUDGET) break;
      read += to - from;
      for (let p = from; p < to; p++) {
        const s = this.postingSentence[p]!;
        if (scores[s] === 0) touched[count++] = s;
        scores[s]! += q[i]! * this.postingWeight[p]!;
      }
    }
    let max = 0;
    for (let k = 0; k < count; k++) max = Math.max(max, scores[touched[k]!]!);
    // Far below the best partial score a candidate cannot come near the best cosine: only the rest is sorted.
    const floor = max * CANDIDATE_FLOOR;
    const found: { sentence: number; score: number }[] = [];
    for (let k = 0; k < count; k++) {
      const s = touched[k]!;
      if (scores[s]! >= floor) found.push({ sentence: s, score: scores[s]! });
      scores[s] = 0;
    }
    found.sort((a, b) => b.score - a.score || a.sentence - b.sentence);
    return found.slice(0, CANDIDATES).map((c) => c.sentence);
  }

  /**
   * The exact dot product of a sentence with the query, and the squared weight of the query's
   * features the sentence has (both feature lists ascending).
   */
  private overlap(sentence: number, ids: readonly number[], q: readonly number[]): { dot: number; shared: number } {
    let dot = 0;
    let shared = 0;
    const end = this.featureStart[sentence + 1]!;
    for (let i = 0, j = this.featureStart[sentence]!; i < ids.length && j < end; ) {
      const a = ids[i]!;
      const b = this.featureId[j]!;
      if (a === b) {
        dot += q[i]! * this.featureWeight[j++]!;
        shared += q[i]! ** 2;
        i++;
      } else if (a < b) i++;
      else j++;
    }
    return { dot, shared };
  }

  /** The title of the source's section holding `at`: its numbered or headed section, else the clause's own heading. */
  sectionAt(document: number, at: number, clause: number): string | undefined {
    this.sections[document] ??= sectionsOf(this.documents[document]!);
    return sectionTitleAt(this.sections[document]!, at) ?? this.clauses[document]![clause]?.heading;
  }
}

/** Provenance of a merged text: its clauses with their sources, and how many are supported. */
export interface Provenance {
  clauses: MergedClause[];
  counts: AnswerReview['counts'];
}

/** The sources' index, remembered per documents array (a review traces provenance and then terms on the same sources). */
const indexes = new WeakMap<readonly string[], SourceIndex>();

/** The sources' sentence index, built once per documents array. */
export function sourceIndexOf(documents: readonly string[]): SourceIndex {
  let index = indexes.get(documents);
  if (!index) {
    index = new SourceIndex(documents);
    indexes.set(documents, index);
  }
  return index;
}

/**
 * Aligns each clause of `merged` with the source sentences it came from. A clause is supported
 * when its best source sentence reaches `SUPPORTED_SIMILARITY`; its sources are then every
 * document whose best sentence is within `SAME_SOURCE_MARGIN` of the best, best first, each with
 * the matching sentence's span, section title and pages (from `sources[i].pageStarts`).
 */
export function traceProvenance(merged: string, documents: readonly string[], sources?: readonly SourceInfo[]): Provenance {
  const index = sourceIndexOf(documents);
  const clauses = splitClausesOnce(merged).clauses.map((unit): MergedClause => {
    const matches = index.match(unit.text);
    const best = matches[0]?.similarity ?? 0;
    const supported = best >= SUPPORTED_SIMILARITY;
    const chosen = supported ? matches.filter((m) => m.similarity >= best - SAME_SOURCE_MARGIN) : [];
    const found = chosen.map(({ document, clause, similarity }): ClauseSource => {
      const source = index.clauses[document]![clause]!;
      const section = index.sectionAt(document, source.start, clause);
      const pages = pagesOf(sources?.[document]?.pageStarts, source.start, source.end);
      return {
        document,
        ...(section !== undefined ? { section } : {}),
        ...(pages ? { pages } : {}),
        similarity: Math.round(similarity * 1000) / 1000,
        start: source.start,
        end: source.end,
      };
    });
    return {
      start: unit.start,
      end: unit.end,
      ...(unit.heading !== undefined ? { heading: unit.heading } : {}),
      sources: found,
      supported,
    };
  });
  const supported = clauses.filter((c) => c.supported).length;
  return { clauses, counts: { clauses: clauses.length, supported, unsupported: clauses.length - supported } };
}
