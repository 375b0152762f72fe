import { describe, expect, it } from 'vitest';
import { splitClauses } from '../src/documents/clauses';
import { renderMergedOutput } from '../src/documents/output';
import { findRepeats, REPEAT_SIMILARITY, withoutRepeats } from '../src/documents/repeats';
import { reviewMerge } from '../src/documents/review';
import { AnswerReview } from '../src/documents/types';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';

const count = (repeats: (number | undefined)[]) => repeats.filter((r) => r !== undefined).length;

describe('clauses a merge says twice', () => {
  const room = generateDataRoom(3, 12_000, 7);

  it('finds none in one contract whose clauses share templates but say different things', () => {
    for (const contract of room.documents) expect(count(findRepeats(contract))).toBe(0);
  });

  it('finds the clauses of documents strung together instead of merged, each pointing at an earlier one', () => {
    const concatenated = room.documents.join('\n\n');
    const repeats = findRepeats(concatenated);
    const clauses = splitClauses(concatenated).clauses;
    expect(repeats).toHaveLength(clauses.length);
    // The generated contracts share most of their clauses word for word.
    expect(count(repeats)).toBeGreaterThan(0.4 * clauses.length);
    for (const [i, earlier] of repeats.entries()) if (earlier !== undefined) expect(earlier).toBeLessThan(i);
    // None is found inside the first contract: it repeats nothing of itself.
    const firstEnd = room.documents[0]!.length;
    for (const [i, earlier] of repeats.entries()) if (clauses[i]!.end <= firstEnd) expect(earlier).toBeUndefined();
  });

  it('names the earliest clause a sentence repeats, word for word or closely reworded', () => {
    const merged = [
      'The Recipient keeps the designs secret for three years.',
      'The laws of Ontario govern this agreement.',
      'The Recipient keeps the designs secret for three years.',
      'The laws of Ontario govern the agreement.',
    ].join('\n');
    expect(findRepeats(merged)).toEqual([undefined, undefined, 0, 1]);
  });

  it('keeps apart clauses that differ only in a number or a party letter (the similarity ignores both)', () => {
    const merged = [
      'Business A: [Full Legal Name of Business A], located at [Business A Address].',
      'Business B: [Full Legal Name of Business B], located at [Business B Address].',
      'Each invoice is paid within 30 days of its receipt.',
      'Each invoice is paid within 45 days of its receipt.',
    ].join('\n');
    expect(findRepeats(merged)).toEqual([undefined, undefined, undefined, undefined]);
    expect(REPEAT_SIMILARITY).toBeGreaterThan(0.5);
  });

  it('finds a clause an earlier, longer one holds whole, unless it has a number the longer one lacks (decision 99)', () => {
    const long = 'By signing below, the parties agree to these terms and have executed this Agreement as of the date first written above.';
    expect(findRepeats(`${long} By signing below, the parties agree to these terms.`)).toEqual([undefined, 0]);
    expect(findRepeats(`${long} By signing below within 30 days, the parties agree to these terms.`)).toEqual([undefined, undefined]);
  });

  it('drops repeats from a text, keeping the clause that holds the other whichever comes first', () => {
    const long = 'Goods supplied under this Agreement are free from defects for twelve months from the date of delivery to the laboratory.';
    const short = 'Goods supplied under this Agreement are free from defects.';
    expect(withoutRepeats(`Warranty\n${short} ${long}\n\nPayment\nThe University pays within thirty days.`)).toEqual({
      text: `Warranty\n${long}\n\nPayment\nThe University pays within thirty days.`,
      dropped: 1,
    });
    const plain = 'The University pays within thirty days. The Supplier delivers within two weeks.';
    expect(withoutRepeats(plain)).toEqual({ text: plain, dropped: 0 });
  });

  it('is part of the review: each repeating clause marked, and counted', () => {
    const documents = room.documents.slice(0, 2);
    const review = reviewMerge({ documents }, documents.join('\n\n'));
    expect(AnswerReview.parse(review)).toEqual(review);
    const marked = review.clauses.filter((c) => c.repeats !== undefined);
    expect(review.counts.repeated).toBe(marked.length);
    expect(marked.length).toBeGreaterThan(0);
    for (const c of marked) expect(review.clauses[c.repeats!]!.start).toBeLessThan(c.start);
  });

  it('is said in the Markdown and HTML outputs beside the unsupported clauses', async () => {
    const documents = room.documents.slice(0, 2);
    const merged = documents.join('\n\n');
    const review = reviewMerge({ documents }, merged);
    const note = `${review.counts.repeated} say again what an earlier clause says — check`;
    for (const format of ['markdown', 'html'] as const)
      expect(await renderMergedOutput(format, { merged, review, sources: ['a.pdf', 'b.docx'] })).toContain(note);
  });
});
