import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { blocksOf, numberedLikeWord } from '../src/documents/output/blocks';
import { outputFormatOf, outputOfReview, writeMergedOutput } from '../src/documents/output/index';
import { pagesLabel, sectionLabel } from '../src/documents/output/layout';
import type { ReviewRecord } from '../src/documents/types';
import { ValidationError } from '../src/goo/validate';
import { handReview, MERGED_NDA, NDA_SOURCES, ndaReview } from './support/review';

const dir = mkdtempSync(join(tmpdir(), 'got-output-'));
const nda = () => ({ merged: MERGED_NDA, review: ndaReview(), sources: NDA_SOURCES });
const docxHtml = async (file: string) => (await mammoth.convertToHtml({ path: file })).value;
const texts = (html: string, tag: string) =>
  [...html.matchAll(new RegExp(`<${tag}>(.*?)</${tag}>`, 'g'))].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());

describe('the merged text cut into blocks', () => {
  it('finds the title, numbered section headings, clauses and paragraphs, and whether Word may number them', () => {
    const blocks = blocksOf(MERGED_NDA);
    const at = (b: (typeof blocks)[number]) => MERGED_NDA.slice(b.textStart, b.end);
    expect(blocks.map((b) => [b.kind, b.level, b.number ?? null])).toEqual([
      ['heading', 1, null],
      ['paragraph', 0, null],
      ['heading', 2, '1'],
      ['paragraph', 0, null],
      ['heading', 2, '2'],
      ['clause', 2, '2.1'],
      ['clause', 2, '2.2'],
      ['clause', 2, '2.3'],
      ['heading', 2, '3'],
      ['paragraph', 0, null],
    ]);
    expect(at(blocks[2]!)).toBe('Purpose');
    expect(at(blocks[5]!)).toBe('Beta Labs keeps the battery designs secret for three years.');
    expect(numberedLikeWord(blocks)).toBe(true);
    // A gap in the numbers ("4." after "2.") keeps them as text: Word would print "3.".
    expect(numberedLikeWord(blocksOf('1. Scope\nText.\n\n2. Term\nText.\n\n4. Law\nText.'))).toBe(false);
  });

  it('ranks # headings: a lone top heading is the title, the others follow; a line continuing a clause stays in it', () => {
    const text = '# NDA\n\n## 1. Scope\nOne.\n\n### 1.1 Details\n1.2 The parties agree\nto keep it secret.';
    const blocks = blocksOf(text);
    expect(blocks.map((b) => [b.kind, b.level])).toEqual([
      ['heading', 1],
      ['heading', 2],
      ['paragraph', 0],
      ['heading', 3],
      ['clause', 2],
    ]);
    expect(text.slice(blocks[4]!.textStart, blocks[4]!.end)).toBe('The parties agree\nto keep it secret.');
    expect(
      blocksOf('## Purpose\na\n## Term\nb')
        .filter((b) => b.kind === 'heading')
        .map((b) => b.level),
    ).toEqual([1, 1]);
  });

  it('labels sources compactly', () => {
    expect(pagesLabel([2])).toBe('p.2');
    expect(pagesLabel([2, 3, 4, 7])).toBe('pp.2-4, 7');
    expect(sectionLabel('3. Term')).toBe('§3');
    expect(sectionLabel('Article IV - Law')).toBe('§IV');
    expect(sectionLabel('Governing Law')).toBe('“Governing Law”');
  });
});

