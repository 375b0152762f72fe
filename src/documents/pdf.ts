import { getDocumentProxy } from 'unpdf';
import type { DocumentLimits } from './limits';
import { DocumentError } from './types';

/**
 * The text layer of a PDF as Markdown-style text. A PDF has no paragraphs or headings, only
 * glyphs placed on pages, so lines are rebuilt from where pdf.js places its text items and
 * headings are inferred: from the outline (bookmarks) when it names lines of the text, else from
 * fonts (clearly larger than the body, or bold on a short line of their own).
 */

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;
type TextContentItem = Awaited<ReturnType<PdfPage['getTextContent']>>['items'][number];

/** What a PDF's text layer holds. */
export interface PdfText {
  text: string;
  headings: number;
  pages: number;
  /** Character offset in `text` at which each page starts; page 1 at 0. */
  pageStarts: number[];
  warnings: string[];
}

/** Acrobat requires `%%EOF` within the last 1,024 bytes; a file cut short (a failed download or copy) lacks it. */
const EOF_WINDOW = 1024;
/** Baselines closer than this share of the font size are one line (superscripts sit ~0.35 em up). */
const SAME_LINE = 0.5;
/** A horizontal gap wider than this share of the font size between two items is a space the PDF did not write. */
const WORD_GAP = 0.15;
/** A line spacing this much above the document's usual one starts a paragraph. */
const PARAGRAPH_GAP = 1.4;
/** A line set this much larger than the body (and at least a point) is a heading, if short. */
const LARGER = 1.15;
const MAX_HEADING_CHARS = 120;
/** A bold line is a heading only when this short: longer ones are emphasised sentences. */
const MAX_BOLD_HEADING_CHARS = 80;
/** Fonts whose weight is looked up (each costs a page's operator list); more is unusual and only costs headings. */
const MAX_FONT_LOOKUPS = 16;
const MAX_OUTLINE_ENTRIES = 5_000;
/** Pages searched for an outline entry's title: its destination page and the next (some generators point a page early), else from the last match on. */
const OUTLINE_SEARCH_PAGES = 2;
const OUTLINE_SEARCH_PAGES_UNPLACED = 20;
/** A line repeated at the top or bottom of at least this share of pages (and 3) is a running header or footer. */
const RUNNING_SHARE = 0.5;
/** Lines at each edge of a page examined as header or footer (a footer may hold a page number and a document reference). */
const EDGE_LINES = 2;
/** A header or footer stands this many of its font sizes apart from the body (body lines are ~1.2 apart, paragraphs ~1.8). */
const MARGIN_GAP = 2;
const PAGE_NUMBER = /^(?:page\s+)?[-\u2013\u2014]?\s*\d{1,5}\s*[-\u2013\u2014]?(?:\s*(?:of|\/)\s*\d{1,5})?$/i;

interface Line {
  text: string;
  /** Baseline, in PDF units from the page's bottom. */
  y: number;
  /** Where the line's text begins and ends across the page, in PDF units. */
  left: number;
  right: number;
  /** The font size and font (pdf.js's loaded name) of most of its characters. */
  size: number;
  font: string;
  /** Every character in the one font. */
  oneFont: boolean;
  /** Starts a paragraph (a larger gap above it, or the page's first line). */
  paragraph: boolean;
  heading?: number;
}

function isEncrypted(error: unknown): boolean {
  return error instanceof Error && error.name === 'PasswordException';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Node 20 lacks ArrayBuffer.prototype.transferToFixedLength (ES2024), which pdf.js uses to hand a
 * font to the main thread; without it no font can be inspected for boldness. Only the copying
 * half is needed here: the source buffer is dropped by pdf.js right after.
 */
function ensureTransferToFixedLength(): void {
  if (typeof (ArrayBuffer.prototype as { transferToFixedLength?: unknown }).transferToFixedLength === 'function') return;
  Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length: number = this.byteLength): ArrayBuffer {
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return copy;
    },
  });
}

function hasEndMarker(bytes: Uint8Array): boolean {
  const tail = new TextDecoder('latin1').decode(bytes.subarray(Math.max(0, bytes.length - EOF_WINDOW)));
  return tail.includes('%%EOF');
}

