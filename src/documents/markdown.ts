import { PREAMBLE_TITLE, splitDocument } from '../tasks/doc-merge/headings';

/**
 * Markdown and plain text as read: kept as written, with line ends normalised. What the other
 * readers produce is Markdown-style text too, so its headings are counted here. Pure.
 */

/** CRLF and lone CR (old Mac) line ends as LF; the engine's offsets and the merge prompts assume LF. */
export function normaliseLineEnds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

const ATX = /^ {0,3}#{1,6}(?:[ \t]+\S.*)?$/;
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/** Markdown headings (ATX `#` lines and setext underlined ones), not counting lines inside fenced code. */
export function countMarkdownHeadings(text: string): number {
  let count = 0;
  let fence: string | undefined;
  let previous = '';
  for (const line of text.split('\n')) {
    const opens = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (opens === fence) fence = undefined;
    } else if (opens) fence = opens;
    else if (ATX.test(line) && /\S/.test(line.replace(/#/g, ''))) count++;
    // A `---` under a paragraph line is its underline; under a blank line it is a rule.
    else if (SETEXT.test(line) && previous.trim() !== '' && !ATX.test(previous) && !SETEXT.test(previous)) count++;
    previous = fence === undefined ? line : '';
  }
  return count;
}

/** Headings of plain text: the sections the merge task's own splitter finds (numbered clauses, ARTICLE/Section lines, CAPS titles). */
export function countTextHeadings(text: string): number {
  return splitDocument(text).filter((s) => !(s.number === 0 && s.title === PREAMBLE_TITLE)).length;
}

/** A Markdown document's text and headings, kept as written. */
export function readMarkdown(text: string): { text: string; headings: number } {
  const normalised = normaliseLineEnds(text);
  return { text: normalised, headings: countMarkdownHeadings(normalised) };
}

/** A plain-text document's text and headings, kept as written. */
export function readText(text: string): { text: string; headings: number } {
  const normalised = normaliseLineEnds(text);
  return { text: normalised, headings: countTextHeadings(normalised) };
}
