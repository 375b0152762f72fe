/**
 * A text cut into clause units: the sentences of its paragraphs and list items, each with its
 * character span and the heading it stands under. Heading lines ("7. GOVERNING LAW", "## Fees",
 * "Receiving Party's Obligations:") carry no clause; they set the heading of the clauses after them.
 * What a reviewer checks one by one, and what provenance and term extraction work on. Pure.
 */

/** One clause unit: a sentence (or list item) of a text. */
export interface ClauseUnit {
  /** `[start, end)` in the text: from the sentence's first character to its closing punctuation. */
  start: number;
  end: number;
  text: string;
  /** The heading it stands under: a run-in title of its item ("Purpose: ..."), else the last heading line. */
  heading?: string;
}

/** A line that heads what follows it. */
export interface HeadingLine {
  start: number;
  end: number;
  title: string;
}

/** A text's clauses and heading lines, in text order. */
export interface ClauseSplit {
  clauses: ClauseUnit[];
  headings: HeadingLine[];
}

/** A heading line has at most this many words; a run-in title at most `RUN_IN_WORDS`. */
const HEADING_WORDS = 12;
const MAX_HEADING_CHARS = 160;
const RUN_IN_WORDS = 6;
/** Shorter sentences than two words ("Signed.", stray letters) carry nothing to check. */
const TWO_WORDS = /[\p{L}\p{N}][^\p{L}\p{N}]+[\p{L}\p{N}]/u;

// "1.", "4.2", "4.2.1", "(a)", "a.", "iv)", bullets; "ARTICLE IV -", "Section 3." (but not "Section 3 of ...", checked after).
const LIST_MARKER =
  /^(?:\(?(?:\d{1,3}(?:\.\d{1,3})*|[a-zA-Z]|[ivxlIVXL]{1,5})[.)]|\d{1,3}(?:\.\d{1,3})+(?=\s)|[-*\u2022\u25aa\u25cf])[ \t]+/;
const KEYWORD_MARKER =
  /^(?:article|section|clause|\u00a7)[ \t]*(?:\d{1,3}(?:\.\d{1,3})*|[ivxlcdm]{1,7})\b\.?[ \t]*(?:[-\u2013\u2014:.)][ \t]*)?/i;
// A run-in title: "Term and Termination: The agreement ...".
const RUN_IN = /^([\p{Lu}][^.!?:;\n]{0,60}):\s+\S/u;
const MARKDOWN_HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/;

// Words after which a full stop does not end the sentence ("e.g. the", "U.S. law", "Dr. Smith").
const ABBREVIATIONS = new Set(
  'e.g i.e u.s u.k u.s.a mr mrs ms dr prof st vs v cf approx fig ref esp jr sr esq dept est viz al resp jan feb mar apr jun jul aug sep sept oct nov dec'.split(
    ' ',
  ),
);
// These end a sentence only before a number-less word: "No. 5", "Art. 12", "p. 4".
const BEFORE_NUMBER = new Set(['no', 'nos', 'art', 'arts', 'sec', 'secs', 'para', 'paras', 'p', 'pp', 'ch', 'cl', 'vol', 'nr']);
// Company suffixes: "Acme Inc. shall" goes on; "... to Acme Inc. The parties ..." ends, so a new sentence must start like one.
const COMPANY_SUFFIXES = new Set(['inc', 'ltd', 'co', 'corp', 'plc', 'llc', 'llp', 'gmbh', 'ag', 'sa', 'bv', 'nv', 'pty']);
const SENTENCE_STARTERS = new Set(
  'the this that these those each either neither any all no if in for such both it its we you they he she upon unless where when while any nothing notwithstanding'.split(
    ' ',
  ),
);