/** Lines from text items in content order: a baseline change starts a line; a wide gap within one is a space. */
function linesOf(items: readonly TextContentItem[]): Line[] {
  const lines: Line[] = [];
  let text = '';
  let y = 0;
  let size = 0;
  let start = 0;
  let end = 0;
  let chars = new Map<string, number>();
  let sizes = new Map<number, number>();
  const flush = () => {
    const trimmed = text.replace(/\s+/g, ' ').trim();
    if (trimmed !== '') {
      const top = <K>(counts: Map<K, number>) => [...counts].sort((a, b) => b[1] - a[1])[0]![0];
      lines.push({
        text: trimmed,
        y,
        left: start,
        right: end,
        size: top(sizes),
        font: top(chars),
        oneFont: chars.size === 1,
        paragraph: false,
      });
    }
    text = '';
    chars = new Map();
    sizes = new Map();
  };
  for (const item of items) {
    if (!('str' in item) || item.str === '') continue;
    const [a, b, , , x, itemY] = item.transform as number[];
    const itemSize = Math.hypot(a!, b!) || item.height;
    if (text !== '' && Math.abs(itemY! - y) > SAME_LINE * Math.max(size, itemSize)) flush();
    if (text === '') {
      y = itemY!;
      size = itemSize;
      start = x!;
    } else if (x! - end > WORD_GAP * itemSize && !/\s$/.test(text) && !/^\s/.test(item.str)) text += ' ';
    text += item.str;
    end = x! + item.width;
    const weight = item.str.replace(/\s/g, '').length;
    if (weight > 0) {
      chars.set(item.fontName, (chars.get(item.fontName) ?? 0) + weight);
      const rounded = Math.round(itemSize * 2) / 2;
      sizes.set(rounded, (sizes.get(rounded) ?? 0) + weight);
    }
  }
  flush();
  return lines;
}

const edgeKey = (line: Line) => line.text.toLowerCase().replace(/\d+/g, '#');

/** The body text's font size: the median size over all characters. */
function bodySize(pages: Line[][]): number {
  const weights = new Map<number, number>();
  for (const line of pages.flat()) weights.set(line.size, (weights.get(line.size) ?? 0) + line.text.length);
  return median([...weights]);
}

/**
 * The lines of a page's header and footer zones: up to two lines at its top (bottom) set apart from
 * the body by a gap of over two lines. By position, not content order: a header may come last.
 */
function marginLines(lines: Line[]): Line[] {
  const zone = (ordered: Line[]) => {
    for (let k = 0; k < Math.min(EDGE_LINES, ordered.length - 1); k++) {
      const [outer, inner] = [ordered[k]!, ordered[k + 1]!];
      if (Math.abs(outer.y - inner.y) > MARGIN_GAP * Math.max(outer.size, inner.size)) return ordered.slice(0, k + 1);
    }
    return [];
  };
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  return [...new Set([...zone(byHeight), ...zone([...byHeight].reverse())])];
}

/** The page's topmost and bottommost lines, where a bare page number stands. */
function extremeLines(lines: Line[]): Line[] {
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  return [byHeight[0], byHeight.at(-1)].filter((l) => l !== undefined);
}

/**
 * Drops page numbers and running headers/footers: a page's topmost or bottommost line that is a
 * page number, and lines in its header or footer zone that repeat on most pages in at most the
 * body's size (a bundle whose every page starts with the same large title keeps its titles).
 */
function dropRunningLines(pages: Line[][]): void {
  const body = bodySize(pages);
  const counts = new Map<string, number>();
  for (const lines of pages) {
    for (const key of new Set(marginLines(lines).map(edgeKey))) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const threshold = Math.max(3, Math.ceil(RUNNING_SHARE * pages.length));
  const repeated = (line: Line) => line.size <= body + 0.5 && (counts.get(edgeKey(line)) ?? 0) >= threshold;
  for (const lines of pages) {
    const drop = new Set([...extremeLines(lines).filter((l) => PAGE_NUMBER.test(l.text)), ...marginLines(lines).filter(repeated)]);
    if (drop.size > 0) lines.splice(0, lines.length, ...lines.filter((l) => !drop.has(l)));
  }
}

/** Marks paragraph starts: a baseline step clearly above the document's usual line spacing, or a step upwards (a new column). */
function markParagraphs(pages: Line[][]): void {
  const ratios: number[] = [];
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const step = lines[i - 1]!.y - lines[i]!.y;
      if (step > 0) ratios.push(step / Math.max(lines[i - 1]!.size, lines[i]!.size));
    }
  }
  ratios.sort((a, b) => a - b);
  // The lower quartile, not the median: in a document of one-line paragraphs most steps are paragraph gaps.
  const usual = ratios[Math.floor(ratios.length / 4)] ?? 1.2;
  for (const lines of pages) {
    lines.forEach((line, i) => {
      const previous = lines[i - 1];
      const step = previous ? previous.y - line.y : 0;
      line.paragraph = previous === undefined || step <= 0 || step / Math.max(previous.size, line.size) > usual * PARAGRAPH_GAP;
    });
  }
}

