import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { writeMergedOutput } from '../src/documents/output/index';
import { measureRetention, retentionLine } from '../src/documents/retention';
import { reviewMerge } from '../src/documents/review';

// Two sources on different subjects, so that no clause of one reads like a clause of the other.
const NDA = [
  'The Recipient shall keep the Confidential Information secret and use it only to evaluate the proposed acquisition.',
  'The Recipient may disclose Confidential Information to its advisers who are bound by duties of confidence.',
  'This agreement ends three years after the date on which it was signed by both parties.',
].join(' ');
const LEASE = [
  'The Tenant shall pay the monthly rent in advance on the first working day of every calendar month.',
  'The Landlord shall repair the roof, the external walls and the drains of the building at its own cost.',
  'Either party may end the lease by giving the other six months of written notice.',
  'The Tenant must not keep animals in the premises without the written consent of the Landlord.',
].join(' ');

describe('what of each source a merge keeps', () => {
  it('keeps every clause of the one document a "merge" restates, and none of the document it drops', () => {
    expect(measureRetention(NDA, [NDA, LEASE])).toEqual([
      { document: 0, clauses: 3, kept: 3 },
      { document: 1, clauses: 4, kept: 0 },
    ]);
  });

  it('keeps everything of sources strung together, and counts a clause reworded closely as kept', () => {
    expect(measureRetention(`${LEASE} ${NDA}`, [NDA, LEASE]).map((r) => r.kept)).toEqual([3, 4]);
    const reworded = LEASE.replace('on the first working day of every calendar month', 'on the first working day of each month');
    expect(measureRetention(reworded, [LEASE])[0]).toEqual({ document: 0, clauses: 4, kept: 4 });
  });

  it('counts a clause a merge holds whole inside a longer sentence as kept, and a short one only when close (decision 99)', () => {
    const [rent, roof, notice] = LEASE.split(/(?<=\.) /) as [string, string, string];
    // One merged sentence says rent, roof and notice: far from each by cosine, holding each whole.
    const joined = `${rent.slice(0, -1)}; ${roof.charAt(0).toLowerCase()}${roof.slice(1, -1)}; and ${notice.charAt(0).toLowerCase()}${notice.slice(1)}`;
    expect(measureRetention(joined, [`${rent} ${roof} ${notice}`])[0]).toEqual({ document: 0, clauses: 3, kept: 3 });
    // Under four words the cosine alone decides: "Date: [Insert Date]" inside a longer sentence is not said by it.
    expect(
      measureRetention('This lease is signed on [Insert Date] by the Tenant and the Landlord.', ['Date: [Insert Date]'])[0]!.kept,
    ).toBe(0);
  });

  it('tells a clause set aside for a disagreement apart from a clause lost', () => {
    const two = 'This agreement remains in force for two years from the date of signature.';
    const five = 'The term of this contract shall be five years.';
    const secret = 'The Recipient shall keep the designs secret and return all drawings on request.';
    const review = reviewMerge({ documents: [`${two} ${secret}`, five] }, two);
    // The five years are a value the merge chose otherwise (listed for review); the secrecy clause is lost.
    expect(review.disagreements.map((d) => d.values.map((v) => v.value.normalized))).toEqual([['P2Y', 'P5Y']]);
    expect(review.retention).toEqual([
      { document: 0, clauses: 2, kept: 1, setAside: 0 },
      { document: 1, clauses: 1, kept: 0, setAside: 1 },
    ]);
  });

  it('works from a merge of a single clause', () => {
    const [rent, notice] = LEASE.split(/(?<=\.) /) as [string, string];
    expect(measureRetention(rent, [rent, `${rent} ${notice}`, notice]).map((r) => `${r.kept}/${r.clauses}`)).toEqual(['1/1', '1/2', '0/1']);
  });

  it('keeps nothing of an empty merge, and an empty source has nothing to keep', () => {
    expect(measureRetention('', [NDA, ''])).toEqual([
      { document: 0, clauses: 3, kept: 0 },
      { document: 1, clauses: 0, kept: 0 },
    ]);
  });

  it('is part of the review, by document index, beside a provenance that finds nothing wrong', () => {
    const review = reviewMerge({ documents: [NDA, LEASE] }, NDA);
    // Every clause of the "merge" is traced and none unsupported: only the retention shows the lease is gone.
    expect(review.counts).toMatchObject({ clauses: 3, supported: 3, unsupported: 0 });
    expect(review.retention).toEqual(measureRetention(NDA, [NDA, LEASE], review.disagreements));
    expect(review.retention!.map((r) => r.setAside)).toEqual([0, 0]);
  });

  it('says it in a line: the total, then the sources kept least by name', () => {
    const retention = measureRetention(NDA, [NDA, LEASE]);
    expect(retentionLine(retention, ['nda.pdf', 'lease.docx'])).toBe('3 of 7 source clauses (43%); kept least: lease.docx 0/4');
    expect(retentionLine(measureRetention(`${NDA} ${LEASE}`, [NDA, LEASE]), [])).toBe('7 of 7 source clauses (100%)');
    const aside = [{ document: 0, clauses: 4, kept: 2, setAside: 1 }];
    expect(retentionLine(aside, ['nda.pdf'])).toBe(
      '2 of 4 source clauses (50%); 1 set aside for the disagreements; kept least: nda.pdf 2/4',
    );
  });

  it('is said in the Markdown, DOCX and HTML outputs beside the other counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'got-retention-'));
    const output = { merged: NDA, review: reviewMerge({ documents: [NDA, LEASE] }, NDA), sources: ['nda.pdf', 'lease.docx'] };
    const said = 'Of the sources it keeps 3 of 7 source clauses (43%); kept least: lease.docx 0/4';
    for (const ext of ['md', 'html']) {
      await writeMergedOutput(join(dir, `merged.${ext}`), output);
      expect(readFileSync(join(dir, `merged.${ext}`), 'utf8')).toContain(said);
    }
    await writeMergedOutput(join(dir, 'merged.docx'), output);
    expect((await mammoth.extractRawText({ path: join(dir, 'merged.docx') })).value).toContain(said);
  });
});
