import { describe, expect, it } from 'vitest';
import { applyDecisions, checkDecisions, DecisionError } from '../src/documents/decisions';
import { findDisagreements } from '../src/documents/disagreements';
import { reviewMerge } from '../src/documents/review';
import {
  extractTerms,
  normalizeAmount,
  normalizeDate,
  normalizeDuration,
  normalizeLaw,
  normalizeParty,
  PLACEHOLDER,
  parseNumber,
  type Term,
} from '../src/documents/terms';
import { Disagreement, type ReviewDecision } from '../src/documents/types';
import { docMergeResponder } from '../src/simllm/doc-merge';
import { parseDocMergeCsv } from '../src/tasks/doc-merge/dataset';
import { extractMerged } from '../src/tasks/doc-merge/parse';
import { mergePrompt } from '../src/tasks/doc-merge/prompts';
import { seededRandom } from '../src/util/random';
import { readSharedData } from './support/tasks';

const samples = parseDocMergeCsv(readSharedData('documents.csv'));
/** The simulator's merge; undefined for the 1% of answers without one (as models do). */
const simulatedMerge = (documents: string[], seed: number) =>
  extractMerged(docMergeResponder(mergePrompt(documents))!.answer(seededRandom(seed)));
/** The terms of one sentence, as [kind, normalized, text, topic]. */
const termsOf = (text: string) => extractTerms(text).map((t: Term) => [t.kind, t.normalized, t.text, t.topic]);

describe('normalisers', () => {
  it('reads numbers in words and digits', () => {
    expect(parseNumber('thirty (30)')).toBe(30);
    expect(parseNumber('twenty-four')).toBe(24);
    expect(parseNumber('one hundred')).toBe(100);
    expect(parseNumber('12')).toBe(12);
    expect(parseNumber('several')).toBeUndefined();
  });

  it('writes durations as ISO 8601 periods', () => {
    expect(normalizeDuration('two (2) years')).toBe('P2Y');
    expect(normalizeDuration('5 years')).toBe('P5Y');
    expect(normalizeDuration('thirty (30) days')).toBe('P30D');
    expect(normalizeDuration('one year')).toBe('P1Y');
    expect(normalizeDuration('a 12-month period')).toBe('P12M');
    expect(normalizeDuration('ten business days')).toBe('P10D business');
    expect(normalizeDuration('48 hours')).toBe('PT48H');
    expect(normalizeDuration('a 50-mile radius')).toBeUndefined();
  });

  it('writes amounts as currency code and value', () => {
    expect(normalizeAmount('$200,000')).toBe('USD 200000');
    expect(normalizeAmount('USD 5,000')).toBe('USD 5000');
    expect(normalizeAmount('€10,000')).toBe('EUR 10000');
    expect(normalizeAmount('5,000 dollars')).toBe('USD 5000');
    expect(normalizeAmount('$1.5 million')).toBe('USD 1500000');
    expect(normalizeAmount('£250')).toBe('GBP 250');
    expect(normalizeAmount('20 percent')).toBeUndefined();
  });

  it('writes dates as ISO 8601', () => {
    expect(normalizeDate('January 1, 2024')).toBe('2024-01-01');
    expect(normalizeDate('1 January 2024')).toBe('2024-01-01');
    expect(normalizeDate('2024-01-01')).toBe('2024-01-01');
    expect(normalizeDate('the 5th day of March, 2024')).toBe('2024-03-05');
    expect(normalizeDate('Sept. 30, 2023')).toBe('2023-09-30');
  });

  it('names the jurisdiction of a governing law; placeholders stay placeholders unless they give an example', () => {
    expect(normalizeLaw('the State of New York')).toBe('New York');
    expect(normalizeLaw('English')).toBe('England');
    expect(normalizeLaw('England and Wales')).toBe('England and Wales');
    expect(normalizeLaw('[State]')).toBe(PLACEHOLDER);
    expect(normalizeLaw('[Your State]')).toBe(PLACEHOLDER);
    expect(normalizeLaw('[specific country/state, e.g., "the State of New York"]')).toBe('New York');
    expect(normalizeParty('[Your Company Name]')).toBe(PLACEHOLDER);
    expect(normalizeParty('[AquaBlue Innovations]')).toBe('AquaBlue Innovations');
  });
});