interface OutlineEntry {
  title: string;
  depth: number;
  /** 0-based page index, when its destination resolves. */
  page?: number;
}

async function outlineOf(pdf: PdfDocument): Promise<OutlineEntry[]> {
  const entries: OutlineEntry[] = [];
  const pageOf = async (dest: unknown): Promise<number | undefined> => {
    const resolved = typeof dest === 'string' ? await pdf.getDestination(dest) : dest;
    const target = Array.isArray(resolved) ? resolved[0] : undefined;
    if (typeof target === 'number') return target;
    return target && typeof target === 'object' ? await pdf.getPageIndex(target) : undefined;
  };
  const walk = async (nodes: readonly { title: string; dest: unknown; items: unknown[] }[], depth: number) => {
    for (const node of nodes) {
      if (entries.length >= MAX_OUTLINE_ENTRIES) return;
      const page = await pageOf(node.dest).catch(() => undefined);
      entries.push({ title: node.title, depth, ...(page !== undefined ? { page } : {}) });
      await walk(node.items as typeof nodes, depth + 1);
    }
  };
  // A broken outline only costs the headings it would have given.
  const outline = await pdf.getOutline().catch(() => null);
  await walk(outline ?? [], 0).catch(() => undefined);
  return entries;
}

/** Compared loosely: case, spacing, a leading clause number and trailing punctuation do not matter. */
const titleKey = (text: string) =>
  text
    .toLowerCase()
    .replace(/^\s*(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+/, '')
    .replace(/[\s.:;,\u2013\u2014-]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Headings from the outline: each entry marks the first line on its page or the next (else within
 * a few pages of the last match) whose text is its title; a title set over two lines joins them. True when at least half
 * the entries were found, so that an outline of page labels ("Page 3") does not stand in for headings.
 */
function headingsFromOutline(pages: Line[][], outline: OutlineEntry[]): boolean {
  if (outline.length === 0) return false;
  let found = 0;
  let from = { page: 0, line: 0 };
  for (const entry of outline) {
    const key = titleKey(entry.title);
    if (key === '') continue;
    const known = entry.page !== undefined && entry.page < pages.length;
    const start = known ? { page: entry.page!, line: 0 } : from;
    // A bounded search: an entry that names no line must not cost a scan of the whole document.
    const end = Math.min(pages.length, start.page + (known ? OUTLINE_SEARCH_PAGES : OUTLINE_SEARCH_PAGES_UNPLACED));
    search: for (let p = start.page; p < end; p++) {
      const lines = pages[p]!;
      for (let i = p === start.page ? start.line : 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (line.heading !== undefined) continue;
        const next = lines[i + 1];
        if (titleKey(line.text) === key) line.heading = Math.min(entry.depth + 1, 6);
        else if (next && next.heading === undefined && titleKey(`${line.text} ${next.text}`) === key) {
          line.text = `${line.text} ${next.text}`;
          line.heading = Math.min(entry.depth + 1, 6);
          lines.splice(i + 1, 1);
        } else continue;
        found++;
        from = { page: p, line: i + 1 };
        break search;
      }
    }
  }
  return found > 0 && found >= outline.length / 2;
}

function median(values: [number, number][]): number {
  const sorted = [...values].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, w]) => sum + w, 0);
  let seen = 0;
  for (const [value, weight] of sorted) {
    seen += weight;
    if (seen >= total / 2) return value;
  }
  return sorted[0]?.[0] ?? 0;
}

/** Whether a font is bold, asking pdf.js for the font object (loaded by one page's operator list). */
async function boldFonts(pdf: PdfDocument, wanted: Map<string, number>): Promise<Set<string>> {
  const bold = new Set<string>();
  let lookups = 0;
  for (const [font, pageIndex] of wanted) {
    try {
      const page = await pdf.getPage(pageIndex + 1);
      if (!page.commonObjs.has(font)) {
        if (lookups++ >= MAX_FONT_LOOKUPS) continue;
        await page.getOperatorList();
      }
      if (!page.commonObjs.has(font)) continue;
      const info = page.commonObjs.get(font) as { name?: string; bold?: boolean; black?: boolean };
      if (info.bold || info.black || /bold|black|heavy|semibold|demi/i.test(info.name ?? '')) bold.add(font);
    } catch {
      // A font that cannot be loaded is taken as regular.
    }
  }
  return bold;
}

/** True when the line's first word would not have fitted at the end of the line before: the text wrapped there, it did not end. */
function wrapped(previous: Line, line: Line, textRight: number): boolean {
  const charWidth = (line.right - line.left) / Math.max(1, line.text.length);
  const firstWord = (line.text.split(' ')[0]?.length ?? 0) + 1;
  return previous.right + firstWord * charWidth > textRight;
}

