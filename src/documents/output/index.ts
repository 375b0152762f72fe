import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ValidationError } from '../../goo/validate';
import { toDocx } from './docx';
import { toHtmlDocument } from './html';
import type { MergedOutput } from './layout';
import { toMarkdown } from './markdown';

/**
 * Writes a merged result where the user asked (`--output`), in the format its file extension names.
 * The formats' writers are pure (text or bytes in, no I/O); this module is the only one that writes.
 */

export { type MergedOutput, outputOfReview } from './layout';

/** Output formats by file extension: what `--output` accepts. */
export const OUTPUT_FORMATS = { '.docx': 'docx', '.md': 'markdown', '.html': 'html', '.txt': 'text' } as const;
/** One of the output formats. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[keyof typeof OUTPUT_FORMATS];

/**
 * The format an output path asks for, by its extension (any case). Throws a ValidationError on
 * `--output` naming the supported extensions, so a CLI can check the path before a run starts.
 */
export function outputFormatOf(path: string): OutputFormat {
  const ext = extname(path).toLowerCase();
  const format = (OUTPUT_FORMATS as Record<string, OutputFormat>)[ext];
  if (format) return format;
  const supported = Object.keys(OUTPUT_FORMATS).join(', ');
  throw new ValidationError('output', [
    { path: '--output', message: `cannot write a "${ext || 'no extension'}" file (${path}); use one of ${supported}` },
  ]);
}

/** The merged output in a format: bytes for DOCX, text for the others (`text` is the merged text exactly as the run produced it). */
export async function renderMergedOutput(format: OutputFormat, o: MergedOutput): Promise<Buffer | string> {
  switch (format) {
    case 'docx':
      return toDocx(o);
    case 'markdown':
      return toMarkdown(o);
    case 'html':
      return toHtmlDocument(o);
    case 'text':
      return o.merged;
  }
}

/** Writes the merged output to `path` in the format its extension names (.docx, .md, .html, .txt); returns that format. */
export async function writeMergedOutput(path: string, o: MergedOutput): Promise<OutputFormat> {
  const format = outputFormatOf(path);
  await writeFile(path, await renderMergedOutput(format, o));
  return format;
}