describe('terms', () => {
  it('finds durations and notice periods, and what they are about', () => {
    expect(termsOf('The agreement is valid for two (2) years, unless terminated earlier with thirty (30) days written notice.')).toEqual([
      ['duration', 'P2Y', 'two (2) years', 'Term of the agreement'],
      ['noticePeriod', 'P30D', 'thirty (30) days', 'Notice of termination'],
    ]);
    expect(
      termsOf('The Receiving Party will not engage in any competing business during the agreement and one year after its termination.'),
    ).toEqual([['duration', 'P1Y', 'one year', 'Non-compete period']]);
    expect(termsOf('This confidentiality obligation lasts for [X years, e.g., "5 years"] from the date of disclosure.')).toEqual([
      ['duration', 'P5Y', '[X years, e.g., "5 years"]', 'Confidentiality period'],
    ]);
    expect(termsOf('Either party may terminate this Agreement with [e.g., "30"] days written notice.')).toEqual([
      ['noticePeriod', 'P30D', '[e.g., "30"] days', 'Notice of termination'],
    ]);
    expect(termsOf("With 60 days' notice, the Discloser may check compliance by inspecting the records.")).toEqual([
      ['noticePeriod', 'P60D', '60 days', 'Notice of inspection'],
    ]);
  });

  it('finds amounts, dates and governing law', () => {
    expect(termsOf('Breach penalties include injunctive relief and a $200,000 fee per breach.')).toEqual([
      ['amount', 'USD 200000', '$200,000', 'Breach fee'],
    ]);
    expect(termsOf('This agreement is made on 1 January 2024 and takes effect on January 1, 2024.')).toEqual([
      ['date', '2024-01-01', '1 January 2024', 'Effective date'],
      ['date', '2024-01-01', 'January 1, 2024', 'Effective date'],
    ]);
    expect(termsOf('This Agreement is governed by the laws of the State of New York.')).toEqual([
      ['governingLaw', 'New York', 'the State of New York', 'Governing law'],
    ]);
    expect(termsOf('The contract is to be read under English law.')).toEqual([['governingLaw', 'England', 'English', 'Governing law']]);
    expect(termsOf("Governing Law: [Your State]'s laws apply.")).toEqual([['governingLaw', PLACEHOLDER, '[Your State]', 'Governing law']]);
    // Where a party is incorporated is no governing law.
    expect(termsOf('Acme is a corporation organised under the laws of Delaware with its office in Wilmington.')).toEqual([]);
  });

  it('finds the parties of the opening, not every name later on', () => {
    const text = [
      'CONFIDENTIALITY AGREEMENT',
      '',
      'Effective [Date], between [AquaBlue Innovations], established in [State], and [PineTree Solutions], a registered entity.',
      '',
      '1. The parties shall meet between Monday and Friday.',
      '',
      'Signed by [AquaBlue Innovations] and [PineTree Solutions].',
    ].join('\n');
    const parties = extractTerms(text).filter((t) => t.kind === 'party');
    expect(parties.map((p) => [p.normalized, p.text])).toEqual([
      ['AquaBlue Innovations', '[AquaBlue Innovations]'],
      ['PineTree Solutions', '[PineTree Solutions]'],
    ]);
    expect(parties[0]!.topic).toBe('Parties');
    const defined = extractTerms('This NDA involves [Your Company Name] ("Disclosing Party"), and [Recipient Name] ("Receiving Party").');
    expect(defined.map((t) => [t.kind, t.normalized, t.text])).toEqual([
      ['party', PLACEHOLDER, '[Your Company Name]'],
      ['party', PLACEHOLDER, '[Recipient Name]'],
    ]);
    const named = extractTerms(
      'This agreement is made on 3 March 2025 between Harbor Analytics Ltd, the disclosing party, and Northbeam Consulting, the receiving party.',
    );
    expect(named.filter((t) => t.kind === 'party').map((t) => t.normalized)).toEqual(['Harbor Analytics Ltd', 'Northbeam Consulting']);
  });

  it('gives each term its span, section and page', () => {
    const text = '1. Fees\nThe Customer pays USD 5,000 each month.\n\n2. Term\nThe agreement runs for 5 years.';
    const terms = extractTerms(text, { pageStarts: [0, 40] });
    expect(terms.map((t) => [t.text, text.slice(t.start, t.end), t.section, t.page])).toEqual([
      ['USD 5,000', 'USD 5,000', 'Fees', 1],
      ['5 years', '5 years', 'Term', 2],
    ]);
    expect(terms[1]!.topic).toBe('Term of the agreement');
  });
});

