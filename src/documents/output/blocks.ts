/**
 * A merged text cut into what a reader sees: headings, numbered clauses and paragraphs, each with
 * its span in the text, so the writers can lay it out and hang each block's sources beside it.
 * Pure; the text itself is never changed, only located.
 */

/** What a block of a merged text is. */
export type BlockKind = 'heading' | 'clause' | 'paragraph';

/** One heading, numbered clause or paragraph of a merged text. */
export interface Block {
  kind: BlockKind;
  /** Heading: 1 (the document's title) to 3; clause: the depth of its number (1 for "4.", 2 for "4.2"). */
  level: number;
  /** The number of a numbered clause or heading, digits and dots only ("4.2"). */
  number?: string;
  /** The number as written ("4.2", "4.", "1)"); keyword headings ("ARTICLE IV - LAW") keep theirs in the text. */
  marker?: string;
  /** [start, end) of the whole block in the merged text, marker included. */
  start: number;
  end: number;
  /** Where the block's words start (after any `#` or number). */
  textStart: number;
}

/** A heading is at most this many words; longer lines are sentences. */
const TITLE_WORDS = 12;
const MARKDOWN = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/d;
const NUMBERED = /^[ \t]*((\d{1,3}(?:\.\d{1,3})*)[.)]?)[ \t]+(\S.*?)[ \t]*$/d;
const KEYWORD = /^\s*(?:article|section|clause|part|schedule|annex|§)\s*(?:\d{1,3}(?:\.\d{1,3})*|[ivxlcdm]{1,7})\b/i;

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
/** Every word of four letters or more capitalised, as headings are written ("Limitation of Liability."). */
const titleCase = (s: string) => (s.match(/[A-Za-z]{4,}/g) ?? []).every((w) => w[0] === w[0]!.toUpperCase());

/** A line that reads as a title: short, one phrase, not a sentence (unless written in title case). */
function titleLike(s: string): boolean {
  const text = s.trim();
  if (!/^["'\u201c\u2018(]?[A-Z0-9]/.test(text) || words(text) > TITLE_WORDS) return false;
  if (/[.!?;:]\s+\S/.test(text)) return false;
  return !/[.!?;,]$/.test(text) || titleCase(text);
}

const capsLine = (s: string) => /[A-Z]{2}/.test(s) && !/[a-z]/.test(s) && words(s) <= TITLE_WORDS;

interface Line {
  start: number;
  end: number;
  text: string;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (const raw of text.split('\n')) {
    const body = raw.replace(/\r$/, '');
    lines.push({ start, end: start + body.length, text: body });
    start += raw.length + 1;
  }
  return lines;
}

/**
 * Cuts a merged text into blocks. A blank line ends a paragraph; a heading (`#`, a short numbered
 * or keyword line, an ALL-CAPS line, the first line when it reads as a title) or a new clause number
 * starts a new block; other lines continue the block before them.
 */
export function blocksOf(merged: string): Block[] {
  const blocks: Block[] = [];
  // Markdown levels as written; ranked to 1..3 once the whole text is seen.
  const markdownLevel = new Map<Block, number>();
  let open: Block | undefined;
  for (const line of linesOf(merged)) {
    const trimmed = line.text.trim();
    if (trimmed === '') {
      open = undefined;
      continue;
    }
    const first = blocks.length === 0;
    const md = MARKDOWN.exec(line.text);
    if (md) {
      open = undefined;
      const [from, to] = md.indices![2]!;
      if (from === to) continue;
      const numbered = NUMBERED.exec(md[2]!);
      const block: Block = {
        kind: 'heading',
        level: 2,
        start: line.start + md.indices![1]![0],
        end: line.start + to,
        textStart: line.start + from + (numbered ? numbered.indices![3]![0] : 0),
        ...(numbered ? { number: numbered[2]!, marker: numbered[1]! } : {}),
      };
      markdownLevel.set(block, md[1]!.length);
      blocks.push(block);
      continue;
    }
    const numbered = NUMBERED.exec(line.text);
    if (numbered) {
      const number = numbered[2]!;
      const depth = number.split('.').length;
      const rest = numbered[3]!;
      const at = (group: number) => line.start + numbered.indices![group]![0];
      const common = { number, marker: numbered[1]!, start: at(1), end: line.start + numbered.indices![3]![1], textStart: at(3) };
      // "4. Term" is a section heading; "4. The term is two years." and "4.2 ..." with a sentence are clauses.
      const heading = titleLike(rest) && (titleCase(rest) ? depth === 1 || words(rest) <= 6 : depth === 1 && words(rest) <= 5);
      const block: Block = heading ? { kind: 'heading', level: 1 + depth, ...common } : { kind: 'clause', level: depth, ...common };
      blocks.push(block);
      open = heading ? undefined : block;
      continue;
    }
    const start = line.start + (line.text.length - line.text.trimStart().length);
    const end = line.start + line.text.trimEnd().length;
    const isTitle = first && titleLike(trimmed);
    if (isTitle || ((KEYWORD.test(trimmed) || capsLine(trimmed)) && titleLike(trimmed))) {
      blocks.push({ kind: 'heading', level: isTitle ? 1 : 2, start, end, textStart: start });
      open = undefined;
      continue;
    }
    if (open) open.end = end;
    else {
      open = { kind: 'paragraph', level: 0, start, end, textStart: start };
      blocks.push(open);
    }
  }
  rankMarkdownLevels(blocks, markdownLevel);
  for (const b of blocks) if (b.kind === 'heading') b.level = Math.min(3, b.level);
  return blocks;
}

/**
 * `#` headings take levels by rank: the first block is the title (1) when it is a plain title line,
 * or a `#` heading above all the others; the other headings then rank from 2, else from 1.
 */
function rankMarkdownLevels(blocks: Block[], written: Map<Block, number>): void {
  if (written.size === 0) return;
  const first = blocks[0]!;
  const others = [...written].filter(([b]) => b !== first).map(([, level]) => level);
  const firstLevel = written.get(first);
  const titled =
    first.kind === 'heading' &&
    (firstLevel === undefined ? first.level === 1 : first.number === undefined && others.every((l) => l > firstLevel));
  const ranks = [...new Set(others)].sort((a, b) => a - b);
  const base = titled ? 2 : 1;
  for (const [b, level] of written) b.level = b === first && titled ? 1 : base + ranks.indexOf(level);
}

/**
 * Whether Word's own numbering would print every numbered block's number as written: "1.", "1.1",
 * "1.2", "2." in order, no gaps, no restart. Only then do the writers hand the numbers to Word (real
 * numbered paragraphs); otherwise they keep the numbers as text, since a clause's number is what
 * other clauses and people refer to and must not change.
 */
export function numberedLikeWord(blocks: readonly Block[]): boolean {
  const counters: number[] = [];
  let any = false;
  for (const b of blocks) {
    if (b.number === undefined) continue;
    any = true;
    const parts = b.number.split('.').map(Number);
    const depth = parts.length - 1;
    if (depth > 2) return false;
    counters.length = Math.max(counters.length, depth + 1);
    for (let i = 0; i < depth; i++) counters[i] ??= 0;
    counters[depth] = (counters[depth] ?? 0) + 1;
    counters.length = depth + 1;
    if (counters.join('.') !== parts.join('.')) return false;
  }
  return any;
}
