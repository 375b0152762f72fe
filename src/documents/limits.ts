import { MAX_DOCUMENT_CHARS, MAX_DOCUMENTS } from '../tasks/doc-merge/dataset';

/** What the documents room accepts from a user's files; each is checked as early as it can be, before the costly step. */
export interface DocumentLimits {
  /** Size of one file as stored; checked before any parsing. */
  maxFileBytes: number;
  /** Pages of one PDF; checked once its page tree is read, before any page's text is. */
  maxPdfPages: number;
  /** Uncompressed size of a DOCX's main part (word/document.xml); checked in the ZIP's directory before unpacking. */
  maxDocxXmlBytes: number;
  /** Characters of text read from one document: the merge task's own per-document limit. */
  maxChars: number;
  /** Documents in one data room folder: the merge task's own limit on one run. */
  maxDocuments: number;
}

/**
 * The limits unless a caller passes its own. Text is what the merge pays for, so its limit is the
 * merge task's (MAX_DOCUMENT_CHARS, ~400 dense pages); the others bound work and memory before the
 * text is known. 50 MB holds a long contract with embedded fonts, scanned exhibits and letterhead
 * images (its text is at most a few MB) while keeping the whole file, which pdf.js and mammoth hold
 * in memory, small. 2,000 PDF pages is five times the text limit's ~400 dense pages, room for sparse
 * pages (signature pages, exhibits, slides); reading stops earlier anyway once the text passes
 * maxChars. 250 MB of WordprocessingML is far above what a million characters need even with
 * heavy formatting (~40 MB), but stops a ZIP bomb that a 50 MB file could expand to gigabytes.
 */
export const DOCUMENT_LIMITS: Readonly<DocumentLimits> = Object.freeze({
  maxFileBytes: 50 * 1024 * 1024,
  maxPdfPages: 2_000,
  maxDocxXmlBytes: 250 * 1024 * 1024,
  maxChars: MAX_DOCUMENT_CHARS,
  maxDocuments: MAX_DOCUMENTS,
});

/** The limits with a caller's overrides applied. */
export function documentLimits(overrides: Partial<DocumentLimits> = {}): DocumentLimits {
  return { ...DOCUMENT_LIMITS, ...overrides };
}

/** A byte count for people: "512 bytes", "1.5 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB`;
}