describe('disagreements between the sources', () => {
  it('lists the paper NDAs real disagreements, with what the merge kept', () => {
    const { documents } = samples[0]!.problem;
    const disagreements = findDisagreements(documents, simulatedMerge(documents, 0)!);
    for (const d of disagreements) expect(Disagreement.parse(d)).toEqual(d);
    expect(disagreements.map((d) => [d.id, d.kind, d.topic])).toEqual([
      ['d1', 'party', 'Parties'],
      ['d2', 'amount', 'Breach fee'],
    ]);
    const fee = disagreements[1]!;
    expect(fee.values.map((v) => [v.document, v.value.normalized])).toEqual([
      [0, 'USD 200000'],
      [2, 'USD 280000'],
      [3, 'USD 295000'],
    ]);
    expect(fee.kept.map((k) => k.normalized).sort()).toEqual(['USD 200000', 'USD 280000', 'USD 295000']);
    // "[State]" and "[Your State]" are the same blank: no disagreement on the governing law here.
    expect(disagreements.some((d) => d.kind === 'governingLaw')).toBe(false);

    // Blanks suggesting different places ("e.g. California", "e.g. the State of New York") are a disagreement ...
    const law = findDisagreements(samples[5]!.problem.documents, simulatedMerge(samples[5]!.problem.documents, 5)!).find(
      (d) => d.kind === 'governingLaw',
    )!;
    expect(law.values.map((v) => [v.document, v.value.normalized])).toEqual([
      [0, PLACEHOLDER],
      [2, 'California'],
      [3, 'New York'],
    ]);
    // ... a blank beside a blank that suggests a value is not: both leave it to be filled in.
    const blanks = findDisagreements(samples[4]!.problem.documents, simulatedMerge(samples[4]!.problem.documents, 4)!);
    expect(blanks.map((d) => d.topic)).toEqual(['Non-compete period']);
  });

  it('makes no noise: identical values, reworded or renumbered copies and alike placeholders agree', () => {
    const { documents } = samples[0]!.problem;
    const copy = documents[1]!.replace(/^(\d+)\. /gm, (_, n: string) => `${Number(n) + 1}) `).replace('[Effective Date]', '[Date]');
    expect(findDisagreements([documents[1]!, copy], documents[1]!)).toEqual([]);
    let total = 0;
    const byKind: Record<string, number> = {};
    for (const [k, sample] of samples.entries()) {
      const merged = simulatedMerge(sample.problem.documents, k);
      if (merged === undefined) continue;
      const disagreements = findDisagreements(sample.problem.documents, merged);
      expect(disagreements.map((d) => d.id)).toEqual(disagreements.map((_, i) => `d${i + 1}`));
      for (const d of disagreements) {
        total++;
        byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
        const sets = new Map<number, Set<string>>();
        for (const v of d.values) sets.set(v.document, (sets.get(v.document) ?? new Set()).add(v.value.normalized));
        const distinct = new Set([...sets.values()].map((s) => [...s].sort().join('|')));
        expect(sets.size).toBeGreaterThanOrEqual(2);
        expect(distinct.size).toBeGreaterThanOrEqual(2);
      }
      // Ids follow first appearance in the sources: by document, then position.
      const firsts = disagreements.map((d) => d.values[0]!);
      for (let i = 1; i < firsts.length; i++) {
        const [a, b] = [firsts[i - 1]!, firsts[i]!];
        expect(a.document < b.document || (a.document === b.document && a.value.start < b.value.start)).toBe(true);
      }
    }
    console.log(`disagreements over the ${samples.length} paper samples: ${total} (${JSON.stringify(byKind)})`);
  });

  it('is stable: the same inputs give the same ids and values', () => {
    const { documents } = samples[9]!.problem;
    const merged = simulatedMerge(documents, 9)!;
    expect(findDisagreements(documents, merged)).toEqual(findDisagreements([...documents], `${merged}`));
  });
});

