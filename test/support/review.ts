import type { AnswerReview, ClauseSource, Disagreement, TermKind } from '../../src/documents/types';

/**
 * A plausible AnswerReview built by hand, for tests of what shows a review (outputs, the GRS page)
 * without the engine that computes one: clauses are found in the merged text by their words.
 */

/** A clause of the merge by its words, and where it came from (none: unsupported). */
export interface HandClause {
  text: string;
  heading?: string;
  sources: { document: number; section?: string; pages?: number[]; similarity?: number }[];
}

/** A disagreement by its values' words (as written), by document index. */
export interface HandDisagreement {
  kind: TermKind;
  topic: string;
  values: { document: number; text: string; normalized?: string; section?: string; page?: number }[];
  /** What the merge kept, as written in it (found in the merged text); none: dropped. */
  kept: string[];
}

/** Builds the review of `merged` from clauses given by their text; throws when a clause's text is not in `merged`. */
export function handReview(merged: string, clauses: HandClause[], disagreements: HandDisagreement[] = []): AnswerReview {
  let from = 0;
  const reviewed = clauses.map((c) => {
    const start = merged.indexOf(c.text, from);
    if (start < 0) throw new Error(`clause not in the merged text: ${c.text}`);
    from = start + c.text.length;
    const sources = c.sources.map((s, i): ClauseSource => ({ similarity: 0.95 - i * 0.1, ...s, start: 0, end: 10 }));
    return { start, end: start + c.text.length, ...(c.heading ? { heading: c.heading } : {}), sources, supported: sources.length > 0 };
  });
  const supported = reviewed.filter((c) => c.supported).length;
  return {
    clauses: reviewed,
    counts: { clauses: reviewed.length, supported, unsupported: reviewed.length - supported },
    disagreements: disagreements.map(
      (d, i): Disagreement => ({
        id: `d${i + 1}`,
        kind: d.kind,
        topic: d.topic,
        values: d.values.map((v) => ({
          document: v.document,
          value: {
            text: v.text,
            normalized: v.normalized ?? v.text,
            start: 0,
            end: v.text.length,
            ...(v.section ? { section: v.section } : {}),
            ...(v.page ? { page: v.page } : {}),
          },
        })),
        kept: d.kept.map((text) => {
          const start = Math.max(0, merged.indexOf(text));
          return { text, normalized: text, start, end: start + text.length };
        }),
      }),
    ),
  };
}

/** A merged NDA with a title, a preamble, numbered sections and clauses, as a doc-merge run writes one. */
export const MERGED_NDA = `MUTUAL NON-DISCLOSURE AGREEMENT

This agreement is made on 1 March 2024 between Alpha Corp and Beta Labs.

1. Purpose
Alpha Corp shares its battery designs with Beta Labs for a joint pilot.

2. Confidentiality
2.1 Beta Labs keeps the battery designs secret for three years.
2.2 Beta Labs returns every drawing when Alpha Corp asks for it.
2.3 Beta Labs pays a fee of USD 50,000 for each breach <script>alert(1)</script>.

3. Governing Law
The laws of Ontario govern this agreement.`;

/** The review of MERGED_NDA: three sources, one unsupported clause (2.3), two disagreements. */
export function ndaReview(): AnswerReview {
  return handReview(
    MERGED_NDA,
    [
      {
        text: 'This agreement is made on 1 March 2024 between Alpha Corp and Beta Labs.',
        sources: [{ document: 0, section: 'Preamble', pages: [1] }],
      },
      {
        text: 'Alpha Corp shares its battery designs with Beta Labs for a joint pilot.',
        heading: '1. Purpose',
        sources: [
          { document: 0, section: '1. Purpose', pages: [1] },
          { document: 2, section: '1. Scope' },
        ],
      },
      {
        text: 'Beta Labs keeps the battery designs secret for three years.',
        heading: '2. Confidentiality',
        sources: [
          { document: 0, section: '3. Confidentiality', pages: [2] },
          { document: 2, section: '4. Secrecy' },
        ],
      },
      {
        text: 'Beta Labs returns every drawing when Alpha Corp asks for it.',
        heading: '2. Confidentiality',
        sources: [{ document: 1, section: '2. Return of Materials', pages: [2, 3] }],
      },
      { text: 'Beta Labs pays a fee of USD 50,000 for each breach <script>alert(1)</script>.', heading: '2. Confidentiality', sources: [] },
      {
        text: 'The laws of Ontario govern this agreement.',
        heading: '3. Governing Law',
        sources: [{ document: 1, section: 'Governing Law', pages: [4] }],
      },
    ],
    [
      {
        kind: 'duration',
        topic: 'Term of confidentiality',
        values: [
          { document: 0, text: 'three years', normalized: 'P3Y', section: '3. Confidentiality', page: 2 },
          { document: 2, text: 'five (5) years', normalized: 'P5Y', section: '4. Secrecy' },
        ],
        kept: ['three years'],
      },
      {
        kind: 'governingLaw',
        topic: 'Governing law',
        values: [
          { document: 1, text: 'Ontario', section: 'Governing Law', page: 4 },
          { document: 2, text: 'New York <b>', section: '9. Law' },
        ],
        kept: ['Ontario'],
      },
    ],
  );
}

/** Display names of ndaReview's sources. */
export const NDA_SOURCES = ['nda1.pdf', 'nda2.docx', 'nda3.md'];
