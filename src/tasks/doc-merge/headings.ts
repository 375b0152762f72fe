/**
 * A document cut at its headings and clause numbers ("1.", "4.2", "Section 3", "ARTICLE IV",
 * "Clause 7", markdown, ALL-CAPS lines), and section titles compared as word stems. Pure.
 */

/** Where a piece of a document lies: `[start, end)` in its characters. */
export interface Span {
  start: number;
  end: number;
}

/** A section as one document has it: its number (the top-level one, e.g. 4 for "4.2"), title and span. */
export interface DocumentSection extends Span {
  number?: number;
  title: string;
}

/** Title of the text before a document's first section (its title and parties). */
export const PREAMBLE_TITLE = 'Preamble';
/** Fewer section headings than this and a document counts as unstructured. */
const MIN_SECTIONS = 2;
/** A clause number continues the sequence when it is at most this much above the last ("4." after "1."). */
const MAX_NUMBER_GAP = 3;
/** A heading's whole rest of line is its title up to this many words; a run-in title ("Fees. The ...") up to the second. */
const TITLE_WORDS = 12;
const RUN_IN_TITLE_WORDS = 8;

interface Heading {
  at: number;
  number?: number;
  /** An explicit marker (ARTICLE, Section, Clause, §): starts a section even after a gap in the numbers. */
  explicit: boolean;
  title: string;
}

const ROMAN: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100, d: 500, m: 1000 };

function romanValue(text: string): number | undefined {
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const value = ROMAN[text[i]!.toLowerCase()];
    if (value === undefined) return undefined;
    const next = ROMAN[text[i + 1]?.toLowerCase() ?? ''] ?? 0;
    total += value < next ? -value : value;
  }
  return total > 0 ? total : undefined;
}

