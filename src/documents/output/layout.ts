import { documentName } from '../names';
import { retentionLine } from '../retention';
import type { AnswerReview, ClauseSource, ReviewDecision, ReviewRecord, TermValue } from '../types';
import { type Block, blocksOf, numberedLikeWord } from './blocks';

/**
 * What every output writer lays out: the merged text in blocks, each with the sources of its
 * clauses and the sentences no source supports, and the disagreements as rows. Computed once here
 * so the DOCX, Markdown and HTML outputs (and the run's HTML page) say the same thing. Pure.
 */

/** A merged result to write: its text and, when the engine reviewed it, the review. */
export interface MergedOutput {
  /** The merged text as the run produced it (with a person's decisions applied, when there were any). */
  merged: string;
  /** The engine's review of exactly this text: clause spans index into `merged`. */
  review?: AnswerReview;
  /** Display names of the sources, by document index (file names, or "document 1", ...). */
  sources: readonly string[];
  /** The document's title for page titles and file properties; defaults to the merge's own title line. */
  title?: string;
  /** A person's decisions on the disagreements, when the run waited for them. */
  decisions?: readonly ReviewDecision[];
}

/** One source a block draws on: a document and section, the pages, and the closest match's similarity. */
export interface SourceRef {
  document: number;
  name: string;
  section?: string;
  pages: number[];
  similarity: number;
}

/** A block and what the review says of it. */
export interface LaidOutBlock extends Block {
  /** The sources of the block's clauses, best first, one per document and section. */
  sources: SourceRef[];
  /** Spans (in the merged text) of the block's clauses that no source supports. */
  unsupported: { start: number; end: number }[];
}

/** A piece of a block's words, marked when no source supports it. */
export interface Segment {
  text: string;
  unsupported: boolean;
}

/** A disagreement as the outputs show it. */
export interface DisagreementRow {
  id: string;
  topic: string;
  /** Each source's value as written, with where it says so ("§3 p.2"). */
  values: { name: string; text: string; where: string }[];
  /** What the merge states; empty when it dropped the term. */
  kept: string[];
  /** A person's decision on it, in words ("decided: nda2.docx's value"). */
  decided?: string;
}

/** The merged result ready to write. */
export interface Layout {
  title: string;
  blocks: LaidOutBlock[];
  /** Word may number the clauses itself (see `numberedLikeWord`). */
  wordNumbering: boolean;
  /** Present when the output has a review. */
  review?: {
    counts: AnswerReview['counts'];
    disagreements: DisagreementRow[];
    /** What of the sources the merge keeps, in words (`retentionLine`); absent for reviews made before it was measured. */
    kept?: string;
  };
}

/** What an unsupported clause is marked with, in every output. */
export const UNSUPPORTED_MARK = 'no source found — check';

/** How every output's summary says that clauses repeat earlier ones ("; 3 say again what an earlier clause says"), or nothing. */
export const repeatedNote = (counts: AnswerReview['counts']): string =>
  counts.repeated ? `; ${counts.repeated} say${counts.repeated === 1 ? 's' : ''} again what an earlier clause says — check` : '';

/** How every output says what of the sources the merge keeps (". Of the sources it keeps 40 of 52 clauses ..."), or nothing. */
export const keptNote = (review: Layout['review']): string => (review?.kept ? `. Of the sources it keeps ${review.kept}` : '');

/** The output of a run's reviewed answer: the decided text when a person decided, else the answer as merged. */
export function outputOfReview(record: ReviewRecord, answer: string, title?: string): MergedOutput {
  return {
    merged: record.decidedText ?? answer,
    review: record,
    sources: record.documents,
    ...(title !== undefined ? { title } : {}),
    ...(record.decisions ? { decisions: record.decisions } : {}),
  };
}

/** Lays a merged output out: blocks with their sources, and the disagreements in words. */
export function layoutOf(o: MergedOutput): Layout {
  const blocks = blocksOf(o.merged);
  const laid = blocks.map((b) => ({ ...b, ...(o.review ? notesOf(b, o.review, o.sources) : { sources: [], unsupported: [] }) }));
  const titleBlock = blocks[0]?.kind === 'heading' && blocks[0].level === 1 ? blocks[0] : undefined;
  return {
    title: o.title ?? (titleBlock ? o.merged.slice(titleBlock.textStart, titleBlock.end) : 'Merged document'),
    blocks: laid,
    wordNumbering: numberedLikeWord(blocks),
    ...(o.review
      ? {
          review: {
            counts: o.review.counts,
            disagreements: o.review.disagreements.map((d) => rowOf(d, o.sources, o.decisions)),
            ...(o.review.retention ? { kept: retentionLine(o.review.retention, o.sources) } : {}),
          },
        }
      : {}),
  };
}

