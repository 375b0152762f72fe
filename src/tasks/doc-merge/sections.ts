import { type DocumentSection, PREAMBLE_TITLE, type Span, splitDocument, titleKey, titleSimilarity } from './headings';

/**
 * Sections aligned across documents: the same clause of thirty versions of a contract becomes one
 * section to merge. Pure and deterministic; an alignment is remembered per problem, so prompts find
 * a section's texts from its index alone (decision 36).
 */

/** One section of the aligned documents: its title, and where each document has it (undefined where it has not). */
export interface AlignedSection {
  title: string;
  number?: number;
  spans: (Span | undefined)[];
}

/** The aligned sections of a problem, in document order. */
export interface Alignment {
  sections: AlignedSection[];
  /** Per document: whether headings or clause numbers were found (else its text was cut by position). */
  structured: boolean[];
}

/** Titles with more word overlap than this (Dice, on word stems) name the same section. */
const SAME_TITLE = 0.5;

interface Column {
  title: string;
  number?: number;
  keys: string[][];
  /** Some document has this section without a title. */
  untitled: boolean;
  numbers: Set<number>;
  spans: (Span | undefined)[];
  /** Sum and count of the relative positions (start / length) of its sections in their documents. */
  placeSum: number;
  placeCount: number;
}

const NO_MATCH = -1;

/**
 * How well a document's section fits an aligned column: a similar title, the better with the same
 * number too; the same number alone only where a title is missing on either side. Two different
 * titles under one number are different sections: numbers shift where one contract has a section
 * another lacks.
 */
function matchScore(section: DocumentSection, key: string[], column: Column): number {
  const sameNumber = section.number !== undefined && column.numbers.has(section.number);
  let best: number | undefined;
  for (const k of column.keys) {
    const s = titleSimilarity(key, k);
    if (s !== undefined && (best === undefined || s > best)) best = s;
  }
  if (best !== undefined && best > SAME_TITLE) return 2 + best + (sameNumber ? 0.5 : 0);
  return sameNumber && (key.length === 0 || column.untitled) ? 1 : NO_MATCH;
}

/**
 * Aligns one document's sections with the columns so far, keeping both orders (a weighted longest
 * common subsequence): returns, per section, the column it joins or -1 for a section of its own.
 */
function alignOrder(sections: DocumentSection[], keys: string[][], columns: Column[]): number[] {
  const m = columns.length;
  const n = sections.length;
  const width = n + 1;
  const scores = matchScores(sections, keys, columns);
  const best = new Float64Array((m + 1) * width);
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      const score = scores[i * n + j]!;
      const take = score === NO_MATCH ? -Infinity : score + best[(i + 1) * width + j + 1]!;
      best[i * width + j] = Math.max(take, best[(i + 1) * width + j]!, best[i * width + j + 1]!);
    }
  }
  const joins = sections.map(() => -1);
  for (let i = 0, j = 0; i < m && j < n; ) {
    const score = scores[i * n + j]!;
    if (score !== NO_MATCH && best[i * width + j] === score + best[(i + 1) * width + j + 1]!) {
      joins[j] = i;
      i++;
      j++;
    } else if (best[i * width + j] === best[(i + 1) * width + j]) i++;
    else j++;
  }
  return joins;
}

/**
 * `matchScore` of every section with every column (row = column), computed only where it can match:
 * a column sharing a title stem or the section's number. Anywhere else it is NO_MATCH (no overlap
 * is no similar title, and no number in common is no numbered match), so the result is exact, and a
 * contract of a thousand clauses aligns with fifty others in a fraction of the time every pair takes.
 */
function matchScores(sections: DocumentSection[], keys: string[][], columns: Column[]): Float64Array {
  const n = sections.length;
  const scores = new Float64Array(columns.length * n).fill(NO_MATCH);
  const byStem = new Map<string, number[]>();
  const byNumber = new Map<number, number[]>();
  const add = <K>(index: Map<K, number[]>, key: K, i: number) => {
    const list = index.get(key);
    if (!list) index.set(key, [i]);
    else if (list.at(-1) !== i) list.push(i);
  };
  columns.forEach((column, i) => {
    for (const key of column.keys) for (const stem of key) add(byStem, stem, i);
    for (const number of column.numbers) add(byNumber, number, i);
  });
  // Which section last scored each column: a column shared by several stems is scored once.
  const scoredFor = new Int32Array(columns.length).fill(-1);
  sections.forEach((section, j) => {
    const score = (i: number) => {
      if (scoredFor[i] === j) return;
      scoredFor[i] = j;
      scores[i * n + j] = matchScore(section, keys[j]!, columns[i]!);
    };
    for (const stem of keys[j]!) for (const i of byStem.get(stem) ?? []) score(i);
    if (section.number !== undefined) for (const i of byNumber.get(section.number) ?? []) score(i);
  });
  return scores;
}

/** A column's place in the documents: the mean relative position of its sections' starts. */
const placeOf = (c: Column) => c.placeSum / c.placeCount;