const wordCount = (text: string) => text.match(/[\p{L}\p{N}]+(?:['\u2019][\p{L}]+)?/gu)?.length ?? 0;

/** Every word of four letters or more capitalised, as headings are written ("Limitation of Liability"). */
function titleCased(text: string): boolean {
  // Placeholders are written in capitals whatever surrounds them.
  const words = text.replace(/\[[^\]]*\]/g, ' ').match(/[\p{L}]{4,}/gu) ?? [];
  return words.length > 0 && words.every((w) => w[0] === w[0]!.toUpperCase());
}

const allCaps = (text: string) => !/\p{Ll}/u.test(text) && (text.match(/\p{Lu}/gu)?.length ?? 0) >= 3;
const stripTitle = (text: string) => text.replace(/[\s:.;,\u2013\u2014-]+$/, '').trim();

/** Whether the rest of a line (after any list marker) is a heading rather than a clause. */
function isHeading(rest: string): boolean {
  // Most lines are prose: too long for a heading, or closed by a sentence's punctuation (and not in capitals).
  if (rest.length > MAX_HEADING_CHARS) return false;
  if (/[.!?;,]["'\u201d\u2019)\]]*$/.test(rest) && /\p{Ll}/u.test(rest)) return false;
  const words = wordCount(rest);
  if (words === 0 || words > HEADING_WORDS) return false;
  // "Date: [Insert Date]", "Supplier: [Name], [Address]": a run-in title with its content is an item.
  if (/:\s+\S/.test(rest)) return false;
  if (allCaps(rest)) return true;
  // "Receiving Party's Obligations:" heads a list; "... information that:" leads into one, and is a clause.
  if (rest.endsWith(':')) return !/[.!?;]\s/.test(rest) && (titleCased(rest) || words <= 2);
  return !/[.!?;,]["'\u201d\u2019)\]]*$/.test(rest) && titleCased(rest);
}

/** Several sentences, or more words than any heading has: prose, whatever its markup says. */
const isProse = (text: string) =>
  text.length > MAX_HEADING_CHARS || (wordCount(text) > HEADING_WORDS && /[.!?]["'\u201d\u2019)\]]*(?:\s+\S|$)/.test(text));

/** A line that states nothing: signature blanks, bracketed names side by side, rules. */
const isBlank = (rest: string) => !/[\p{L}\p{N}]/u.test(rest.replace(/\[[^\]]*\]/g, ''));

/** Where the item's list markers end ("1. ", "(a) ", "Section 3. "). */
function markerEnd(line: string, from: number): number {
  let at = from;
  for (;;) {
    const rest = line.slice(at);
    const listed = LIST_MARKER.exec(rest);
    const m = listed ?? KEYWORD_MARKER.exec(rest);
    if (!m || m[0].length === 0) return at;
    // "Section 3 of the Agreement ..." is prose that mentions a section.
    if (!listed && /^\p{Ll}/u.test(rest.slice(m[0].length))) return at;
    at += m[0].length;
  }
}

/** The word before a full stop at `dot`, lower case, without a leading bracket or quote. */
function wordBefore(text: string, dot: number): string {
  let i = dot;
  while (i > 0 && !/[\s(["'\u201c\u2018]/.test(text[i - 1]!)) i--;
  return text.slice(i, dot).toLowerCase();
}

/** Whether the full stop at `dot` ends a sentence, given the text after it (whitespace, then `next`). */
function endsSentence(text: string, dot: number, nextWord: string): boolean {
  const word = wordBefore(text, dot);
  if (word === '') return true;
  if (ABBREVIATIONS.has(word) || ABBREVIATIONS.has(word.replace(/\.$/, ''))) return false;
  // Initials and dotted abbreviations: "J. Smith", "U.S.", "e.g."; but "... between Party A and Party B. Any ..." ends.
  if (/^\p{L}$/u.test(word)) return LETTER_NAMES.test(text.slice(Math.max(0, dot - 16), dot - 1));
  if (/^(?:\p{L}\.)+\p{L}?$/u.test(word)) return false;
  if (BEFORE_NUMBER.has(word)) return !/^\d/.test(nextWord);
  if (COMPANY_SUFFIXES.has(word)) return SENTENCE_STARTERS.has(nextWord.replace(/^["'(\u201c]/, '').toLowerCase());
  // A sentence starting in lower case ("... herein. not disclose ...") ends one only after a plain word, not an abbreviation.
  if (/^\p{Ll}/u.test(nextWord)) return /^\p{L}{4,}$/u.test(word);
  return true;
}

// Words that a single letter names a kind of: "Party B", "Schedule C", "Annex A".
const LETTER_NAMES =
  /\b(?:party|schedule|exhibit|annex|appendix|attachment|part|class|series|plan|option|item|tier|phase|type|grade|business|company)\s$/i;

// A sentence ends at . ! ? (and closing quotes or brackets) before whitespace and a new sentence's start (in lower
// case only after a full stop: `endsSentence` decides; a heading's "#" a merge copied inline may come first), or at a semicolon before a capital (list items run together).
const BOUNDARY =
  /(?:[.!?]+["'\u201d\u2019)\]]*(?=\s+(?:#{1,6}\s+)?["'\u201c\u2018([]?[\p{Lu}\p{N}])|\.["'\u201d\u2019)\]]*(?=\s+\p{Ll})|;(?=\s+\p{Lu}))/gu;

/** The sentences of one item's text, `[start, end)` within it. */
function sentenceSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(text); m; m = BOUNDARY.exec(text)) {
    const end = m.index + m[0].length;
    const next = /^\s+(\S+)/.exec(text.slice(end, end + 60))?.[1] ?? '';
    if (text[m.index] === '.' && !endsSentence(text, m.index, next)) continue;
    spans.push([start, end]);
    start = end;
  }
  spans.push([start, text.length]);
  return spans;
}

// A colon before a capital ends a title or a lead-in: "Governing Law: ...", "... information which: Payments ...".
const COLON = /:(?=\s+["'\u201c\u2018([]?[\p{Lu}\p{N}])/gu;

/** A short title ended by a colon: "Governing Law:", "NON-POACHING OF EMPLOYEES:", "Specifically:". */
function isTitlePiece(piece: string): boolean {
  if (!piece.endsWith(':')) return false;
  const title = piece.slice(0, -1);
  const words = wordCount(title);
  return words > 0 && words <= RUN_IN_WORDS && (titleCased(title) || allCaps(title) || words <= 2);
}

/** A piece of an item: a clause (with the run-in title it starts with), or a title standing alone. */
interface Piece {
  start: number;
  end: number;
  runIn?: string;
  title?: boolean;
}

/**
 * The pieces of one item's text: its sentences, cut again after a colon that ends a lead-in. A
 * title before a colon stays with the clause it introduces; titles in a row (a merge that copied
 * headings into a paragraph) stand alone, as headings do.
 */
function piecesOf(text: string): Piece[] {
  const out: Piece[] = [];
  for (const [s, e] of sentenceSpans(text)) {
    const parts: [number, number][] = [];
    let from = s;
    const sentence = text.slice(s, e);
    if (sentence.includes(':')) {
      COLON.lastIndex = 0;
      for (let m = COLON.exec(sentence); m; m = COLON.exec(sentence)) {
        parts.push([from, s + m.index + 1]);
        from = s + m.index + 1;
      }
    }
    parts.push([from, e]);
    const textOf = (p: [number, number]) => text.slice(p[0], p[1]).trim();
    for (let i = 0; i < parts.length; i++) {
      const piece = textOf(parts[i]!);
      if (!isTitlePiece(piece)) {
        out.push({ start: parts[i]![0], end: parts[i]![1] });
        continue;
      }
      const next = parts[i + 1];
      if (next && !isTitlePiece(textOf(next))) {
        out.push({ start: parts[i]![0], end: next[1], runIn: piece.slice(0, -1).trim() });
        i++;
      } else out.push({ start: parts[i]![0], end: parts[i]![1], title: true });
    }
  }
  return out;
}

/**
 * Splits a text into clause units and heading lines. A paragraph runs over lines until a blank
 * line, a list item or a heading (so hard-wrapped PDF lines make one sentence); a list item's
 * marker ("1.", "4.2", "(a)") is not part of its clause; a run-in title ("Term and Termination:
 * ...") stays in the clause and is its heading.
 */
export function splitClauses(text: string): ClauseSplit {
  const clauses: ClauseUnit[] = [];
  const headings: HeadingLine[] = [];
  let heading: string | undefined;
  let item: { start: number; end: number; runIn?: string } | undefined;
  /** The last non-blank line was a heading. */
  let headedLast = false;

  const flush = () => {
    if (!item) return;
    const body = text.slice(item.start, item.end);
    for (const piece of piecesOf(body)) {
      const raw = body.slice(piece.start, piece.end);
      const lead = raw.length - raw.trimStart().length;
      const sentence = raw.trim();
      const start = item.start + piece.start + lead;
      // A heading copied into a paragraph (a merge does that) is still a heading: "Section 2 - Length of Engagement".
      if (piece.title || (isHeading(sentence) && !/[.!?;:]["'\u201d\u2019)\]]*$/.test(sentence))) {
        heading = stripTitle(sentence);
        headings.push({ start, end: start + sentence.length, title: heading });
        continue;
      }
      if (!TWO_WORDS.test(sentence)) continue;
      const own = piece.runIn ?? item.runIn ?? heading;
      clauses.push({ start, end: start + sentence.length, text: sentence, ...(own !== undefined ? { heading: own } : {}) });
    }
    item = undefined;
  };

  for (let at = 0; at <= text.length; ) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const line = text.slice(at, end).replace(/\r$/, '');
    const indent = line.length - line.trimStart().length;
    const trimmed = line.trim();
    const next = end + 1;
    if (trimmed === '') {
      flush();
      at = next;
      continue;
    }
    const markdownLine = MARKDOWN_HEADING.exec(line);
    // A "heading" that is a paragraph of prose (a title line a converter kept whole, an HTML h1 of sentences) is content.
    const prose = markdownLine !== null && isProse(markdownLine[1]!);
    const markdown = prose ? null : markdownLine;
    const restAt = prose ? /^ {0,3}#{1,6}[ \t]+/.exec(line)![0].length : markerEnd(line, indent);
    const rest = line.slice(restAt).trim();
    const marked = restAt > indent;
    const runIn = RUN_IN.exec(rest)?.[1];
    const titled = runIn !== undefined && wordCount(runIn) <= RUN_IN_WORDS && (titleCased(runIn) || wordCount(runIn) <= 2);
    // After a finished sentence, a heading line may follow without a blank line; inside a sentence it is a wrapped line.
    const afterSentence =
      item !== undefined && /[.!?:;]["'\u201d\u2019)\]]*$/.test(text.slice(Math.max(item.start, item.end - 8), item.end));
    if (!markdown && isBlank(rest)) {
      flush();
    } else if (markdown || (isHeading(rest) && (marked || !item || afterSentence))) {
      flush();
      const inner = markdown ? markdown[1]!.slice(markerEnd(markdown[1]!, 0)) : rest;
      const title = stripTitle(inner);
      // "Particularly:" right under a heading leads into its list; the heading above still names it.
      const leadIn = !markdown && !marked && rest.endsWith(':') && wordCount(title) === 1 && !allCaps(title) && headedLast;
      if (title && !leadIn) {
        heading = title;
        headings.push({ start: at + indent, end: at + line.trimEnd().length, title });
      }
      headedLast = true;
      at = next;
      continue;
    } else if (marked || !item || titled) {
      flush();
      const start = at + restAt + (line.slice(restAt).length - line.slice(restAt).trimStart().length);
      item = { start, end: at + line.trimEnd().length, ...(titled ? { runIn: runIn.trim() } : {}) };
    } else if (afterSentence && !/^\p{Ll}/u.test(rest)) {
      // A finished line ends its item ("...;" in a list without markers); a wrapped sentence goes on in lower case.
      flush();
      item = { start: at + restAt + (line.slice(restAt).length - line.slice(restAt).trimStart().length), end: at + line.trimEnd().length };
    } else {
      // A wrapped line goes on with the item above.
      item.end = at + line.trimEnd().length;
    }
    headedLast = false;
    at = next;
  }
  flush();
  return { clauses, headings };
}

/** The last texts' splits: a review splits each source for provenance and again for its terms. */
const recent = new Map<string, ClauseSplit>();
const RECENT = 256;

/** `splitClauses`, remembered for the last few hundred texts (treat the result as read-only). */
export function splitClausesOnce(text: string): ClauseSplit {
  let split = recent.get(text);
  if (!split) {
    split = splitClauses(text);
    if (recent.size >= RECENT) recent.delete(recent.keys().next().value!);
    recent.set(text, split);
  }
  return split;
}
