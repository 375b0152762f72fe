import TurndownService from 'turndown';
import { countMarkdownHeadings } from './markdown';

/**
 * HTML to the Markdown-style text the engine reads: h1-h6 as `#` headings, list items as "1." /
 * "-" lines, table rows as lines, everything else as paragraphs of plain words. Inline formatting
 * (bold, links, code) is dropped rather than written as Markdown: the text is quoted, searched and
 * compared word for word downstream, where `**` and `](url)` would be noise. Turndown does the
 * whitespace and block handling; docx.ts feeds mammoth's HTML through here too.
 */

/** The DOM nodes turndown hands to rules (a domino DOM in Node); only what the rules below read. */
interface DomNode {
  nodeName: string;
  parentNode: DomNode | null;
  children: ArrayLike<DomNode>;
  getAttribute(name: string): string | null;
}

const ROMAN: [number, string][] = [
  [1000, 'm'],
  [900, 'cm'],
  [500, 'd'],
  [400, 'cd'],
  [100, 'c'],
  [90, 'xc'],
  [50, 'l'],
  [40, 'xl'],
  [10, 'x'],
  [9, 'ix'],
  [5, 'v'],
  [4, 'iv'],
  [1, 'i'],
];

/** Lower-case roman numeral, as Word and browsers write list numbers ("iv"). */
export function romanNumeral(n: number): string {
  let rest = n;
  let out = '';
  for (const [value, digits] of ROMAN) {
    while (rest >= value) {
      out += digits;
      rest -= value;
    }
  }
  return out;
}

/** Lower-case letter numbering as Word writes it: a..z, then aa, bb, ... */
export function letterNumeral(n: number): string {
  return String.fromCharCode(97 + ((n - 1) % 26)).repeat(Math.floor((n - 1) / 26) + 1);
}

/** A list number in an `<ol type>` style: 1, a, A, i, I. */
function listNumber(n: number, type: string | null): string {
  switch (type) {
    case 'a':
      return letterNumeral(n);
    case 'A':
      return letterNumeral(n).toUpperCase();
    case 'i':
      return romanNumeral(n);
    case 'I':
      return romanNumeral(n).toUpperCase();
    default:
      return String(n);
  }
}

/** The marker of a list item: its number as the browser would show it ("3.", honouring start, value and type), or "-". */
function itemMarker(node: DomNode): string {
  const list = node.parentNode;
  if (list?.nodeName !== 'OL') return '-';
  let n = Number(list.getAttribute('start') ?? '1');
  if (!Number.isFinite(n)) n = 1;
  for (const item of Array.from(list.children)) {
    if (item.nodeName !== 'LI') continue;
    const value = Number(item.getAttribute('value') ?? Number.NaN);
    if (Number.isFinite(value)) n = value;
    if (item === node) break;
    n++;
  }
  return `${listNumber(n, node.getAttribute('type') ?? list.getAttribute('type'))}.`;
}

/** Ends a table cell's text until its row joins the cells (a private-use character, never in a document's text). */
const CELL_END = '\ue001';

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

function converter(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', bulletListMarker: '-', br: '' });
  // The text is the document's words, not Markdown source: "1. ", "[Date]" and "*" stay as written.
  service.escape = (text: string) => text;
  service.remove([
    'script',
    'style',
    'nav',
    'noscript',
    'template',
    'head',
    'title',
    'iframe',
    'object',
    'embed',
    'svg',
    'canvas',
    'button',
    'select',
  ]);
  service.addRule('inline', {
    filter: ['strong', 'b', 'em', 'i', 'u', 'code', 'kbd', 'mark', 'small', 'sup', 'sub'],
    replacement: (content) => content,
  });
  service.addRule('link', {
    filter: 'a',
    // mammoth's footnote back-links ("↑") point at the reference; the footnote text itself is kept.
    replacement: (content, node) =>
      /^#(?:foot|end)note-ref-/.test((node as unknown as DomNode).getAttribute('href') ?? '') ? '' : content,
  });
  service.addRule('image', { filter: 'img', replacement: () => '' });
  service.addRule('rule', { filter: 'hr', replacement: () => '\n\n' });
  service.addRule('quote', { filter: ['blockquote', 'pre'], replacement: (content) => `\n\n${content}\n\n` });
  service.addRule('heading', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, node) => {
      const text = collapse(content);
      return text === '' ? '' : `\n\n${'#'.repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n`;
    },
  });
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const prefix = `${itemMarker(node as unknown as DomNode)} `;
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '')
        .replace(/\n/g, `\n${' '.repeat(prefix.length)}`);
      return `${prefix}${body}${node.nextSibling ? '\n' : ''}`;
    },
  });
  service.addRule('tableCell', { filter: ['td', 'th'], replacement: (content) => `${collapse(content)}${CELL_END}` });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content) => {
      const cells = content.split(CELL_END).map(collapse);
      while (cells.length > 0 && cells.at(-1) === '') cells.pop();
      return cells.length === 0 ? '' : `\n${cells.join(' | ')}\n`;
    },
  });
  return service;
}

let shared: TurndownService | undefined;

/** HTML (a page or a fragment) as Markdown-style text: ATX headings, numbered and bulleted list lines, table rows as "a | b" lines. */
export function htmlToText(html: string): string {
  shared ??= converter();
  return (
    shared
      .turndown(html)
      .replace(/\u00a0/g, ' ')
      .replace(/\ue001/g, ' ')
      .replace(/[ \t]+$/gm, '')
      // Empty paragraphs (spacing in word processors) leave runs of blank lines.
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** An HTML document's text and headings. */
export function readHtml(html: string): { text: string; headings: number } {
  const text = htmlToText(html);
  return { text, headings: countMarkdownHeadings(text) };
}
