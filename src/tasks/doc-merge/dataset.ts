import { z } from 'zod';
import { SourceInfo } from '../../documents/types';
import { ValidationError } from '../../goo/validate';
import { pick, type Random, randomInt, seededRandom, shuffled } from '../../util/random';
import { parseRows, readCsv } from '../dataset';
import type { Sample } from '../task';
import {
  type ClauseTopic,
  CORE_TOPICS,
  DISCLOSERS,
  MONTHS,
  OPTIONAL_TOPICS,
  PARTIES,
  PLACES,
  PURPOSES,
  RECIPIENTS,
  SERVICES,
  SIGNATURE,
  TITLES,
} from './samples';

export const MIN_DOCUMENTS = 2;
/** A data room: dozens of contracts, merged section by section when they do not fit one prompt (decision 36). */
export const MAX_DOCUMENTS = 200;
/** Per document: a long contract (~400 pages of plain text). */
export const MAX_DOCUMENT_CHARS = 1_000_000;
/** More than this share of unprintable characters means the text is not a document (e.g. a decoded binary). */
const MAX_UNPRINTABLE_SHARE = 0.05;

function documentProblem(text: string, maxChars: number): string | undefined {
  if (text.trim() === '') return 'the document is empty';
  if (text.length > maxChars) return `the document has ${text.length} characters; at most ${maxChars} are allowed`;
  if (text.includes('\u0000')) return 'the document looks binary (it contains NUL characters); expected plain text';
  // C0/C1 control characters other than tab and line breaks, and U+FFFD left behind by decoding bytes that are not text.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  const unprintable = text.match(/[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]/g)?.length ?? 0;
  if (unprintable / text.length > MAX_UNPRINTABLE_SHARE) {
    return `the document looks binary (${Math.round((100 * unprintable) / text.length)}% of its characters are not printable); expected plain text`;
  }
  return undefined;
}

/** One NDA: non-empty plain text within the size limit. */
export function documentText(maxChars = MAX_DOCUMENT_CHARS) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'missing: expected the text of an NDA' : 'expected the text of an NDA') })
    .superRefine((text, ctx) => {
      const problem = documentProblem(text, maxChars);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

export function docMergeProblemSchema({ maxDocumentChars = MAX_DOCUMENT_CHARS } = {}) {
  return z
    .strictObject({
      documents: z
        .array(documentText(maxDocumentChars))
        .min(MIN_DOCUMENTS, `merging needs at least ${MIN_DOCUMENTS} documents`)
        .max(MAX_DOCUMENTS, `at most ${MAX_DOCUMENTS} documents can be merged in one run`)
        .describe(
          `the documents to merge, each plain text (headings as Markdown "#" lines and numbered clauses keep their structure): not empty, at most ${maxDocumentChars.toLocaleString('en-US')} characters`,
        ),
      sources: z
        .array(SourceInfo)
        .optional()
        .describe('where each document came from (file name, format, PDF page starts), by index; names the sources in reviews and outputs'),
    })
    .superRefine((p, ctx) => {
      if (p.sources && p.sources.length !== p.documents.length)
        ctx.addIssue({
          code: 'custom',
          path: ['sources'],
          message: `expected one source per document (${p.documents.length}), got ${p.sources.length}`,
        });
    });
}

export const DocMergeProblem = docMergeProblemSchema();
export type DocMergeProblem = z.infer<typeof DocMergeProblem>;

/** The reference format: columns id, problem (a description) and document1..documentN (N >= 2, usually 4). */
export function parseDocMergeCsv(csv: string): Sample<DocMergeProblem>[] {
  const rows = readCsv(csv);
  const columns = Object.keys(rows[0] ?? {})
    .filter((c) => /^document\d+$/.test(c))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  if (columns.length < MIN_DOCUMENTS) {
    throw new ValidationError('document merging dataset', [
      {
        path: 'header',
        message: `expected columns id, problem, document1..document4; found ${Object.keys(rows[0] ?? {}).join(', ') || 'no rows'}`,
      },
    ]);
  }
  const Row = z.object({
    id: z.string({ error: 'missing: expected a sample id' }).min(1, 'expected a sample id'),
    ...Object.fromEntries(columns.map((c) => [c, documentText()])),
  });
  return parseRows(rows, Row, 'document merging dataset').map((row) => {
    const r = row as Record<string, string>;
    return { id: r.id!, problem: { documents: columns.map((c) => r[c]!) } };
  });
}

/** Some of a topic's sentences (at least one), each in one of its wordings. */
function sentencesOf(random: Random, topic: ClauseTopic, keep: number): string[] {
  const chosen = topic.sentences.filter(() => random() < keep);
  return (chosen.length ? chosen : [pick(random, topic.sentences)]).map((variants) => pick(random, variants));
}

/**
 * `size` overlapping NDAs of one deal: every document covers the core topics with its own subset
 * and wording of their clauses, plus a few optional topics drawn from a pool the documents share
 * in part; amounts and periods sometimes differ between documents, as in real drafts.
 */
export function generateDocMergeProblem(size: number, seed: number): DocMergeProblem {
  if (!Number.isInteger(size) || size < MIN_DOCUMENTS || size > MAX_DOCUMENTS) {
    throw new RangeError(`document merging needs ${MIN_DOCUMENTS} to ${MAX_DOCUMENTS} documents, got ${size}`);
  }
  const random = seededRandom(seed);
  const place = pick(random, PLACES);
  const common: Record<string, string> = {
    D: pick(random, DISCLOSERS),
    R: pick(random, RECIPIENTS),
    PURPOSE: pick(random, PURPOSES),
    SERVICE: pick(random, SERVICES),
    LAW: place.law,
    CITY: place.city,
    DATE: `${1 + randomInt(random, 28)} ${pick(random, MONTHS)} ${2024 + randomInt(random, 3)}`,
    TERM: pick(random, ['two', 'three', 'five']),
    NOTICE: pick(random, ['30', '60', '90']),
    SURVIVE: pick(random, ['two', 'three', 'five']),
    RETURN: pick(random, ['10', '14', '30']),
    NONSOLICIT: pick(random, ['6', '12', '18']),
  };
  const pool = shuffled(random, OPTIONAL_TOPICS).slice(0, Math.min(OPTIONAL_TOPICS.length, size + 3));

  return {
    documents: Array.from({ length: size }, () => {
      const values: Record<string, string> = {
        ...common,
        FEE: pick(random, ['USD 150,000', 'USD 200,000', 'USD 250,000', 'USD 300,000']),
        ...(random() < 0.25 ? { TERM: pick(random, ['two', 'three', 'four', 'five']) } : {}),
      };
      const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? key);
      const optional = shuffled(random, pool).slice(0, 2 + randomInt(random, 2));
      const topics = [...CORE_TOPICS.slice(0, -1), ...pool.filter((t) => optional.includes(t)), CORE_TOPICS.at(-1)!];
      const sections = topics.map((topic, i) => `${i + 1}. ${pick(random, topic.headings)}\n${sentencesOf(random, topic, 0.7).join(' ')}`);
      return fill([pick(random, TITLES), sentencesOf(random, PARTIES, 0.6).join(' '), ...sections, pick(random, SIGNATURE)].join('\n\n'));
    }),
  };
}