/**
 * Lines that continue one another in one size and font: a title wrapped over two lines is one
 * run; a heading above body text, or two short headings one under the other, are not.
 */
function runsOf(lines: Line[]): Line[][] {
  const textRight = Math.max(...lines.map((l) => l.right));
  const runs: Line[][] = [];
  for (const line of lines) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    const continues = last && !line.paragraph && line.size === last.size && line.font === last.font && line.oneFont === last.oneFont;
    if (run && last && continues && wrapped(last, line, textRight)) run.push(line);
    else runs.push([line]);
  }
  return runs;
}

/**
 * Headings from fonts: runs of lines set clearly larger than the body (the character-weighted
 * median size), one level per distinct size, largest first; then short runs entirely in a bold
 * font other than the body's, one level below those. A heading's lines join into one.
 */
async function headingsFromFonts(pdf: PdfDocument, pages: Line[][]): Promise<Line[][]> {
  const fontWeights = new Map<string, number>();
  for (const line of pages.flat()) fontWeights.set(line.font, (fontWeights.get(line.font) ?? 0) + line.text.length);
  const body = bodySize(pages);
  const bodyFont = [...fontWeights].sort((a, b) => b[1] - a[1])[0]?.[0];
  const runs = pages.map((lines) => runsOf(lines).map((run) => ({ lines: run, text: run.map((l) => l.text).join(' '), first: run[0]! })));
  const headingLike = (text: string, maxChars: number) => text.length <= maxChars && /\p{L}/u.test(text) && !/[,;]$/.test(text);
  const larger = (run: { text: string; first: Line }) =>
    run.first.size >= body * LARGER && run.first.size - body >= 1 && headingLike(run.text, MAX_HEADING_CHARS);
  const emphasised = (run: { text: string; first: Line }) =>
    run.first.oneFont && run.first.font !== bodyFont && run.first.size < body * LARGER && headingLike(run.text, MAX_BOLD_HEADING_CHARS);
  const sizes = [
    ...new Set(
      runs
        .flat()
        .filter(larger)
        .map((r) => r.first.size),
    ),
  ]
    .sort((a, b) => b - a)
    .slice(0, 5);
  const wanted = new Map<string, number>();
  runs.forEach((pageRuns, p) => {
    for (const run of pageRuns) if (emphasised(run) && !wanted.has(run.first.font)) wanted.set(run.first.font, p);
  });
  const bold = wanted.size > 0 ? await boldFonts(pdf, wanted) : new Set<string>();
  return runs.map((pageRuns) =>
    pageRuns.flatMap((run) => {
      const level = larger(run) ? sizes.indexOf(run.first.size) + 1 : emphasised(run) && bold.has(run.first.font) ? sizes.length + 1 : 0;
      return level > 0 ? [{ ...run.first, text: run.text, heading: Math.min(level, 6) }] : run.lines;
    }),
  );
}

/** "2, 5-7, 9" (at most ten ranges, then "..."). */
function pageList(pages: number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j]! + 1) j++;
    ranges.push(i === j ? `${pages[i]}` : `${pages[i]}-${pages[j]}`);
    i = j + 1;
  }
  return ranges.length > 10 ? `${ranges.slice(0, 10).join(', ')}, ...` : ranges.join(', ');
}