/** Two runs of columns merged by place, each run keeping its own order. */
function mergeByPlace(a: readonly Column[], b: readonly Column[]): Column[] {
  const out: Column[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && placeOf(a[i]!) <= placeOf(b[j]!))) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/**
 * The columns after one more document: its sections join the columns the alignment chose; a
 * section of its own becomes a new column, placed among the columns it has not (between the same
 * matched neighbours) by where it sits in its document.
 */
function addDocument(columns: Column[], d: number, sections: DocumentSection[], count: number, length: number): Column[] {
  const keys = sections.map((s) => titleKey(s.title));
  const joins = alignOrder(sections, keys, columns);
  const out: Column[] = [];
  let next = 0;
  let fresh: Column[] = [];
  const flushTo = (end: number) => {
    out.push(...mergeByPlace(columns.slice(next, end), fresh));
    fresh = [];
    next = end;
  };
  sections.forEach((section, j) => {
    const span = { start: section.start, end: section.end };
    const place = section.start / Math.max(1, length);
    const join = joins[j]!;
    if (join === -1) {
      const spans: (Span | undefined)[] = Array.from({ length: count }, () => undefined);
      spans[d] = span;
      fresh.push({
        title: section.title,
        ...(section.number !== undefined ? { number: section.number } : {}),
        keys: keys[j]!.length ? [keys[j]!] : [],
        untitled: keys[j]!.length === 0,
        numbers: new Set(section.number !== undefined ? [section.number] : []),
        spans,
        placeSum: place,
        placeCount: 1,
      });
      return;
    }
    flushTo(join);
    const column = columns[next++]!;
    column.spans[d] = span;
    if (keys[j]!.length && !column.keys.some((k) => k.join() === keys[j]!.join())) column.keys.push(keys[j]!);
    if (keys[j]!.length === 0) column.untitled = true;
    if (section.number !== undefined) column.numbers.add(section.number);
    if (!column.title && section.title) column.title = section.title;
    column.placeSum += place;
    column.placeCount++;
    out.push(column);
  });
  flushTo(columns.length);
  return out;
}

const titlesMatch = (a: Column, b: Column) => a.keys.some((x) => b.keys.some((y) => (titleSimilarity(x, y) ?? 0) > SAME_TITLE));

/**
 * Joins columns of the same title that no document has both of: the same section, split because
 * the documents that have it place it differently among sections only some documents have. The
 * joined column stays where the larger of the two was.
 */
function joinSplitColumns(columns: Column[]): Column[] {
  const out = [...columns];
  for (let i = 0; i < out.length; i++) {
    for (let j = i + 1; j < out.length; j++) {
      const [a, b] = [out[i]!, out[j]!];
      if (!titlesMatch(a, b) || a.spans.some((span, d) => span && b.spans[d])) continue;
      const [kept, gone] = b.placeCount > a.placeCount ? [b, a] : [a, b];
      gone.spans.forEach((span, d) => {
        if (span) kept.spans[d] = span;
      });
      for (const k of gone.keys) if (!kept.keys.some((x) => x.join() === k.join())) kept.keys.push(k);
      for (const n of gone.numbers) kept.numbers.add(n);
      kept.untitled ||= gone.untitled;
      kept.placeSum += gone.placeSum;
      kept.placeCount += gone.placeCount;
      out.splice(out.indexOf(gone), 1);
      j = i;
    }
  }
  return out;
}

/** Where to cut `text` near `target` (within `slack`): after a blank line, else a line break, else a sentence, else a space. */
export function cutNear(text: string, target: number, slack: number, from = 0, to = text.length): number {
  if (target <= from) return from;
  if (target >= to) return to;
  const lo = Math.max(from + 1, target - slack);
  const hi = Math.min(to - 1, target + slack);
  // Only the window is searched: a long text without the boundary must not be scanned whole for every cut.
  const window = text.slice(lo, hi + 1);
  for (const boundary of ['\n\n', '\n', '. ', ' ']) {
    let best = -1;
    for (let i = window.indexOf(boundary); i !== -1; i = window.indexOf(boundary, i + 1)) {
      const cut = lo + i + boundary.length;
      if (cut > hi) break;
      if (best === -1 || Math.abs(cut - target) < Math.abs(best - target)) best = cut;
    }
    if (best !== -1) return best;
  }
  return target;
}

/** An unstructured document cut into the columns' shares of the structured ones, at paragraph boundaries. */
function spreadByPosition(text: string, shares: readonly number[]): Span[] {
  const total = shares.reduce((a, b) => a + b, 0) || 1;
  const slack = Math.ceil(text.length / (4 * Math.max(1, shares.length)));
  const spans: Span[] = [];
  let start = 0;
  let cumulative = 0;
  shares.forEach((share, i) => {
    cumulative += share;
    const end =
      i === shares.length - 1 ? text.length : Math.max(start, cutNear(text, Math.round((text.length * cumulative) / total), slack, start));
    spans.push({ start, end });
    start = end;
  });
  return spans;
}

