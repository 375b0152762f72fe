import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../src/documents/detect';
import { compareNames, listDataRoom, scanDataRoom } from '../src/documents/folder';
import { readDocument, readDocumentFile } from '../src/documents/read';
import { DocumentError, type ReadDocument } from '../src/documents/types';
import {
  encryptedPdf,
  type FixtureFormat,
  ndaDocx,
  ndaFile,
  ndaHtml,
  ndaMarkdown,
  ndaPdf,
  ndaSamples,
  ndasPdf,
  scannedPdf,
  truncated,
  writeDataRoom,
  xlsxLike,
  zipOf,
} from './support/documents';

const SUPPORTED = 'not a supported document: supported are PDF (with a text layer), DOCX, HTML, Markdown and plain text';

const samples = ndaSamples();
/** Sample 0 (the one the docs use) and a few more, among them single-paragraph and lettered-list NDAs. */
const SAMPLE_IDS = [0, 7, 23, 61];

/** Whitespace collapsed, and the `#` marks a reader adds to headings removed. */
const normalise = (text: string) =>
  text
    .replace(/^ {0,3}#{1,6} +/gm, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Longest common subsequence of characters, in O(n·m) time and O(m) memory. */
function lcsLength(a: string, b: string): number {
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      current[j] = ca === b.charCodeAt(j - 1) ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

/** Share of characters the two texts have in order (1: the same): 2·LCS / (|a| + |b|), so both dropped and added text count. */
function sameCharacters(read: string, source: string): number {
  const a = normalise(read);
  const b = normalise(source);
  return (2 * lcsLength(a, b)) / (a.length + b.length);
}

/** The DocumentError a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<DocumentError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentError);
    return error as DocumentError;
  }
  throw new Error('expected a DocumentError, but the document was read');
}

describe('reading documents back: the text equals the source', () => {
  const formats: FixtureFormat[] = ['pdf', 'docx', 'html', 'markdown', 'text'];
  for (const format of formats) {
    it(`${format}: ≥ 99% of the characters in order, for all four NDAs of samples ${SAMPLE_IDS.join(', ')}`, async () => {
      let worst = 1;
      for (const id of SAMPLE_IDS) {
        for (const [d, source] of samples[id]!.entries()) {
          const read = await readDocument(await ndaFile(source, format), `nda${d + 1}`);
          expect(read.format).toBe(format);
          const same = sameCharacters(read.text, source);
          worst = Math.min(worst, same);
          expect(same, `sample ${id} document ${d + 1}\n${read.text}`).toBeGreaterThanOrEqual(0.99);
        }
      }
      console.log(`${format}: worst share of characters kept in order ${(100 * worst).toFixed(2)}%`);
    });
  }
});

describe('structure', () => {
  const [nda1, nda2, nda3] = samples[0]!;

  it('DOCX: the Heading 1 title is a # heading, Word numbering is written as "1." and nested "a." lines', async () => {
    const read = await readDocument(await ndaDocx(nda2!), 'nda2.docx');
    expect(read.text.startsWith('# NON-DISCLOSURE AGREEMENT (NDA)\n')).toBe(true);
    expect(read.headings).toBe(1);
    expect(read.text).toMatch(/^1\. Purpose: The Disclosing Party/m);
    expect(read.text).toMatch(/^3\. Receiving Party's Obligations:\n\n {3}a\. Use, reproduce/m);
    expect(read.text).toMatch(/^7\. General Provisions:\n\n {3}a\. Governing Law/m);
    const flat = await readDocument(await ndaDocx(nda1!), 'nda1.docx');
    expect(flat.text.match(/^\d\. /gm)).toEqual(['1. ', '2. ', '3. ', '4. ', '5. ', '6. ', '7. ', '8. ']);
  });

  it('DOCX: a list continues after body paragraphs, numbers nested levels 1. / a. / i., and tables become lines', async () => {
    const { Document, Packer, Paragraph, Table, TableCell, TableRow, LevelFormat, HeadingLevel } = await import('docx');
    const item = (text: string, level: number) => new Paragraph({ text, numbering: { reference: 'n', level } });
    const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
    const document = new Document({
      numbering: {
        config: [
          {
            reference: 'n',
            levels: [0, 1, 2].map((level) => ({ level, format: LevelFormat.DECIMAL, text: `%${level + 1}.` })),
          },
        ],
      },
      sections: [
        {
          children: [
            new Paragraph({ text: 'Master Agreement', heading: HeadingLevel.TITLE }),
            item('Definitions', 0),
            new Paragraph('Body text of clause one.'),
            item('Fees', 0),
            item('Monthly', 1),
            item('In advance', 2),
            item('Yearly', 1),
            new Paragraph({ text: 'Schedule', heading: HeadingLevel.HEADING_2 }),
            new Table({
              rows: [
                new TableRow({ children: [cell('Party'), cell('Acme Ltd')] }),
                new TableRow({ children: [cell('Fee'), cell('USD 200,000')] }),
              ],
            }),
          ],
        },
      ],
    });
    const read = await readDocument(new Uint8Array(await Packer.toBuffer(document)), 'master.docx');
    expect(read.text).toBe(
      [
        '# Master Agreement',
        '1. Definitions',
        'Body text of clause one.',
        '2. Fees',
        '   a. Monthly',
        '      i. In advance',
        '   b. Yearly',
        '## Schedule',
        'Party | Acme Ltd\nFee | USD 200,000',
      ].join('\n\n'),
    );
    expect(read.headings).toBe(2);
  });

  it('PDF: the larger title is a # heading, numbered clauses stay at line starts, wrapped lines are joined', async () => {
    const read = await readDocument(await ndaPdf(nda2!), 'nda2.pdf');
    expect(read).toMatchObject({ format: 'pdf', pages: 1, pageStarts: [0], headings: 1 });
    expect(read.text.startsWith('# NON-DISCLOSURE AGREEMENT (NDA)\n\n')).toBe(true);
    for (const n of [1, 2, 3, 4, 5, 6, 7]) expect(read.text).toMatch(new RegExp(`^${n}\\. \\S`, 'm'));
    expect(read.text).toMatch(/^a\. Governing Law/m);
    // Lines wrapped at the margin are one line again; a short line ends its paragraph.
    expect(read.text).toMatch(/^1\. Purpose: The Disclosing Party .* to the Receiving Party for \[Purpose\]\.$/m);
    expect(read.text).toMatch(/^3\. Receiving Party's Obligations:\na\. Use, reproduce/m);
    expect(read.warnings).toBeUndefined();
  });

  it('PDF: short bold lines at body size are headings one level below the title', async () => {
    const read = await readDocument(
      await ndaPdf(nda3!, { bold: (line) => line.source.endsWith(':') && line.source.length < 60 }),
      'nda3.pdf',
    );
    expect(read.text).toMatch(/^# CONFIDENTIALITY & NON-DISCLOSURE AGREEMENT$/m);
    expect(read.text).toMatch(/^## Entities Involved:$/m);
    expect(read.text).toMatch(/^## Attestation:$/m);
    expect(read.headings).toBe(10);
    expect(sameCharacters(read.text, nda3!)).toBeGreaterThanOrEqual(0.99);
  });

  it('PDF: the outline names the headings when it matches the text, whatever the fonts', async () => {
    const outline = ['NON-DISCLOSURE AGREEMENT (NDA)', 'Purpose', '2. Confidential Information'];
    const source = nda2!.replace('1. Purpose: ', '1. Purpose\n').replace('2. Confidential Information: ', '2. Confidential Information\n');
    const read = await readDocument(await ndaPdf(source, { plainTitle: true, outline }), 'outlined.pdf');
    expect(read.text).toMatch(/^# NON-DISCLOSURE AGREEMENT \(NDA\)$/m);
    expect(read.text).toMatch(/^# 1\. Purpose$/m);
    expect(read.text).toMatch(/^# 2\. Confidential Information$/m);
    expect(read.headings).toBe(3);
  });

  it('PDF: page starts point at each page text, and page numbers are left out', async () => {
    const source = samples[0]!.join('\n\n');
    const bytes = await ndaPdf(source, { size: 'A5', pageNumbers: true });
    const read = await readDocument(bytes, 'bundle.pdf');
    expect(read.pages).toBeGreaterThanOrEqual(3);
    expect(read.pageStarts).toHaveLength(read.pages!);
    expect(read.pageStarts![0]).toBe(0);
    const { text: pages } = await extractText(new Uint8Array(bytes));
    for (let p = 1; p < read.pages!; p++) {
      const start = read.pageStarts![p]!;
      expect(start).toBeGreaterThan(read.pageStarts![p - 1]!);
      // pdf.js's own text of the page, less its page number, begins where pageStarts says.
      const expected = normalise(pages[p]!.replace(/Page \d+ of \d+/, '')).slice(0, 40);
      expect(normalise(read.text.slice(start)).slice(0, 40)).toBe(expected);
      // A page break within a paragraph is a space (the wrapped lines are joined), else a line break.
      expect(read.text[start - 1]).toMatch(/\s/);
    }
    expect(read.text).not.toMatch(/Page \d+ of/);
    expect(sameCharacters(read.text, source)).toBeGreaterThanOrEqual(0.99);
  });

  it('PDF: a running header repeated on every page is left out; a title starting every page is kept', async () => {
    const bundle = [nda1!, nda1!, nda1!, nda1!];
    const read = await readDocument(await ndasPdf(bundle, { header: 'Confidential - Draft 3', pageNumbers: true }), 'bundle.pdf');
    expect(read.pages).toBe(4);
    expect(read.text).not.toContain('Confidential - Draft');
    expect(read.text.match(/^# NON-DISCLOSURE AGREEMENT \(NDA\)$/gm)).toHaveLength(4);
    expect(sameCharacters(read.text, bundle.join('\n'))).toBeGreaterThanOrEqual(0.99);
  });

  it('HTML: h1 is a # heading, <ol start> and <ol type="a"> keep their numbers, script and nav are dropped', async () => {
    const read = await readDocument(new TextEncoder().encode(ndaHtml(nda2!)), 'nda2.html');
    expect(read.text.startsWith('# NON-DISCLOSURE AGREEMENT (NDA)\n')).toBe(true);
    expect(read.text).toMatch(/^3\. Receiving Party's Obligations:\n {3}a\. Use/m);
    expect(read.text).not.toMatch(/Home \| Contracts|console\.log|<\w+/);
    expect(read.headings).toBe(1);
  });

  it('Markdown is kept as written (line ends normalised); plain text too, its headings counted as the merge splits it', async () => {
    const markdown = ndaMarkdown(nda2!);
    const read = await readDocument(new TextEncoder().encode(markdown.replace(/\n/g, '\r\n')), 'nda2.md');
    expect(read).toEqual({ name: 'nda2.md', format: 'markdown', text: markdown, headings: 1 });
    const text = await readDocument(new TextEncoder().encode(nda1!), 'nda1.txt');
    expect(text).toEqual({ name: 'nda1.txt', format: 'text', text: nda1, headings: 8 });
  });
});

describe('detection by content, never by name', () => {
  const [nda1] = samples[0]!;

  it('a PDF named .txt is read as PDF, a DOCX named .pdf as DOCX, HTML named .md as HTML', async () => {
    expect((await readDocument(await ndaPdf(nda1!), 'contract.txt')).format).toBe('pdf');
    expect((await readDocument(await ndaDocx(nda1!), 'contract.pdf')).format).toBe('docx');
    expect((await readDocument(new TextEncoder().encode(ndaHtml(nda1!)), 'contract.md')).format).toBe('html');
  });

  it('tells text encodings and kinds apart', () => {
    const utf16 = (text: string, bigEndian = false) => {
      const bytes = new Uint8Array(2 + 2 * text.length);
      bytes.set(bigEndian ? [0xfe, 0xff] : [0xff, 0xfe]);
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        bytes.set(bigEndian ? [code >> 8, code & 0xff] : [code & 0xff, code >> 8], 2 + 2 * i);
      }
      return bytes;
    };
    const encode = (text: string) => new TextEncoder().encode(text);
    expect(detectFormat(utf16('# Title\n\nBody'))).toBe('markdown');
    expect(detectFormat(utf16('1. Parties\n2. Term', true))).toBe('text');
    expect(detectFormat(new Uint8Array([0xef, 0xbb, 0xbf, ...encode('<p>Hello</p>')]))).toBe('html');
    expect(detectFormat(new Uint8Array([...encode('Caf'), 0xe9, ...encode(' agreement')]))).toBe('text');
    expect(detectFormat(encode('Title\n=====\n\nBody'))).toBe('markdown');
    expect(detectFormat(encode('<div><h2>Terms</h2></div>'))).toBe('html');
    expect(detectFormat(encode('The fee is <b>not</b> due; "1. Parties" [Date]'))).toBe('text');
    expect(detectFormat(encode('{\\rtf1\\ansi Hello}'))).toBeUndefined();
    expect(detectFormat(encode('<?xml version="1.0"?><invoice/>'))).toBeUndefined();
    expect(detectFormat(encode('<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Hi</p></body></html>'))).toBe(
      'html',
    );
    expect(detectFormat(xlsxLike())).toBeUndefined();
    expect(detectFormat(zipOf({ 'word/document.xml': '<w:document/>' }))).toBe('docx');
    expect(detectFormat(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]))).toBeUndefined();
  });
});

describe('refusals name the reason', () => {
  const [nda1, nda2] = samples[0]!;

  it('a scanned PDF: how many pages have no text', async () => {
    const error = await refusal(readDocument(await scannedPdf(nda2!, { pages: 3 }), 'scan.pdf'));
    expect(error.file).toBe('scan.pdf');
    expect(error.reason).toBe('a scanned PDF without a text layer: 3 of 3 pages have no text; run OCR on it first');
  });

  it('a partly scanned PDF is read, with a warning naming the pages without text', async () => {
    const read = await readDocument(await scannedPdf(nda2!, { pages: 3, textPages: [1] }), 'partly.pdf');
    expect(read.pages).toBe(3);
    expect(read.warnings).toEqual(['pages 2-3 of 3 have no text layer (scanned?); their content is missing from the text']);
    expect(read.text).toMatch(/^NON-DISCLOSURE AGREEMENT/);
  });

  it('an encrypted PDF', async () => {
    const error = await refusal(readDocument(await encryptedPdf(nda1!), 'locked.pdf'));
    expect(error.reason).toBe('the PDF is encrypted (password-protected); save an unprotected copy');
  });

  it('a truncated or damaged PDF', async () => {
    const cut = await refusal(readDocument(truncated(await ndaPdf(nda1!)), 'cut.pdf'));
    expect(cut.reason).toBe('the PDF is damaged or truncated: it does not end with an end-of-file marker (%%EOF), so its end is missing');
    const garbage = new TextEncoder().encode(`%PDF-1.7\n${'garbage '.repeat(50)}\n%%EOF\n`);
    const damaged = await refusal(readDocument(garbage, 'damaged.pdf'));
    expect(damaged.reason).toMatch(/^the PDF is damaged or truncated: \S/);
  });

  it('a truncated or damaged DOCX', async () => {
    const cut = await refusal(readDocument(truncated(await ndaDocx(nda1!)), 'cut.docx'));
    expect(cut.reason).toMatch(/^the DOCX is damaged or truncated: /);
    const broken = zipOf({ '[Content_Types].xml': '<Types/>', 'word/document.xml': '<w:document><w:body><w:p>' });
    const damaged = await refusal(readDocument(broken, 'broken.docx'));
    expect(damaged.reason).toMatch(/^the DOCX is damaged or truncated: \S/);
  });

  it('a spreadsheet-like ZIP or random binary: unsupported, naming the supported formats', async () => {
    const xlsx = await refusal(readDocument(xlsxLike(), 'budget.docx'));
    expect(xlsx.reason).toContain(SUPPORTED);
    expect(xlsx.reason).toContain('a ZIP archive that is not a Word document');
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 256);
    expect((await refusal(readDocument(random, 'blob.pdf'))).reason).toContain(SUPPORTED);
  });

  it('an empty file, or one with no text', async () => {
    expect((await refusal(readDocument(new Uint8Array(), 'empty.txt'))).reason).toBe('the file is empty (0 bytes)');
    expect((await refusal(readDocument(new TextEncoder().encode(' \n\n\t'), 'blank.txt'))).reason).toBe(
      'the text file is empty: it has no text',
    );
    expect((await refusal(readDocument(new TextEncoder().encode('<html><body><p> </p></body></html>'), 'blank.html'))).reason).toBe(
      'the HTML document is empty: it has no text',
    );
  });

  it('over the limits, before parsing where it can be', async () => {
    const pdf = await ndaPdf(samples[0]!.join('\n\n'), { size: 'A5' });
    expect((await refusal(readDocument(pdf, 'big.pdf', { maxFileBytes: 1000 }))).reason).toBe(
      `the file is ${(pdf.length / 1024).toFixed(1).replace(/\.0$/, '')} KB; at most 1000 bytes are allowed per document`,
    );
    expect((await refusal(readDocument(pdf, 'long.pdf', { maxPdfPages: 2 }))).reason).toMatch(
      /^the PDF has \d+ pages; at most 2 are allowed$/,
    );
    expect((await refusal(readDocument(pdf, 'long.pdf', { maxChars: 500 }))).reason).toMatch(
      /^the PDF's text passes 500 characters by page 1 of \d+; at most 500 are allowed per document$/,
    );
    expect((await refusal(readDocument(new TextEncoder().encode(nda1!), 'nda.txt', { maxChars: 100 }))).reason).toBe(
      `the document has ${nda1!.length} characters of text; at most 100 are allowed per document`,
    );
    expect((await refusal(readDocument(await ndaDocx(nda1!), 'nda.docx', { maxDocxXmlBytes: 100 }))).reason).toMatch(
      /^the DOCX unpacks to [\d.]+ (?:KB|bytes) of text markup; at most 100 bytes are allowed$/,
    );
  });
});

describe('files and data room folders', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'got-documents-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('readDocumentFile reads by content and refuses a missing file, a folder, or one too big before reading it', async () => {
    const path = join(dir, 'contract.bin');
    await writeFile(path, await ndaDocx(samples[0]![0]!));
    const read = await readDocumentFile(path);
    expect(read).toMatchObject({ name: 'contract.bin', format: 'docx' });
    const missing = await refusal(readDocumentFile(join(dir, 'nope.pdf')));
    expect(missing).toMatchObject({ file: join(dir, 'nope.pdf'), reason: 'no such file' });
    expect(missing.message).toBe(`${join(dir, 'nope.pdf')}: no such file`);
    expect((await refusal(readDocumentFile(dir))).reason).toBe('is a folder, not a document');
    expect((await refusal(readDocumentFile(path, { maxFileBytes: 10 }))).reason).toMatch(/at most 10 bytes are allowed per document$/);
  });

  it('lists a mixed-format data room in natural order, skipping hidden files, lock files and subfolders', async () => {
    const room = join(dir, 'room');
    const texts = [...samples[0]!, samples[1]![0]!, samples[1]![1]!];
    const written = await writeDataRoom(room, texts);
    expect(written.map((p) => p.slice(room.length + 1))).toEqual([
      'nda1.pdf',
      'nda2.docx',
      'nda3.html',
      'nda4.md',
      'nda5.pdf',
      'nda6.docx',
    ]);
    await writeFile(join(room, 'NDA10.txt'), samples[2]![0]!);
    await writeFile(join(room, '.DS_Store'), new Uint8Array([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]));
    await writeFile(join(room, '~$nda2.docx'), new Uint8Array([5, 0x41, 0, 0x42]));
    await mkdir(join(room, 'archive'));
    await writeFile(join(room, 'archive', 'old.md'), '# Old');
    const { files: listed, unsupported } = await listDataRoom(room);
    expect(unsupported).toEqual([]);
    expect(listed.map((p) => p.slice(room.length + 1))).toEqual([
      'nda1.pdf',
      'nda2.docx',
      'nda3.html',
      'nda4.md',
      'nda5.pdf',
      'nda6.docx',
      'NDA10.txt',
    ]);
    const documents: ReadDocument[] = [];
    for (const path of listed) documents.push(await readDocumentFile(path));
    expect(documents.map((d) => d.format)).toEqual(['pdf', 'docx', 'html', 'markdown', 'pdf', 'docx', 'text']);
    documents.slice(0, 6).forEach((d, i) => {
      expect(sameCharacters(d.text, texts[i]!)).toBeGreaterThanOrEqual(0.99);
    });
  });

  it('reports unsupported, empty and dangling files apart, in the words readDocument refuses them with', async () => {
    const room = join(dir, 'mixed');
    await writeDataRoom(room, samples[0]!.slice(0, 2));
    await writeFile(join(room, 'budget.xlsx'), xlsxLike());
    await writeFile(join(room, 'empty.txt'), '');
    await symlink(join(room, 'gone.pdf'), join(room, 'link.pdf'));
    const { files, unsupported } = await listDataRoom(room);
    expect(files.map((p) => p.slice(room.length + 1))).toEqual(['nda1.pdf', 'nda2.docx']);
    expect(unsupported).toEqual([
      {
        path: join(room, 'budget.xlsx'),
        name: 'budget.xlsx',
        reason: `${SUPPORTED}; this file is a ZIP archive that is not a Word document, e.g. a spreadsheet, presentation or OpenDocument file`,
      },
      { path: join(room, 'empty.txt'), name: 'empty.txt', reason: 'the file is empty (0 bytes)' },
      { path: join(room, 'link.pdf'), name: 'link.pdf', reason: 'a link to a file that does not exist' },
    ]);
    expect((await refusal(readDocumentFile(join(room, 'budget.xlsx')))).reason).toBe(unsupported[0]!.reason);
    expect((await refusal(readDocumentFile(join(room, 'empty.txt')))).reason).toBe(unsupported[1]!.reason);
    const scan = await scanDataRoom(room);
    expect(scan.documents.map((d) => d.format)).toEqual(['pdf', 'docx']);
  });

  it('refuses an empty or missing folder, and one with more documents than a run merges', async () => {
    const empty = join(dir, 'empty');
    await mkdir(empty);
    expect((await refusal(listDataRoom(empty))).reason).toBe(
      'the folder holds no supported document; supported are PDF (with a text layer), DOCX, HTML, Markdown and plain text',
    );
    await writeFile(join(empty, 'notes.rtf'), '{\\rtf1\\ansi Hello}');
    expect((await refusal(listDataRoom(empty))).reason).toBe(
      `the folder holds no supported document (notes.rtf: ${SUPPORTED}; this file is an RTF file; save it as DOCX); ` +
        'supported are PDF (with a text layer), DOCX, HTML, Markdown and plain text',
    );
    expect((await refusal(listDataRoom(join(dir, 'nowhere')))).reason).toBe('no such folder');
    const room = join(dir, 'many');
    await writeDataRoom(room, samples[3]!, ['markdown']);
    expect((await refusal(listDataRoom(room, { maxDocuments: 3 }))).reason).toBe(
      'the folder holds 4 documents; at most 3 can be merged in one run',
    );
  });

  it('natural, case-insensitive name order', () => {
    const names = ['nda10.pdf', 'NDA2.pdf', 'nda1.pdf', 'b.md', 'A.md', 'nda2.pdf'];
    expect([...names].sort(compareNames)).toEqual(['A.md', 'b.md', 'nda1.pdf', 'NDA2.pdf', 'nda2.pdf', 'nda10.pdf']);
  });
});

describe('speed', () => {
  it('reads a 200-page PDF (time printed, not asserted)', async () => {
    const texts = samples.flat().slice(0, 200);
    const bytes = await ndasPdf(texts, { pageNumbers: true });
    const started = performance.now();
    const read = await readDocument(bytes, 'bundle-200.pdf');
    const ms = performance.now() - started;
    console.log(`200-page PDF (${(bytes.length / 1024).toFixed(0)} KB, ${read.text.length} characters) read in ${ms.toFixed(0)} ms`);
    expect(read.pages).toBe(200);
    expect(read.pageStarts).toHaveLength(200);
  });
});