describe('writeMergedOutput', () => {
  it('.docx: real headings, Word-numbered clauses, each clause’s sources after it, the unsupported one marked, and the disagreements', async () => {
    const file = join(dir, 'nda.docx');
    expect(await writeMergedOutput(file, nda())).toBe('docx');
    const html = await docxHtml(file);
    expect(texts(html, 'h1')).toEqual(['MUTUAL NON-DISCLOSURE AGREEMENT', 'Disagreements']);
    expect(texts(html, 'h2')).toEqual(['Purpose', 'Confidentiality', 'Governing Law']);
    // The clauses are Word's numbered paragraphs (their numbers are Word's, so not in the text).
    const items = [...html.matchAll(/<ol>(.*?)<\/ol>/gs)].flatMap((m) => texts(m[1]!, 'li'));
    expect(items.map((t) => t.slice(0, 40))).toEqual([
      'Beta Labs keeps the battery designs secr',
      'Beta Labs returns every drawing when Alp',
      'Beta Labs pays a fee of USD 50,000 for e',
    ]);
    expect(items[0]).toContain('[nda1.pdf §3 p.2; nda3.md §4]');
    expect(items[1]).toContain('[nda2.docx §2 pp.2-3]');
    expect(items[2]).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(items[2]).toContain('[no source found — check]');
    expect(html).toContain('Alpha Corp shares its battery designs with Beta Labs for a joint pilot. [nda1.pdf §1 p.1; nda3.md §1]');
    // The disagreements: each source's value, and what the merge kept.
    const table = html.slice(html.indexOf('<table>'));
    for (const s of [
      'Term of confidentiality',
      'nda1.pdf: </strong>three years (§3 p.2)',
      'five (5) years',
      'Governing law',
      'New York &lt;b&gt;',
    ])
      expect(table).toContain(s);
    expect(texts(table, 'tr').at(-1)).toMatch(/Ontario$/);
  });

  it('.docx: numbers Word would print differently stay in the text; no review, no notes', async () => {
    const file = join(dir, 'gaps.docx');
    await writeMergedOutput(file, { merged: 'AGREEMENT\n\n1. Scope\nText.\n\n4. Law\n4.2 Ontario law governs.', sources: [] });
    const html = await docxHtml(file);
    expect(texts(html, 'h2')).toEqual(['1. Scope', '4. Law']);
    expect(html).toContain('<p>4.2\tOntario law governs.</p>');
    expect(html).not.toContain('[');
    expect(html).not.toContain('Disagreements');
  });

  it('.md: the merged Markdown with sources as footnotes and a disagreements table', async () => {
    const file = join(dir, 'nda.md');
    await writeMergedOutput(file, nda());
    const md = readFileSync(file, 'utf8');
    expect(md).toMatch(
      /^# MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis agreement is made on 1 March 2024 between Alpha Corp and Beta Labs\. \[\^1\]\n\n## 1\. Purpose\n/,
    );
    expect(md).toContain('2.1 Beta Labs keeps the battery designs secret for three years. [^3]');
    expect(md).toContain('[^3]: nda1.pdf §3 p.2; nda3.md §4');
    expect(md).toMatch(/\[\^5\]: \*\*no source found — check\*\*: “Beta Labs pays a fee/);
    expect(md).toContain('\\<script>');
    expect(md).toContain('| Term of confidentiality | nda1.pdf: three years (§3 p.2)<br>nda3.md: five (5) years (§4) | three years |');
    expect(md).toContain('5 of 6 clauses found in the sources; 1 without a source — check.');
  });

  it('.html: each block with its sources beside it, the unsupported clause flagged, everything escaped', async () => {
    const file = join(dir, 'nda.html');
    await writeMergedOutput(file, nda());
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('<title>MUTUAL NON-DISCLOSURE AGREEMENT</title>');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('New York &lt;b&gt;');
    // Block and side note pair up: the note of the 2.1 clause names its sources.
    const block = /<div class="text clause" id="block-(\d+)"[^>]*><p><span class="num">2\.1<\/span>/.exec(html);
    expect(block).not.toBeNull();
    const aside = new RegExp(`<aside class="sources" data-block="${block![1]}"[^>]*>(.*?)</aside>`).exec(html)![1]!;
    expect(aside).toContain('nda1.pdf §3 p.2');
    expect(aside).toContain('nda3.md §4');
    expect(html).toMatch(
      /<div class="text clause unsupported"[^>]*><p><span class="num">2\.3<\/span><mark class="unsupported">Beta Labs pays/,
    );
    expect(html).toMatch(/<p class="flag">no source found — check<\/p>/);
    expect(html).toContain('<tr data-disagreement="d1"><td>Term of confidentiality</td>');
  });

  it('.txt: the merged text exactly as the run produced it', async () => {
    const file = join(dir, 'nda.txt');
    await writeMergedOutput(file, nda());
    expect(readFileSync(file, 'utf8')).toBe(MERGED_NDA);
  });

  it('an unknown extension is bad input on --output, naming the supported ones', async () => {
    const error = (() => {
      try {
        outputFormatOf('merged.pdf');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: '--output', message: 'cannot write a ".pdf" file (merged.pdf); use one of .docx, .md, .html, .txt' },
    ]);
    await expect(writeMergedOutput(join(dir, 'merged'), nda())).rejects.toThrow(/no extension.*\.docx, \.md, \.html, \.txt/);
    expect(outputFormatOf('Merged.DOCX')).toBe('docx');
  });

  it('a review record with decisions writes the decided text and says what was decided', async () => {
    const decided = MERGED_NDA.replace('Ontario', 'New York');
    const review = handReview(
      decided,
      [{ text: 'The laws of New York govern this agreement.', sources: [{ document: 2, section: '9. Law' }] }],
      [
        {
          kind: 'governingLaw',
          topic: 'Governing law',
          values: [
            { document: 1, text: 'Ontario' },
            { document: 2, text: 'New York' },
          ],
          kept: ['New York'],
        },
      ],
    );
    const record: ReviewRecord = {
      ...review,
      thought: 'merge/0.0',
      documents: NDA_SOURCES,
      decisions: [{ id: 'd1', choose: { document: 2 } }],
      decidedText: decided,
    };
    const file = join(dir, 'decided.md');
    await writeMergedOutput(file, outputOfReview(record, MERGED_NDA));
    const md = readFileSync(file, 'utf8');
    expect(md).toContain('The laws of New York govern this agreement. [^1]');
    expect(md).toContain("| New York (decided: nda3.md's value) |");
  });
});