/**
 * Aligns the documents' sections: each document in turn joins the columns so far, in order, by
 * similar title (or, failing that, the same number); sections only some documents have stay
 * columns of their own, where they occur. The preamble is always first. A document without
 * structure is cut into paragraph-bounded pieces at the columns' average relative positions; when
 * no document has structure, each is one section, which `sectionPieces` cuts by position.
 */
export function alignDocuments(documents: readonly string[]): Alignment {
  const count = documents.length;
  const perDocument = documents.map(splitDocument);
  const structured = perDocument.map((s) => s.length > 0);
  if (!structured.some(Boolean)) {
    return { sections: [{ title: 'Document', spans: documents.map((d) => ({ start: 0, end: d.length })) }], structured };
  }
  let columns: Column[] = [];
  const preamble: (Span | undefined)[] = Array.from({ length: count }, () => undefined);
  perDocument.forEach((sections, d) => {
    if (!sections.length) return;
    const body = sections[0]!.title === PREAMBLE_TITLE && sections[0]!.number === 0 ? sections.slice(1) : sections;
    if (body !== sections) preamble[d] = { start: sections[0]!.start, end: sections[0]!.end };
    columns = addDocument(columns, d, body, count, documents[d]!.length);
  });
  const aligned: AlignedSection[] = [
    ...(preamble.some(Boolean) ? [{ title: PREAMBLE_TITLE, number: 0, spans: preamble }] : []),
    ...joinSplitColumns(columns).map((c) => ({ title: c.title, ...(c.number !== undefined ? { number: c.number } : {}), spans: c.spans })),
  ];
  // Each column's share of a structured document, on average where it occurs.
  const shares = aligned.map((section) => {
    const relative = section.spans.flatMap((s, d) => (s && structured[d] ? [(s.end - s.start) / Math.max(1, documents[d]!.length)] : []));
    return relative.length ? relative.reduce((a, b) => a + b, 0) / relative.length : 0;
  });
  structured.forEach((isStructured, d) => {
    if (isStructured) return;
    spreadByPosition(documents[d]!, shares).forEach((span, s) => {
      if (documents[d]!.slice(span.start, span.end).trim() !== '') aligned[s]!.spans[d] = span;
    });
  });
  return { sections: aligned, structured };
}

/** A fingerprint of the documents' full contents (two 32-bit FNV-style hashes and the lengths). */
function fingerprint(documents: readonly string[]): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (const text of documents) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b + c, 0x5bd1e995) ^ (b >>> 15);
    }
    a = Math.imul(a ^ 0xffff, 0x01000193);
  }
  return `${documents.map((d) => d.length).join(',')}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}

const byArray = new WeakMap<readonly string[], Alignment>();
const recent = new Map<string, Alignment>();
const RECENT = 4;

/**
 * The documents' alignment, remembered: by the array itself (one prompt's build, parse and judge),
 * and by the contents for the last few problems (each LLM step receives its problem anew).
 */
export function alignmentOf(documents: readonly string[]): Alignment {
  const own = byArray.get(documents);
  if (own) return own;
  const key = fingerprint(documents);
  let alignment = recent.get(key);
  if (!alignment) {
    alignment = alignDocuments(documents);
    if (recent.size >= RECENT) recent.delete(recent.keys().next().value!);
    recent.set(key, alignment);
  }
  byArray.set(documents, alignment);
  return alignment;
}

/** Which piece of a section: `piece` of `pieces` (a section too long for one prompt is cut into pieces). */
export interface PieceRef {
  section: number;
  piece?: number;
  pieces?: number;
}

/**
 * The texts of one section (or one piece of it), per document: undefined where the document has
 * none. A section is cut into `pieces` at the same relative positions in every document, on
 * paragraph boundaries near them, so piece i of each document covers about the same clauses.
 */
export function sectionTexts(documents: readonly string[], { section, piece = 0, pieces = 1 }: PieceRef): (string | undefined)[] {
  const aligned = alignmentOf(documents).sections[section];
  if (!aligned)
    throw new RangeError(`the documents have ${alignmentOf(documents).sections.length} sections; there is no section ${section}`);
  if (!Number.isInteger(pieces) || pieces < 1 || !Number.isInteger(piece) || piece < 0 || piece >= pieces) {
    throw new RangeError(`expected piece 0 to ${pieces - 1} of ${pieces}, got ${piece}`);
  }
  return aligned.spans.map((span, d) => {
    if (!span) return undefined;
    const text = documents[d]!;
    const { start, end } = pieces === 1 ? span : pieceSpan(text, span, piece, pieces);
    const slice = text.slice(start, end);
    return slice.trim() === '' ? undefined : slice.trim();
  });
}

function pieceSpan(text: string, span: Span, piece: number, pieces: number): Span {
  const length = span.end - span.start;
  const slack = Math.ceil(length / (10 * pieces));
  const cut = (i: number) =>
    i === 0
      ? span.start
      : i === pieces
        ? span.end
        : cutNear(text, span.start + Math.round((length * i) / pieces), slack, span.start, span.end);
  return { start: cut(piece), end: Math.max(cut(piece), cut(piece + 1)) };
}
