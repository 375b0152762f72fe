import type { DocumentFormat } from './types';
import { isZip, listZip } from './zip';

/**
 * What a file is, told by its content (magic bytes and structure), never by its name: users rename
 * files, and mail and download tools append or drop extensions. Pure.
 */

/** A file recognised as a document; text formats come with their decoded text. */
export type Sniffed = { format: 'pdf' | 'docx' } | { format: 'html' | 'markdown' | 'text'; text: string };

/** Acrobat accepts the `%PDF-` header anywhere in the first 1,024 bytes (after junk some generators prepend); so does pdf.js. */
const PDF_HEADER_WINDOW = 1024;
/** The same share as the merge task's own check on a document's text (dataset.ts), so what passes here passes there. */
const MAX_UNPRINTABLE_SHARE = 0.05;
/** Markup is recognised from the start of a file; a later tag in prose does not make it HTML. */
const HTML_HEAD_CHARS = 4096;

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

function startsWithAt(bytes: Uint8Array, magic: readonly number[], at: number): boolean {
  return magic.every((b, i) => bytes[at + i] === b);
}

/** True when a PDF header lies in the first 1,024 bytes. */
export function isPdf(bytes: Uint8Array): boolean {
  const window = Math.min(bytes.length - PDF_MAGIC.length, PDF_HEADER_WINDOW);
  for (let at = 0; at <= window; at++) if (bytes[at] === 0x25 && startsWithAt(bytes, PDF_MAGIC, at)) return true;
  return false;
}

/** A ZIP that holds a Word main document part; a truncated one counts when a surviving entry lies under `word/`. */
export function isDocx(bytes: Uint8Array): boolean {
  if (!isZip(bytes)) return false;
  const { entries, complete } = listZip(bytes);
  return complete ? entries.some((e) => e.name === 'word/document.xml') : entries.some((e) => e.name.startsWith('word/'));
}

/**
 * The bytes as text: UTF-8 (with or without a BOM), UTF-16 with a BOM, else Windows-1252 (what
 * older editors write); undefined when they do not look like text (NUL characters, or more than a
 * few unprintable ones).
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  else {
    const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      text = new TextDecoder('windows-1252').decode(body);
    }
  }
  if (text.includes('\u0000')) return undefined;
  // C0/C1 controls other than tab, line breaks and form feed (a page break in text files), and U+FFFD from undecodable bytes.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  const unprintable = text.match(/[\u0001-\u0008\u000b\u000e-\u001f\u007f-\u009f\ufffd]/g)?.length ?? 0;
  return unprintable <= MAX_UNPRINTABLE_SHARE * text.length ? text : undefined;
}

const HTML_START = /^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b/i;
const HTML_TAG = /<(?:h[1-6]|p|div|table|ul|ol|li|br|span|section|article|main|b|i|strong|em|a)\b[^>]*>/gi;
const HTML_CLOSING_TAG = /<\/(?:h[1-6]|p|div|table|ul|ol|li|section|article|main)>/gi;

function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, HTML_HEAD_CHARS).trimStart();
  if (HTML_START.test(head)) return true;
  // A fragment (what "save as HTML" of a selection, or a mail body, gives): it starts with a tag and closes block tags.
  return head.startsWith('<') && (head.match(HTML_CLOSING_TAG)?.length ?? 0) >= 1 && (head.match(HTML_TAG)?.length ?? 0) >= 1;
}

/** Markup that is not HTML (SVG, other XML) or RTF: text, but reading it as a document would give its markup, not its words. */
function looksLikeOtherMarkup(text: string): boolean {
  const head = text.slice(0, HTML_HEAD_CHARS).trimStart();
  return head.startsWith('{\\rtf') || /^<\?xml\b/.test(head) || /^<svg\b/i.test(head);
}

const ATX_HEADING = /^ {0,3}#{1,6}[ \t]+\S/m;
const SETEXT_UNDERLINE = /^[^\s#>\-*=|].*\n {0,3}(?:={3,}|-{3,})[ \t]*$/m;
const FENCE = /^ {0,3}(?:```|~~~)/m;
const TABLE_RULE = /^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*\|/m;
const LINK = /\[[^\]\n]+\]\((?:https?:|mailto:|#|\.{0,2}\/)[^)\s]*\)/g;
const STRONG = /(?:\*\*|__)\S[^\n]*?\S(?:\*\*|__)/g;

/**
 * Markdown when it has ATX headings, setext underlines, fences or tables; or links and bold text
 * together. Numbered clauses, dashes and bracketed blanks ("[Date]") are as common in plain-text
 * contracts, so they do not count.
 */
function looksLikeMarkdown(text: string): boolean {
  if (ATX_HEADING.test(text) || SETEXT_UNDERLINE.test(text) || FENCE.test(text) || TABLE_RULE.test(text)) return true;
  return (text.match(LINK)?.length ?? 0) + (text.match(STRONG)?.length ?? 0) >= 2;
}

/** The document a file holds and, for text formats, its text; undefined when it is none of the supported formats. */
export function sniffDocument(bytes: Uint8Array): Sniffed | undefined {
  if (isPdf(bytes)) return { format: 'pdf' };
  if (isZip(bytes)) return isDocx(bytes) ? { format: 'docx' } : undefined;
  const text = decodeText(bytes);
  if (text === undefined) return undefined;
  // HTML first: XHTML starts with an XML declaration too.
  if (looksLikeHtml(text)) return { format: 'html', text };
  if (looksLikeOtherMarkup(text)) return undefined;
  return { format: looksLikeMarkdown(text) ? 'markdown' : 'text', text };
}

/** The format of a document by its content: PDF, DOCX, HTML, Markdown or plain text; undefined for anything else. */
export function detectFormat(bytes: Uint8Array): DocumentFormat | undefined {
  return sniffDocument(bytes)?.format;
}

/** What an unsupported file looks like, for the refusal: "a ZIP archive that is not a Word document", ... */
export function describeUnsupported(bytes: Uint8Array): string {
  if (isZip(bytes)) return 'a ZIP archive that is not a Word document, e.g. a spreadsheet, presentation or OpenDocument file';
  if (startsWithAt(bytes, [0xd0, 0xcf, 0x11, 0xe0], 0))
    return 'an old-style Office file (.doc, .xls) or a password-protected Office document; save it as DOCX without a password';
  if (startsWithAt(bytes, [0x89, 0x50, 0x4e, 0x47], 0) || startsWithAt(bytes, [0xff, 0xd8, 0xff], 0)) {
    return 'an image; run OCR on it and save the text as PDF or DOCX';
  }
  const text = decodeText(bytes);
  if (text?.trimStart().startsWith('{\\rtf')) return 'an RTF file; save it as DOCX';
  if (text !== undefined) return 'XML or SVG markup, not a document';
  return 'binary data of an unknown kind';
}
