import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Resvg } from '@resvg/resvg-js';
import { AlignmentType, Document, HeadingLevel, LevelFormat, Packer, Paragraph } from 'docx';
import PDFDocument from 'pdfkit';
import { parseDocMergeCsv } from '../../src/tasks/doc-merge/dataset';
import { readSharedData } from './tasks';

/**
 * Documents as users bring them, made at test time from a plain-text NDA (documents.csv): DOCX with
 * a real Heading style and Word numbering, PDF with a larger title font and wrapped lines, an
 * image-only "scanned" PDF, an encrypted PDF, HTML and Markdown, and broken files. Exported for
 * every test that needs a data room folder of mixed formats.
 */

/** The NDAs of documents.csv, by sample: `ndaSamples()[0]` holds sample 0's four documents. */
export function ndaSamples(): string[][] {
  return parseDocMergeCsv(readSharedData('documents.csv')).map((s) => s.problem.documents);
}

/** A line of an NDA as the fixtures lay it out: the title, a numbered clause (1.), a lettered item under one (a.), or a paragraph line. */
export interface NdaLine {
  kind: 'title' | 'clause' | 'item' | 'line';
  /** Without its number for clauses and items (the format writes it); otherwise as written, trimmed. */
  text: string;
  /** As written in the source, trimmed. */
  source: string;
  /** A blank line before it in the source. */
  gapBefore: boolean;
}

/**
 * The NDA's lines. Only numbers that continue the sequence ("1.", "2.", ... and "a.", "b." under a
 * clause) become list items, so a format that renumbers reproduces the source's numbers exactly.
 */
export function ndaLines(text: string): NdaLine[] {
  const lines: NdaLine[] = [];
  let gap = false;
  let clause = 1;
  let item = 1;
  for (const raw of text.split(/\r?\n/)) {
    const source = raw.trim();
    if (source === '') {
      gap = true;
      continue;
    }
    const numbered = /^(\d+)\.\s+(.*)$/.exec(source);
    const lettered = /^([a-z])\.\s+(.*)$/.exec(source);
    let line: NdaLine;
    if (lines.length === 0) line = { kind: 'title', text: source, source, gapBefore: false };
    else if (numbered && Number(numbered[1]) === clause) {
      line = { kind: 'clause', text: numbered[2]!, source, gapBefore: gap };
      clause++;
      item = 1;
    } else if (lettered && clause > 1 && lettered[1]!.charCodeAt(0) - 96 === item) {
      line = { kind: 'item', text: lettered[2]!, source, gapBefore: gap };
      item++;
    } else line = { kind: 'line', text: source, source, gapBefore: gap };
    lines.push(line);
    gap = false;
  }
  return lines;
}

/** The NDA as a DOCX: the title in Word's Heading 1 style, clauses and their items as a two-level numbered list (1. / a.). */
export async function ndaDocx(text: string): Promise<Uint8Array> {
  const children = ndaLines(text).map((line) => {
    switch (line.kind) {
      case 'title':
        return new Paragraph({ text: line.text, heading: HeadingLevel.HEADING_1 });
      case 'clause':
        return new Paragraph({ text: line.text, numbering: { reference: 'clauses', level: 0 } });
      case 'item':
        return new Paragraph({ text: line.text, numbering: { reference: 'clauses', level: 1 } });
      default:
        return new Paragraph({ text: line.text });
    }
  });
  const document = new Document({
    numbering: {
      config: [
        {
          reference: 'clauses',
          levels: [
            { level: 0, format: LevelFormat.DECIMAL, text: '%1.', alignment: AlignmentType.START },
            { level: 1, format: LevelFormat.LOWER_LETTER, text: '%2.', alignment: AlignmentType.START },
          ],
        },
      ],
    },
    sections: [{ children }],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The NDA as an HTML page: an h1 title, clauses as `<ol start>` lists with `<ol type="a">` items, other lines as paragraphs. */
export function ndaHtml(text: string): string {
  const lines = ndaLines(text);
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html><head><title>NDA</title><style>p { margin: 0 }</style></head><body>',
    '<nav>Home | Contracts</nav>',
  ];
  let clause = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.kind === 'title') out.push(`<h1>${escapeHtml(line.text)}</h1>`);
    else if (line.kind === 'line' || line.kind === 'item') out.push(`<p>${escapeHtml(line.source)}</p>`);
    else {
      out.push(`<ol start="${clause + 1}">`);
      while (lines[i]?.kind === 'clause') {
        clause++;
        out.push(`<li>${escapeHtml(lines[i]!.text)}`);
        if (lines[i + 1]?.kind === 'item') {
          out.push('<ol type="a">');
          while (lines[i + 1]?.kind === 'item') out.push(`<li>${escapeHtml(lines[++i]!.text)}</li>`);
          out.push('</ol>');
        }
        out.push('</li>');
        i++;
      }
      i--;
      out.push('</ol>');
    }
  }
  out.push('<script>console.log("not text")</script></body></html>');
  return out.join('\n');
}

