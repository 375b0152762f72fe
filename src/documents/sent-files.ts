import { z } from 'zod';
import { parseOrThrow, ValidationError } from '../goo/validate';
import type { AnyTask } from '../tasks/task';
import { readDocument, sourceOf } from './read';
import { DocumentError, type SourceInfo } from './types';

/** Base64 characters of one file sent in a request: 50 MB of file (4/3 of it), the documents' byte limit. */
const MAX_BASE64_CHARS = Math.ceil((50 * 1024 * 1024 * 4) / 3) + 4;
/** As many files as a merge takes documents. */
const MAX_FILES = 50;

/** One file as a client in another language sends it: its name and its bytes in base64 (the worker reads it by content). */
export const SentFile = z.strictObject({
  name: z.string().min(1).max(500).describe('the file name, shown as the source in reviews and outputs'),
  base64: z.string().min(1).max(MAX_BASE64_CHARS).describe('the file itself (PDF, DOCX, HTML, Markdown or text), base64'),
});

/**
 * A task's problem as files (doc-merge: the documents to merge), for clients that cannot read PDF or
 * DOCX themselves: the worker reads them before checking the request (docs/decisions.md, 60).
 */
export const ProblemFiles = z.strictObject({
  files: z.array(SentFile).min(1).max(MAX_FILES).describe('the files, in the order to merge them'),
});
export type ProblemFiles = z.infer<typeof ProblemFiles>;

const isProblemFiles = (problem: unknown): problem is { files: unknown } =>
  typeof problem === 'object' && problem !== null && !Array.isArray(problem) && 'files' in problem;

/**
 * The request with a problem sent as files replaced by the task's problem made of them; any other
 * request as it is. Every file that cannot be read is reported, named, before any LLM call.
 */
export async function readSentFiles<R extends { task?: unknown; problem?: unknown }>(request: R, task: AnyTask | undefined): Promise<R> {
  if (!isProblemFiles(request.problem) || !task?.problemFromFiles) return request;
  const sent = parseOrThrow(ProblemFiles, request.problem, 'run request', 'problem');
  const issues: { path: string; message: string }[] = [];
  const files: { path: string; text: string; source: SourceInfo }[] = [];
  for (const [i, file] of sent.files.entries()) {
    try {
      const document = await readDocument(Buffer.from(file.base64, 'base64'), file.name);
      files.push({ path: file.name, text: document.text, source: sourceOf(document) });
    } catch (e) {
      if (!(e instanceof DocumentError)) throw e;
      issues.push({ path: `problem.files[${i}]`, message: e.message });
    }
  }
  if (issues.length) throw new ValidationError('run request', issues);
  return { ...request, problem: task.problemFromFiles(files) };
}