function notesOf(b: Block, review: AnswerReview, names: readonly string[]): Pick<LaidOutBlock, 'sources' | 'unsupported'> {
  const byKey = new Map<string, SourceRef>();
  const unsupported: LaidOutBlock['unsupported'] = [];
  for (const c of review.clauses) {
    const start = Math.max(c.start, b.start);
    const end = Math.min(c.end, b.end);
    if (end <= start) continue;
    if (!c.supported) {
      unsupported.push({ start, end });
      continue;
    }
    for (const s of c.sources) addSource(byKey, s, names);
  }
  return { sources: [...byKey.values()], unsupported };
}

function addSource(byKey: Map<string, SourceRef>, s: ClauseSource, names: readonly string[]): void {
  const key = `${s.document}\u0000${s.section ?? ''}`;
  const ref = byKey.get(key);
  if (!ref) {
    byKey.set(key, {
      document: s.document,
      name: documentName(names, s.document),
      ...(s.section ? { section: s.section } : {}),
      pages: [...(s.pages ?? [])].sort((a, b) => a - b),
      similarity: s.similarity,
    });
    return;
  }
  ref.similarity = Math.max(ref.similarity, s.similarity);
  ref.pages = [...new Set([...ref.pages, ...(s.pages ?? [])])].sort((a, b) => a - b);
}

/** A block's words cut where its unsupported clauses start and end. */
export function segmentsOf(merged: string, b: LaidOutBlock): Segment[] {
  const cuts = b.unsupported.map((u) => ({ start: Math.max(u.start, b.textStart), end: u.end })).filter((u) => u.end > u.start);
  const segments: Segment[] = [];
  let at = b.textStart;
  for (const u of cuts.sort((x, y) => x.start - y.start)) {
    if (u.start > at) segments.push({ text: merged.slice(at, u.start), unsupported: false });
    if (u.end > at) segments.push({ text: merged.slice(Math.max(at, u.start), u.end), unsupported: true });
    at = Math.max(at, u.end);
  }
  if (b.end > at) segments.push({ text: merged.slice(at, b.end), unsupported: false });
  return segments;
}

/** Pages as a reader writes them: "p.2", "pp.2-4", "pp.2, 5". */
export function pagesLabel(pages: readonly number[]): string {
  if (pages.length === 0) return '';
  const runs: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j]! + 1) j++;
    runs.push(j > i ? `${pages[i]}-${pages[j]}` : `${pages[i]}`);
    i = j + 1;
  }
  return `${pages.length > 1 ? 'pp.' : 'p.'}${runs.join(', ')}`;
}

/** A section as a short reference: "§3" for a numbered one ("3. Term"), else its title in quotes. */
export function sectionLabel(section: string): string {
  const numbered = /^\s*(?:(?:article|section|clause)\s+)?(\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,7})\b/i.exec(section);
  if (numbered) return `§${numbered[1]}`;
  const title = section.trim();
  return `“${title.length > 40 ? `${title.slice(0, 39)}…` : title}”`;
}

/** Where in a source: "§3 p.2", "“Term” pp.2-3", or '' when the source has neither. */
export function whereLabel(section: string | undefined, pages: readonly number[]): string {
  return [section ? sectionLabel(section) : '', pagesLabel(pages)].filter(Boolean).join(' ');
}

/** One source of a block in the compact form the outputs print: "nda1.pdf §3 p.2". */
export const sourceLabel = (s: SourceRef): string => [s.name, whereLabel(s.section, s.pages)].filter(Boolean).join(' ');

/** A block's note in one line: "nda1.pdf §3 p.2; nda3.docx §4", and the unsupported mark when it has unsupported clauses. */
export function noteText(b: LaidOutBlock): { sources: string; unsupported: boolean } {
  return { sources: b.sources.map(sourceLabel).join('; '), unsupported: b.unsupported.length > 0 };
}

function rowOf(d: AnswerReview['disagreements'][number], names: readonly string[], decisions?: readonly ReviewDecision[]): DisagreementRow {
  const where = (v: TermValue) => whereLabel(v.section, v.page === undefined ? [] : [v.page]);
  const decision = decisions?.find((x) => x.id === d.id);
  return {
    id: d.id,
    topic: d.topic,
    values: d.values.map((v) => ({ name: documentName(names, v.document), text: v.value.text, where: where(v.value) })),
    kept: d.kept.map((v) => v.text),
    ...(decision
      ? {
          decided:
            'document' in decision.choose
              ? `decided: ${documentName(names, decision.choose.document)}'s value`
              : `decided: “${decision.choose.text}”`,
        }
      : {}),
  };
}
