import mammoth from 'mammoth';
import { htmlToText, letterNumeral, romanNumeral } from './html';
import { type DocumentLimits, formatBytes } from './limits';
import { countMarkdownHeadings } from './markdown';
import { DocumentError } from './types';
import { listZip } from './zip';

/**
 * A Word document (DOCX) as Markdown-style text: mammoth turns it into HTML keeping heading styles
 * as h1-h6, and html.ts turns that into text. List numbers are not in a DOCX's text (Word computes
 * them), so they are computed here and written into the paragraphs before mammoth renders them.
 */

/** The part of mammoth's document model the numbering pass reads and writes. */
interface Element {
  type: string;
  children?: Element[];
  value?: string;
  /** A list paragraph's level; one object per level of one list definition (w:abstractNum), shared by its paragraphs. */
  numbering?: { isOrdered: boolean; level: string } | null;
}

/** Stands for a space of a nested item's indent through HTML, whose whitespace rules would drop real spaces at a line start. */
const INDENT = '\ue000';

/** Word's default multilevel numbering: 1. / a. / i., repeating below the third level. */
function levelNumber(level: number, n: number): string {
  const style = level % 3;
  return style === 0 ? `${n}.` : style === 1 ? `${letterNumeral(n)}.` : `${romanNumeral(n)}.`;
}

/**
 * Writes each list paragraph's number into its text and makes it a plain paragraph: "1. ", "a. ",
 * "- " for bullets, nested levels indented three spaces a level. A count runs per list definition
 * and level, so a list continues after the body paragraphs between its items (as in Word, where
 * clause 2 follows clause 1's text) while a different list starts at 1; an item resets the counts
 * of deeper levels. mammoth does not expose Word's restart overrides or custom number formats, so
 * those read as Word's defaults.
 */
function numberLists(document: Element): Element {
  const counts = new Map<object, { level: number; count: number }>();
  const visit = (element: Element) => {
    const numbering = element.type === 'paragraph' ? element.numbering : undefined;
    if (numbering) {
      const level = Number(numbering.level) || 0;
      for (const entry of counts.values()) if (entry.level > level) entry.count = 0;
      const entry = counts.get(numbering) ?? { level, count: 0 };
      entry.count++;
      counts.set(numbering, entry);
      const marker = numbering.isOrdered ? levelNumber(level, entry.count) : '-';
      element.children = [{ type: 'text', value: `${INDENT.repeat(3 * level)}${marker} ` }, ...(element.children ?? [])];
      element.numbering = null;
    }
    for (const child of element.children ?? []) visit(child);
  };
  visit(document);
  return document;
}

/** Beyond mammoth's defaults (Heading 1-6 as h1-h6): Word's Title and Subtitle styles are headings too. */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

/** What a DOCX holds, as text with `#` headings and numbered lines. */
export interface DocxText {
  text: string;
  headings: number;
}

/** Reads a DOCX; throws DocumentError when it is damaged, truncated, or its main part is over the limit. */
export async function readDocx(bytes: Uint8Array, context: { file: string; limits: DocumentLimits }): Promise<DocxText> {
  const { file, limits } = context;
  const { entries, complete } = listZip(bytes);
  if (!complete) throw new DocumentError(file, 'the DOCX is damaged or truncated: its end (the ZIP directory) is missing');
  const main = entries.find((e) => e.name === 'word/document.xml');
  if (main && (main.uncompressedSize ?? Number.POSITIVE_INFINITY) > limits.maxDocxXmlBytes) {
    const size = main.uncompressedSize === undefined ? 'over 4 GB' : formatBytes(main.uncompressedSize);
    throw new DocumentError(file, `the DOCX unpacks to ${size} of text markup; at most ${formatBytes(limits.maxDocxXmlBytes)} are allowed`);
  }
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        transformDocument: numberLists,
        externalFileAccess: false,
        // Images carry no text; the default would inline each as a base64 data URI.
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      },
    );
    // mammoth's messages (unknown styles, unsupported elements) describe formatting it dropped, not lost text.
    html = result.value;
  } catch (error) {
    // The XML parser's messages run over several lines with a position marker; the first line says what broke.
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/\s+/g, ' ').trim();
    throw new DocumentError(file, `the DOCX is damaged or truncated: ${message}`);
  }
  const text = htmlToText(html).replace(/\ue000/g, ' ');
  return { text, headings: countMarkdownHeadings(text) };
}