/** The NDA as Markdown: its title as a `#` heading, the rest as written. */
export function ndaMarkdown(text: string): string {
  const [title, ...rest] = text.split('\n');
  return [`# ${title!.trim()}`, ...rest].join('\n');
}

/** How a fixture PDF is laid out. */
export interface PdfOptions {
  /** pdfkit page size; A5 makes a long NDA run over pages. */
  size?: string;
  /** "Page n of N" at the foot of each page, as most contracts have. */
  pageNumbers?: boolean;
  /** A running header in small type at the top of each page ("Confidential - Draft"). */
  header?: string;
  /** Lines (as written) set in bold body-size type instead of regular. */
  bold?: (line: NdaLine) => boolean;
  /** Titles of outline (bookmark) entries: each names a line of the text. */
  outline?: string[];
  /** The title in the body font and size (no font cue for it). */
  plainTitle?: boolean;
}

function pdfBytes(options: PDFKit.PDFDocumentOptions, draw: (pdf: PDFKit.PDFDocument) => void): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const pdf = new PDFDocument(options);
    const chunks: Buffer[] = [];
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    pdf.on('error', reject);
    draw(pdf);
    pdf.end();
  });
}

function drawNda(pdf: PDFKit.PDFDocument, text: string, options: PdfOptions): void {
  for (const line of ndaLines(text)) {
    if (line.kind === 'title' && !options.plainTitle) {
      pdf.font('Helvetica-Bold').fontSize(18).text(line.source);
      pdf.moveDown(0.5);
      continue;
    }
    if (line.gapBefore) pdf.moveDown(0.6);
    pdf
      .font(options.bold?.(line) ? 'Helvetica-Bold' : 'Helvetica')
      .fontSize(11)
      .text(line.source, { indent: line.kind === 'item' ? 18 : 0 });
  }
}

function addRunningLines(pdf: PDFKit.PDFDocument, options: PdfOptions): void {
  const { start, count } = pdf.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    pdf.switchToPage(i);
    const width = pdf.page.width - pdf.page.margins.left - pdf.page.margins.right;
    // Writing below the bottom margin would make pdfkit start a new page.
    const bottom = pdf.page.margins.bottom;
    pdf.page.margins.bottom = 0;
    pdf.font('Helvetica').fontSize(9);
    if (options.header) pdf.text(options.header, pdf.page.margins.left, 24, { align: 'right', width });
    if (options.pageNumbers) pdf.text(`Page ${i + 1} of ${count}`, pdf.page.margins.left, pdf.page.height - 40, { align: 'center', width });
    pdf.page.margins.bottom = bottom;
  }
}

const buffered = (options: PdfOptions) => options.pageNumbers === true || options.header !== undefined;

/** The NDA as a PDF with a text layer: the title larger and bold, lines wrapped at the margin, over as many pages as it needs. */
export function ndaPdf(text: string, options: PdfOptions = {}): Promise<Uint8Array> {
  return pdfBytes({ size: options.size ?? 'A4', margin: 56, bufferPages: buffered(options) }, (pdf) => {
    drawNda(pdf, text, options);
    for (const title of options.outline ?? []) pdf.outline.addItem(title);
    if (buffered(options)) addRunningLines(pdf, options);
  });
}

/** Several texts in one PDF, each starting on a new page (a long contract bundle, or the 200-page speed check). */
export function ndasPdf(texts: readonly string[], options: PdfOptions = {}): Promise<Uint8Array> {
  return pdfBytes({ size: options.size ?? 'A4', margin: 56, bufferPages: buffered(options) }, (pdf) => {
    texts.forEach((text, i) => {
      if (i > 0) pdf.addPage();
      drawNda(pdf, text, options);
    });
    if (buffered(options)) addRunningLines(pdf, options);
  });
}