const MARKDOWN = /^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/;
const KEYWORD = /^\s*(?:article|section|clause|§)\s*(\d{1,3}(?:\.\d{1,3})*|[ivxlcdm]{1,7})\b\.?\s*(?:[-\u2013\u2014:.)]\s*)?(.*)$/i;
const NUMBERED = /^\s*(\d{1,3}(?:\.\d{1,3})*)[.)]?\s+(\S.*)$/;
// A title or clause starts with a capital, a digit or a quote; a lower-case word continues a sentence ("Section 3 of ...").
const STARTS_LIKE_TITLE = /^["'\u201c\u2018(]?[A-Z0-9]/;

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const stripEnd = (text: string) => text.replace(/[\s.:;,\u2013\u2014-]+$/, '').trim();

/** Every word of four letters or more capitalised, as headings are written ("Limitation of Liability"). */
const titleCase = (text: string) => (text.match(/[A-Za-z]{4,}/g) ?? []).every((w) => w[0] === w[0]!.toUpperCase());

/**
 * The title a heading line gives after its number: the whole rest when short (a short sentence,
 * "The Customer pays monthly.", is a clause, not a title), else a run-in title ("Fees. The Customer
 * pays ..."), else none.
 */
function titleAfterNumber(rest: string): string {
  const text = rest.trim();
  if (text === '') return '';
  // Cheapest tests first: a long contract has thousands of numbered clause lines, few of them titles.
  const sentence = () => /[.!?]$/.test(text) && !titleCase(text);
  if (!/[.!?;]\s*\S/.test(text) && words(text) <= TITLE_WORDS && !sentence()) return stripEnd(text);
  const runIn = /^([^.!?;]{1,80})[.:]\s+\S/.exec(text);
  return runIn && words(runIn[1]!) <= RUN_IN_TITLE_WORDS ? stripEnd(runIn[1]!) : '';
}

function numberOf(path: string): number | undefined {
  const first = path.split('.')[0]!;
  return /^\d+$/.test(first) ? Number(first) : romanValue(first);
}

function isCapsHeading(line: string): boolean {
  const text = line.trim();
  if (text.length < 3 || text.length > 80 || /[a-z]/.test(text) || /[,;.]$/.test(text)) return false;
  return (text.match(/[A-Z]/g)?.length ?? 0) >= 3 && words(text) <= 10;
}

/** What a line is, if it could head a section. */
function headingOf(line: string, at: number): Heading | undefined {
  const markdown = MARKDOWN.exec(line);
  if (markdown) {
    const inner = markdown[1]!;
    const numbered = NUMBERED.exec(inner) ?? KEYWORD.exec(inner);
    if (numbered) return { at, number: numberOf(numbered[1]!), explicit: true, title: titleAfterNumber(numbered[2]!) };
    return { at, explicit: true, title: stripEnd(inner) };
  }
  const keyword = KEYWORD.exec(line);
  if (keyword && (keyword[2] === '' || STARTS_LIKE_TITLE.test(keyword[2]!))) {
    const number = numberOf(keyword[1]!);
    if (number !== undefined) return { at, number, explicit: true, title: titleAfterNumber(keyword[2]!) };
  }
  const numbered = NUMBERED.exec(line);
  if (numbered && STARTS_LIKE_TITLE.test(numbered[2]!)) {
    return { at, number: numberOf(numbered[1]!), explicit: false, title: titleAfterNumber(numbered[2]!) };
  }
  if (isCapsHeading(line)) return { at, explicit: false, title: line.trim() };
  return undefined;
}

/** Every line that could head a section, except the document's first line when it is unnumbered (its title). */
function candidateHeadings(text: string): Heading[] {
  const found: Heading[] = [];
  let first = true;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const line = text.slice(at, end);
    if (line.trim() !== '') {
      // Most lines are prose: only a short line, or one that starts like a numbered heading, is examined.
      const candidate = line.length <= 100 || /^\s*[0-9#\u00a7AaSsCc]/.test(line);
      const heading = candidate ? headingOf(line, at) : undefined;
      if (heading && !(first && heading.number === undefined)) found.push(heading);
      first = false;
    }
    at = end + 1;
  }
  return found;
}

/**
 * The sections of one document, in order: a preamble (the text before the first section, if any)
 * and one section per top-level heading. A numbered line starts a section only when its top-level
 * number continues the sequence, so sub-clauses ("4.2") and lists restarting at "1." stay inside;
 * in a document whose numbered headings have titles, an untitled "5." is a list item, not a
 * section. ARTICLE/Section/Clause markers, markdown headings and ALL-CAPS lines start sections too,
 * except the document's first line (its title). Empty when fewer than two sections are found.
 */
export function splitDocument(text: string): DocumentSection[] {
  const candidates = candidateHeadings(text);
  const titled = candidates.filter((h) => h.number !== undefined && h.title !== '').length >= MIN_SECTIONS;
  const starts: Heading[] = [];
  let current = 0;
  for (const heading of candidates) {
    const n = heading.number;
    if (n === undefined) starts.push(heading);
    else if (titled && heading.title === '' && !heading.explicit) continue;
    else if (n > current && (heading.explicit || n <= current + MAX_NUMBER_GAP)) {
      starts.push(heading);
      current = n;
    }
  }
  if (starts.length < MIN_SECTIONS) return [];
  const sections: DocumentSection[] = [];
  if (text.slice(0, starts[0]!.at).trim() !== '') sections.push({ start: 0, end: starts[0]!.at, title: PREAMBLE_TITLE, number: 0 });
  starts.forEach((h, i) => {
    const end = starts[i + 1]?.at ?? text.length;
    sections.push({ start: h.at, end, title: h.title, ...(h.number !== undefined ? { number: h.number } : {}) });
  });
  return sections;
}
const TITLE_STOPWORDS = new Set([
  'a',
  'an',
  'and',
  'the',
  'of',
  'to',
  'for',
  'on',
  'in',
  'by',
  'with',
  'or',
  'its',
  'their',
  'this',
  'agreement',
]);

/**
 * A title as a set of word stems: lower case, stopwords dropped, a plural's "s" or "es" dropped, each
 * word cut to its first six letters ("Service Levels" = "service level", "Taxes" = "tax",
 * "confidentiality" = "confidential").
 */
export function titleKey(title: string): string[] {
  const stems = (title.toLowerCase().match(/[a-z]+/g) ?? [])
    .filter((w) => !TITLE_STOPWORDS.has(w))
    .map((w) => (w.length > 3 ? w.replace(/(?:(?<=[sxz]|ch|sh)es|(?<!s)s)$/, '') : w).slice(0, 6));
  return [...new Set(stems)].sort();
}

/** Dice overlap of two titles' stems, undefined when either has none. */
export function titleSimilarity(a: readonly string[], b: readonly string[]): number | undefined {
  if (a.length === 0 || b.length === 0) return undefined;
  // Titles have a handful of stems: a scan beats building a set, and alignment asks this millions of times.
  let shared = 0;
  for (const w of b) if (a.includes(w)) shared++;
  return (2 * shared) / (a.length + b.length);
}
