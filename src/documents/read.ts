import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { describeUnsupported, sniffDocument } from './detect';
import { type DocumentLimits, documentLimits, formatBytes } from './limits';
import { readMarkdown, readText } from './markdown';
import { DocumentError, type ReadDocument, type SourceInfo } from './types';

/**
 * One document as a user brings it (bytes or a file), recognised by content and read to text, or
 * refused with a reason the user can act on. Limits are checked before the costly step: size
 * before parsing, PDF pages before reading pages, text length as soon as it is known.
 */

/** What the refusal of an unrecognised file says is supported. */
export const SUPPORTED_FORMATS = 'PDF (with a text layer), DOCX, HTML, Markdown and plain text';

/** Why an empty file is refused. */
export const EMPTY_FILE = 'the file is empty (0 bytes)';

/** Why a file over the size limit is refused. */
export function tooLarge(bytes: number, maxFileBytes: number): string {
  return `the file is ${formatBytes(bytes)}; at most ${formatBytes(maxFileBytes)} are allowed per document`;
}

/** Why a file that is none of the supported formats is refused: those formats, and what the file looks like instead. */
export function unsupportedReason(bytes: Uint8Array): string {
  return `not a supported document: supported are ${SUPPORTED_FORMATS}; this file is ${describeUnsupported(bytes)}`;
}

async function read(bytes: Uint8Array, name: string, file: string, limits: DocumentLimits): Promise<ReadDocument> {
  if (bytes.length === 0) throw new DocumentError(file, EMPTY_FILE);
  if (bytes.length > limits.maxFileBytes) throw new DocumentError(file, tooLarge(bytes.length, limits.maxFileBytes));
  const sniffed = sniffDocument(bytes);
  if (sniffed === undefined) throw new DocumentError(file, unsupportedReason(bytes));
  const context = { file, limits };
  let document: ReadDocument;
  switch (sniffed.format) {
    // The readers' libraries load on the first document of their kind: every worker and `got run` starts
    // through this module, and mammoth and turndown alone cost ~170 ms of CPU to load.
    case 'pdf': {
      const { readPdf } = await import('./pdf');
      const { warnings, ...pdf } = await readPdf(bytes, context);
      document = { name, format: 'pdf', ...pdf, ...(warnings.length ? { warnings } : {}) };
      break;
    }
    case 'docx': {
      const { readDocx } = await import('./docx');
      document = { name, format: 'docx', ...(await readDocx(bytes, context)) };
      break;
    }
    case 'html': {
      const { readHtml } = await import('./html');
      document = { name, format: 'html', ...readHtml(sniffed.text) };
      break;
    }
    case 'markdown':
      document = { name, format: 'markdown', ...readMarkdown(sniffed.text) };
      break;
    case 'text':
      document = { name, format: 'text', ...readText(sniffed.text) };
      break;
  }
  if (document.text.trim() === '') throw new DocumentError(file, `the ${formatName(document.format)} is empty: it has no text`);
  if (document.text.length > limits.maxChars) {
    throw new DocumentError(
      file,
      `the document has ${document.text.length.toLocaleString('en-US')} characters of text; at most ${limits.maxChars.toLocaleString('en-US')} are allowed per document`,
    );
  }
  return document;
}

function formatName(format: ReadDocument['format']): string {
  return { pdf: 'PDF', docx: 'DOCX', html: 'HTML document', markdown: 'Markdown document', text: 'text file' }[format];
}

/**
 * Reads a document from its bytes, whatever its name says: PDF, DOCX, HTML, Markdown or plain
 * text. Throws DocumentError (naming `name`) for anything else, an empty file, or one over the limits.
 */
export async function readDocument(bytes: Uint8Array, name: string, limits: Partial<DocumentLimits> = {}): Promise<ReadDocument> {
  return read(bytes, name, name, documentLimits(limits));
}

/** Reads a document from disk; errors name the path as given, the result its file name. */
export async function readDocumentFile(path: string, limits: Partial<DocumentLimits> = {}): Promise<ReadDocument> {
  const resolved = documentLimits(limits);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new DocumentError(path, info.isDirectory() ? 'is a folder, not a document' : 'is not a regular file');
    size = info.size;
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new DocumentError(path, code === 'ENOENT' ? 'no such file' : `cannot be read: ${(error as Error).message}`);
  }
  // Refused before reading: a huge file is not loaded into memory just to be turned away.
  if (size > resolved.maxFileBytes) throw new DocumentError(path, tooLarge(size, resolved.maxFileBytes));
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new DocumentError(path, `cannot be read: ${(error as Error).message}`);
  }
  return read(bytes, basename(path), path, resolved);
}

/** What a merge records of where a document came from: its name, format and, for a PDF, where its pages start. */
export function sourceOf(document: ReadDocument): SourceInfo {
  return { name: document.name, format: document.format, ...(document.pageStarts ? { pageStarts: document.pageStarts } : {}) };
}
