import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { detectFormat } from './detect';
import { type DocumentLimits, documentLimits } from './limits';
import { EMPTY_FILE, SUPPORTED_FORMATS, tooLarge, unsupportedReason } from './read';
import { DocumentError, type DocumentFormat } from './types';

/**
 * A data room: a folder of documents to merge. Every regular file directly in it is a document,
 * in natural name order; a file of unsupported content is reported, never silently left out.
 */

/** A file of the data room recognised as a document. */
export interface DataRoomDocument {
  path: string;
  name: string;
  format: DocumentFormat;
}

/** A file of the data room that cannot be merged, and why. */
export interface DataRoomSkipped {
  path: string;
  name: string;
  reason: string;
}

/** What a data room folder holds, each list in natural name order. */
export interface DataRoomScan {
  documents: DataRoomDocument[];
  unsupported: DataRoomSkipped[];
}

/** Not documents a user put there: the system's and editors' own files (Office lock files "~$nda.docx", Windows thumbnails). */
function isSystemFile(name: string): boolean {
  return name.startsWith('.') || name.startsWith('~$') || /^(?:thumbs\.db|desktop\.ini|icon\r)$/i.test(name);
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Natural, case-insensitive order ("nda2" before "nda10", "b" before "C"); names equal but for case in code-point order, so the order is total. */
export function compareNames(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Every regular file directly in the folder (not in subfolders; hidden and system files skipped), each recognised by content. */
export async function scanDataRoom(folder: string, limits: Partial<DocumentLimits> = {}): Promise<DataRoomScan> {
  const { maxFileBytes } = documentLimits(limits);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such folder' : code === 'ENOTDIR' ? 'is a file, not a folder' : `cannot be read: ${(error as Error).message}`;
    throw new DocumentError(folder, reason);
  }
  const scan: DataRoomScan = { documents: [], unsupported: [] };
  for (const name of names.filter((n) => !isSystemFile(n)).sort(compareNames)) {
    const path = join(folder, name);
    const skip = (reason: string) => scan.unsupported.push({ path, name, reason });
    // stat follows a symbolic link, so a link to a document counts as the document.
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) {
      // A link whose target is gone may well have been meant as a document: said, not dropped.
      if ((await lstat(path).catch(() => undefined))?.isSymbolicLink()) skip('a link to a file that does not exist');
      continue;
    }
    if (!info.isFile()) continue;
    // The reasons are readDocument's own, so a file is refused in the same words whichever way it comes.
    if (info.size === 0) skip(EMPTY_FILE);
    else if (info.size > maxFileBytes) skip(tooLarge(info.size, maxFileBytes));
    else {
      const bytes = await readFile(path);
      const format = detectFormat(bytes);
      if (format) scan.documents.push({ path, name, format });
      else skip(unsupportedReason(bytes));
    }
  }
  return scan;
}

/** A data room's documents and the files in it that cannot be merged, each in natural name order. */
export interface DataRoom {
  /** Paths of the files recognised as documents. */
  files: string[];
  /** Files of unsupported content, empty or over the size limit: for the caller to refuse (or, if the user opts out, to name as skipped). */
  unsupported: DataRoomSkipped[];
}

/**
 * The paths of a data room's documents in natural name order, and its files that cannot be merged
 * reported apart, never dropped: the caller refuses them (a merge missing a contract looks complete
 * and is not). Throws DocumentError naming the folder when it cannot be read, holds no document,
 * or holds more than a run can merge.
 */
export async function listDataRoom(folder: string, limits: Partial<DocumentLimits> = {}): Promise<DataRoom> {
  const resolved = documentLimits(limits);
  const { documents, unsupported } = await scanDataRoom(folder, resolved);
  if (documents.length === 0) {
    const skipped = unsupported.length > 0 ? ` (${unsupported.map((f) => `${f.name}: ${f.reason}`).join('; ')})` : '';
    throw new DocumentError(folder, `the folder holds no supported document${skipped}; supported are ${SUPPORTED_FORMATS}`);
  }
  if (documents.length > resolved.maxDocuments) {
    throw new DocumentError(
      folder,
      `the folder holds ${documents.length} documents; at most ${resolved.maxDocuments} can be merged in one run`,
    );
  }
  return { files: documents.map((d) => d.path), unsupported };
}