/** The NDA encrypted with a user password, as "protect with password" in a PDF tool makes it. */
export function encryptedPdf(text: string): Promise<Uint8Array> {
  return pdfBytes({ size: 'A4', userPassword: 'secret', ownerPassword: 'owner', pdfVersion: '1.7' }, (pdf) => drawNda(pdf, text, {}));
}

const PAGE_WIDTH = 595;
const PAGE_HEIGHT = 842;

/** A page image of text lines, as a scanner makes it: pixels only. */
function pageImage(lines: readonly string[]): Buffer {
  const scale = 2;
  const rows = lines.map(
    (line, i) =>
      `<text x="${56 * scale}" y="${(70 + i * 16) * scale}" font-family="DejaVu Sans" font-size="${11 * scale}">${escapeHtml(line)}</text>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE_WIDTH * scale}" height="${PAGE_HEIGHT * scale}"><rect width="100%" height="100%" fill="white"/>${rows.join('')}</svg>`;
  return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
}

/** Lines of at most `width` characters, broken at spaces. */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.trim().split(/\s+/)) {
      if (line !== '' && line.length + word.length + 1 > width) {
        out.push(line);
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    out.push(line);
  }
  return out;
}

/**
 * A "scanned" PDF: the NDA rendered to a picture on each of `pages` pages, with no text layer;
 * pages listed in `textPages` (1-based) get a real text layer instead (a partly scanned file).
 */
export async function scannedPdf(text: string, options: { pages?: number; textPages?: number[] } = {}): Promise<Uint8Array> {
  const pages = options.pages ?? 1;
  const lines = wrap(text, 90);
  const perPage = Math.ceil(lines.length / pages);
  return pdfBytes({ size: [PAGE_WIDTH, PAGE_HEIGHT], margin: 56, autoFirstPage: false }, (pdf) => {
    for (let p = 0; p < pages; p++) {
      const chunk = lines.slice(p * perPage, (p + 1) * perPage);
      pdf.addPage();
      if (options.textPages?.includes(p + 1)) pdf.font('Helvetica').fontSize(11).text(chunk.join('\n'));
      else pdf.image(pageImage(chunk), 0, 0, { width: PAGE_WIDTH, height: PAGE_HEIGHT });
    }
  });
}

/** The first `share` of a file's bytes: a download or copy cut short. */
export function truncated(bytes: Uint8Array, share = 0.5): Uint8Array {
  return bytes.slice(0, Math.floor(bytes.length * share));
}

/** A ZIP archive of the given files, stored uncompressed (enough for containers the readers must recognise or refuse). */
export function zipOf(files: Record<string, string>): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const data = Buffer.from(content, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/** A spreadsheet-shaped ZIP (what an .xlsx holds): a ZIP, but not a Word document. */
export function xlsxLike(): Uint8Array {
  return zipOf({
    '[Content_Types].xml': '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    'xl/workbook.xml': '<?xml version="1.0"?><workbook/>',
    'xl/worksheets/sheet1.xml': '<?xml version="1.0"?><worksheet><sheetData/></worksheet>',
  });
}

/** The formats a fixture can be written in, with the extension writeDataRoom gives each. */
export const FIXTURE_FORMATS = { pdf: 'pdf', docx: 'docx', html: 'html', markdown: 'md', text: 'txt' } as const;
/** A format a fixture can be written in. */
export type FixtureFormat = keyof typeof FIXTURE_FORMATS;

/** The NDA as a file of the given format. */
export async function ndaFile(text: string, format: FixtureFormat): Promise<Uint8Array> {
  switch (format) {
    case 'pdf':
      return ndaPdf(text);
    case 'docx':
      return ndaDocx(text);
    case 'html':
      return new TextEncoder().encode(ndaHtml(text));
    case 'markdown':
      return new TextEncoder().encode(ndaMarkdown(text));
    case 'text':
      return new TextEncoder().encode(text);
  }
}

/**
 * A data room folder of mixed formats: text i is written as nda{i+1} in PDF, DOCX, HTML, Markdown,
 * then again in that order (nda1.pdf, nda2.docx, nda3.html, nda4.md, nda5.pdf, ...). Returns the paths.
 */
export async function writeDataRoom(
  dir: string,
  texts: readonly string[],
  formats: readonly FixtureFormat[] = ['pdf', 'docx', 'html', 'markdown'],
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (const [i, text] of texts.entries()) {
    const format = formats[i % formats.length]!;
    const path = join(dir, `nda${i + 1}.${FIXTURE_FORMATS[format]}`);
    await writeFile(path, await ndaFile(text, format));
    paths.push(path);
  }
  return paths;
}
