import { z } from 'zod';

/**
 * The documents room's shared vocabulary: what a document read from a file is, and what the engine
 * says of a merged result (where each clause came from, where the sources disagree). The zod schemas
 * are the wire form: they travel in the run's problem, its result and its GRS, and are published in
 * the contract (schema/). Pure: no I/O, usable in the workflow sandbox.
 */

/** Formats read by content (never by file name): the text layer of a PDF, DOCX, HTML, Markdown, plain text. */
export const DOCUMENT_FORMATS = ['pdf', 'docx', 'html', 'markdown', 'text'] as const;
export const DocumentFormat = z.enum(DOCUMENT_FORMATS);
export type DocumentFormat = z.infer<typeof DocumentFormat>;

/**
 * Where a document of a merge came from; `problem.sources[i]` describes `problem.documents[i]`.
 * Optional in the problem: documents sent as plain strings have none and are named "document 1", ...
 */
export const SourceInfo = z.strictObject({
  /** The file's name as the user gave it (no folders), e.g. `nda-acme.pdf`. */
  name: z.string().min(1).max(500),
  format: DocumentFormat,
  /** PDF only: the character offset in the document's text at which each page starts (page 1 at offset 0), ascending. */
  pageStarts: z.array(z.number().int().min(0)).max(100_000).optional(),
});
export type SourceInfo = z.infer<typeof SourceInfo>;

/** A document read from a file: its text with the structure kept as Markdown-style headings and numbered clauses. */
export interface ReadDocument extends SourceInfo {
  text: string;
  /** Headings found (by style, tag, outline or font); 0 for unstructured text. */
  headings: number;
  /** PDF: its page count. */
  pages?: number;
  /** What the reader could not fully read but did not refuse (e.g. "pages 3, 7 of 12 have no text layer"); for the user. */
  warnings?: string[];
}

/** Why a file cannot be merged: named for the user, before any LLM call (exit 2). */
export class DocumentError extends Error {
  override readonly name = 'DocumentError';
  constructor(
    /** The file as the user named it. */
    readonly file: string,
    /** What is wrong, in a sentence the user can act on (e.g. "a scanned PDF: 12 of 12 pages have no text layer"). */
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

/** One place in a source document that a merged clause matches. */
export const ClauseSource = z.object({
  /** Index into `problem.documents`. */
  document: z.number().int().min(0),
  /** The title of the source's section holding the matching text, when the source has sections. */
  section: z.string().optional(),
  /** Pages (1-based) the matching text lies on, when the source has pages (PDF). */
  pages: z.array(z.number().int().min(1)).optional(),
  /** Similarity of the clause to the matching source text, 0..1 (1: the same words). */
  similarity: z.number().min(0).max(1),
  /** Character span of the matching text in `problem.documents[document]`. */
  start: z.number().int().min(0),
  end: z.number().int().min(0),
});
export type ClauseSource = z.infer<typeof ClauseSource>;

/** A clause (sentence-level unit) of the merged result and where it came from. */
export const MergedClause = z.object({
  /** Character span in the merged text. */
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  /** The merged result's heading this clause stands under, if any. */
  heading: z.string().optional(),
  /** Best first; empty when no source is close enough. */
  sources: z.array(ClauseSource),
  /** False: no source text is close enough, so the clause may be invented by the model. */
  supported: z.boolean(),
  /** The earlier clause (its index in `clauses`) this one says again: redundancy the merge kept. */
  repeats: z.number().int().min(0).optional(),
});
export type MergedClause = z.infer<typeof MergedClause>;

/** Kinds of terms whose values are compared across the sources. */
export const TERM_KINDS = ['duration', 'noticePeriod', 'amount', 'date', 'governingLaw', 'party'] as const;
export const TermKind = z.enum(TERM_KINDS);
export type TermKind = z.infer<typeof TermKind>;

/** A term's value as one document (or the merge) states it. */
export const TermValue = z.object({
  /** As written, e.g. "two (2) years". */
  text: z.string(),
  /** Comparable form, e.g. "P2Y", "USD 200000", "New York". */
  normalized: z.string(),
  /** Character span in its text (a source document, or the merged result). */
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  section: z.string().optional(),
  page: z.number().int().min(1).optional(),
});
export type TermValue = z.infer<typeof TermValue>;

/** The same kind of term stated differently by the sources, and what the merge kept. */
export const Disagreement = z.object({
  /** Stable within a run: `d1`, `d2`, ... in order of first appearance; what a person's decision names. */
  id: z.string(),
  kind: TermKind,
  /** What the term is about, e.g. "Term of the agreement", "Governing law", "Breach fee". */
  topic: z.string(),
  /** Each source's value(s), by document index. */
  values: z.array(z.object({ document: z.number().int().min(0), value: TermValue })),
  /** The value(s) the merged result states for this topic; empty when the merge dropped it. */
  kept: z.array(TermValue),
});
export type Disagreement = z.infer<typeof Disagreement>;

/** A person's decision on one disagreement: which normalized value the merge must state. */
export const ReviewDecision = z.strictObject({
  /** A disagreement's id (`d1`, ...). */
  id: z.string().min(1),
  /** The value to keep: one of the sources' values for it (by document index), or text of the person's own. */
  choose: z.union([z.strictObject({ document: z.number().int().min(0) }), z.strictObject({ text: z.string().min(1).max(2000) })]),
});
export type ReviewDecision = z.infer<typeof ReviewDecision>;

/** How much of one source the merge keeps: the source's clauses, and how many of them a clause of the merge says. */
export const SourceRetention = z.object({
  document: z.number().int().min(0),
  clauses: z.number().int().min(0),
  kept: z.number().int().min(0),
  /**
   * Of the clauses not kept, those stating a value of one of the review's disagreements: set aside
   * for the value the merge states, listed there for a person to choose, not lost (since 1.18.0).
   */
  setAside: z.number().int().min(0).optional(),
});
export type SourceRetention = z.infer<typeof SourceRetention>;

/** What the engine says of a merged result: computed from the sources and the merge, never taken on the model's word. */
export const AnswerReview = z.object({
  clauses: z.array(MergedClause),
  counts: z.object({
    clauses: z.number().int().min(0),
    supported: z.number().int().min(0),
    unsupported: z.number().int().min(0),
    /** Clauses that say again what an earlier clause says (absent in reviews made before it was counted). */
    repeated: z.number().int().min(0).optional(),
  }),
  disagreements: z.array(Disagreement),
  /** Per source, by document index: what of it the merge keeps (absent in reviews made before it was measured). */
  retention: z.array(SourceRetention).optional(),
});
export type AnswerReview = z.infer<typeof AnswerReview>;

/**
 * The engine's review of a run's answer as the GRS records it: which thought was reviewed, the
 * sources' display names, the review, and a person's decisions with the text they made.
 */
export const ReviewRecord = AnswerReview.extend({
  /** The reviewed thought (the run's best). */
  thought: z.string(),
  /** Display names of the sources, by document index (file names, or "document 1", ...). */
  documents: z.array(z.string()),
  /** A person's decisions on the disagreements (`decideDisagreements` update), when the run waited for them. */
  decisions: z.array(ReviewDecision).optional(),
  /** The merged text with the decisions applied; the run's answer when present. */
  decidedText: z.string().optional(),
  /** The run waited for decisions and none came in time: the merge stands as the model wrote it. */
  decisionsTimedOut: z.literal(true).optional(),
});
export type ReviewRecord = z.infer<typeof ReviewRecord>;