/** A line that starts a list item or clause ("4.2 ", "a) ", "(iii) ", "- "): never the continuation of the line above. */
const ITEM_START = /^(?:\d+(?:\.\d+)*[.)]?|[a-z][.)]|\([a-z0-9]{1,4}\)|[ivxlc]{1,6}[.)]|[-\u2022*\u2013])\s/i;
/** A sentence ending a line and a capital starting the next: as likely a new paragraph as a wrap, and a wrong join hides a heading. */
const SENTENCE_END = /[.:;!?]["'\u201d\u2019)\]]?$/;
const SENTENCE_START = /^["'\u201c\u2018(]?[\p{Lu}\d]/u;

/** True when a line continues the line above it: same size, not a list item, and the line above was full (the text wrapped). */
function continues(previous: Line, line: Line, textRight: number): boolean {
  if (Math.abs(line.size - previous.size) > 0.5 || ITEM_START.test(line.text)) return false;
  if (SENTENCE_END.test(previous.text) && SENTENCE_START.test(line.text)) return false;
  return wrapped(previous, line, textRight);
}

/**
 * The text with headings as `#` lines, one line per paragraph, paragraphs apart by a blank line,
 * and where each page starts. Lines the PDF wrapped at the margin are joined, with a space or,
 * after a word ending in a hyphen or slash ("non-", "and/"), without; so a clause is one line, as
 * in the other formats and as the merge task's section splitter reads it. A line that ends short
 * or with a sentence, a gap, a heading, or a line starting like a list item keeps its break.
 */
function emit(pages: Line[][]): { text: string; headings: number; pageStarts: number[] } {
  let text = '';
  let headings = 0;
  const pageStarts: number[] = [];
  let previous: { line: Line; textRight: number } | undefined;
  for (const lines of pages) {
    const textRight = Math.max(0, ...lines.map((l) => l.right));
    for (const [i, line] of lines.entries()) {
      const heading = line.heading !== undefined;
      let separator = '';
      if (previous) {
        // Page breaks say nothing of paragraphs: a page's first line continues the text unless a gap or heading says otherwise.
        if (heading || previous.line.heading !== undefined || (line.paragraph && i > 0)) separator = '\n\n';
        else if (continues(previous.line, line, previous.textRight)) {
          separator = /\S[-/]$/.test(previous.line.text) ? '' : ' ';
        } else separator = '\n';
      }
      text += separator;
      if (i === 0) pageStarts.push(text.length);
      text += heading ? `${'#'.repeat(line.heading!)} ${line.text}` : line.text;
      if (heading) headings++;
      previous = { line, textRight };
    }
    if (lines.length === 0) pageStarts.push(text.length);
  }
  return { text, headings, pageStarts };
}

/**
 * Reads a PDF's text layer; throws DocumentError for an encrypted, damaged, truncated or scanned
 * (no text at all) PDF, or one over the page or character limit. Pages without text in an
 * otherwise readable PDF are accepted with a warning.
 */
export async function readPdf(bytes: Uint8Array, context: { file: string; limits: DocumentLimits }): Promise<PdfText> {
  const { file, limits } = context;
  const damaged = (detail: string) => new DocumentError(file, `the PDF is damaged or truncated: ${detail}`);
  if (!hasEndMarker(bytes)) throw damaged(`it does not end with an end-of-file marker (%%EOF), so its end is missing`);
  ensureTransferToFixedLength();
  let pdf: PdfDocument;
  try {
    // A copy: pdf.js takes ownership of (and may detach) the buffer it is given.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    if (isEncrypted(error)) throw new DocumentError(file, 'the PDF is encrypted (password-protected); save an unprotected copy');
    throw damaged(messageOf(error));
  }
  try {
    const total = pdf.numPages;
    if (total > limits.maxPdfPages) {
      throw new DocumentError(
        file,
        `the PDF has ${total.toLocaleString('en-US')} pages; at most ${limits.maxPdfPages.toLocaleString('en-US')} are allowed`,
      );
    }
    const pages: Line[][] = [];
    let chars = 0;
    for (let p = 1; p <= total; p++) {
      const page = await pdf.getPage(p);
      const lines = linesOf((await page.getTextContent()).items);
      page.cleanup();
      pages.push(lines);
      chars += lines.reduce((sum, l) => sum + l.text.length + 1, 0);
      if (chars > limits.maxChars) {
        throw new DocumentError(
          file,
          `the PDF's text passes ${limits.maxChars.toLocaleString('en-US')} characters by page ${p} of ${total}; at most ${limits.maxChars.toLocaleString('en-US')} are allowed per document`,
        );
      }
    }
    dropRunningLines(pages);
    const blank = pages.flatMap((lines, i) => (lines.length === 0 ? [i + 1] : []));
    if (blank.length === total) {
      throw new DocumentError(
        file,
        `a scanned PDF without a text layer: ${blank.length} of ${total} page${total === 1 ? ' has' : 's have'} no text; run OCR on it first`,
      );
    }
    const warnings =
      blank.length > 0
        ? [
            `page${blank.length === 1 ? '' : 's'} ${pageList(blank)} of ${total} ${blank.length === 1 ? 'has' : 'have'} no text layer (scanned?); ${blank.length === 1 ? 'its' : 'their'} content is missing from the text`,
          ]
        : [];
    markParagraphs(pages);
    let marked = pages;
    if (!headingsFromOutline(pages, await outlineOf(pdf))) {
      for (const line of pages.flat()) delete line.heading;
      marked = await headingsFromFonts(pdf, pages);
    }
    return { ...emit(marked), pages: total, warnings };
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    if (isEncrypted(error)) throw new DocumentError(file, 'the PDF is encrypted (password-protected); save an unprotected copy');
    throw damaged(messageOf(error));
  } finally {
    await pdf.loadingTask.destroy();
  }
}