describe('decisions', () => {
  const problem = samples[0]!.problem;
  const merged = simulatedMerge(problem.documents, 0)!;
  const review = reviewMerge(problem, merged);
  const fee = review.disagreements.find((d) => d.topic === 'Breach fee')!;
  const parties = review.disagreements.find((d) => d.kind === 'party')!;

  it('finds problems with decisions before they are applied', () => {
    const decisions: ReviewDecision[] = [
      { id: 'd9', choose: { document: 0 } },
      { id: fee.id, choose: { document: 1 } },
      { id: parties.id, choose: { document: 2 } },
      { id: parties.id, choose: { text: 'Acme and Beta' } },
    ];
    const problems = checkDecisions(review.disagreements, decisions);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/no disagreement "d9" \(known: d1, d2\)/);
    expect(problems[1]).toMatch(/document 1 states no value for "Breach fee".*documents that do: 0, 2, 3/);
    expect(problems[2]).toMatch(/decided twice/);
    expect(() => applyDecisions(merged, review.disagreements, decisions, problem.documents)).toThrow(DecisionError);
    expect(() => applyDecisions(merged, review.disagreements, [{ id: fee.id, choose: { document: 7 } }], problem.documents)).toThrow(
      /document 7/,
    );
  });

  it('makes the merge state the chosen source value, and a new review sees it kept', () => {
    const decided = applyDecisions(
      merged,
      review.disagreements,
      [
        { id: fee.id, choose: { document: 2 } },
        { id: parties.id, choose: { document: 2 } },
      ],
      problem.documents,
    );
    expect(decided).not.toContain('$200,000');
    expect(decided).toContain('$280,000');
    const again = reviewMerge(problem, decided);
    const feeAgain = again.disagreements.find((d) => d.topic === 'Breach fee')!;
    expect(new Set(feeAgain.kept.map((k) => k.normalized))).toEqual(new Set(['USD 280000']));
    const partiesAgain = again.disagreements.find((d) => d.kind === 'party')!;
    expect(new Set(partiesAgain.kept.map((k) => k.normalized))).toEqual(new Set(['AquaBlue Innovations', 'PineTree Solutions']));
    expect(again.counts.clauses).toBe(review.counts.clauses);
  });

  it("states a person's own value", () => {
    const decided = applyDecisions(merged, review.disagreements, [{ id: fee.id, choose: { text: 'USD 250,000' } }], problem.documents);
    const kept = reviewMerge(problem, decided).disagreements.find((d) => d.topic === 'Breach fee')!.kept;
    expect(new Set(kept.map((k) => k.normalized))).toEqual(new Set(['USD 250000']));
  });

  it('adds a sentence for a value the merge dropped, under its heading or at the end', () => {
    const withoutFee = merged.replace(/[^.]*\$[\d,]+[^.]*\./g, '');
    const disagreements = findDisagreements(problem.documents, withoutFee);
    const dropped = disagreements.find((d) => d.topic === 'Breach fee')!;
    expect(dropped.kept).toEqual([]);
    const decided = applyDecisions(withoutFee, disagreements, [{ id: dropped.id, choose: { document: 2 } }], problem.documents);
    expect(decided.endsWith('\n\nBreach fee: $280,000.')).toBe(true);
    const kept = findDisagreements(problem.documents, decided).find((d) => d.topic === 'Breach fee')!.kept;
    expect(kept.map((k) => k.normalized)).toEqual(['USD 280000']);

    const { documents } = samples[5]!.problem;
    // The merge kept the heading but not the sentence: the decided law goes under it.
    const withoutLaw = documents[2]!.replace('This Agreement is governed by [State, e.g., "California"] laws.', '');
    const laws = findDisagreements(documents, withoutLaw);
    const law = laws.find((d) => d.kind === 'governingLaw')!;
    expect(law.kept).toEqual([]);
    const lawDecided = applyDecisions(withoutLaw, laws, [{ id: law.id, choose: { document: 3 } }], documents);
    // The source's words go in as it wrote them, here a blank with its example.
    expect(lawDecided).toContain(
      '7. GOVERNING LAW\n\nGoverning law: this agreement is governed by the laws of [specific country/state, e.g., "the State of New York"].\n\n',
    );
    expect(
      findDisagreements(documents, lawDecided)
        .find((d) => d.kind === 'governingLaw')!
        .kept.map((k) => k.normalized),
    ).toEqual(['New York']);

    const headed = 'NDA\n\n## Term\nThe agreement starts on signature.\n\n## Fees\nThe Recipient pays monthly.';
    const term = { id: 'd1', kind: 'duration', topic: 'Term of the agreement', values: [], kept: [] } satisfies Disagreement;
    const withTerm = applyDecisions(
      headed,
      [{ ...term, values: [{ document: 0, value: { text: 'two (2) years', normalized: 'P2Y', start: 0, end: 1, section: 'Term' } }] }],
      [{ id: 'd1', choose: { document: 0 } }],
      ['x'],
    );
    expect(withTerm).toBe(
      'NDA\n\n## Term\nThe agreement starts on signature. Term of the agreement: two (2) years.\n\n## Fees\nThe Recipient pays monthly.',
    );
  });
});
