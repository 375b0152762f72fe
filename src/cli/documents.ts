import { listDataRoom } from '../documents/folder';
import { readDocumentFile, sourceOf } from '../documents/read';
import { DocumentError, type SourceInfo } from '../documents/types';
import { ValidationError } from '../goo/validate';

/** A document given on the command line, read from its file (PDF, DOCX, HTML, Markdown or text). */
export interface InputDocument {
  path: string;
  text: string;
  source: SourceInfo;
}

/**
 * Reads `--doc` files then the `--docs` folder's, each by its content; every file that cannot be
 * merged is refused together, naming the option, the file and why, before anything starts (exit 2).
 */
export async function readInputDocuments(
  docs: string[],
  folder: string | undefined,
  log: (line: string) => void,
): Promise<InputDocument[]> {
  const issues: { path: string; message: string }[] = [];
  const paths: { option: string; path: string }[] = docs.map((path) => ({ option: '--doc', path }));
  if (folder) {
    try {
      const room = await listDataRoom(folder);
      paths.push(...room.files.map((path) => ({ option: '--docs', path })));
      for (const skipped of room.unsupported) issues.push({ path: '--docs', message: `${skipped.path}: ${skipped.reason}` });
    } catch (e) {
      if (!(e instanceof DocumentError)) throw e;
      issues.push({ path: '--docs', message: e.message });
    }
  }
  const read: InputDocument[] = [];
  for (const { option, path } of paths) {
    try {
      const document = await readDocumentFile(path);
      for (const warning of document.warnings ?? []) log(`${path}: ${warning}`);
      read.push({
        path,
        text: document.text,
        source: sourceOf(document),
      });
    } catch (e) {
      if (!(e instanceof DocumentError)) throw e;
      issues.push({ path: option, message: e.message });
    }
  }
  if (issues.length) throw new ValidationError('documents', issues);
  return read;
}
