/**
 * What the scripts that measure the Qwen evaluation's runs again share (eval-qwen-remeasure.ts,
 * eval-qwen-rejudge.ts): the NDA rows the runs merged, and a cell's lines about its runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocMergeCsv } from '../src/tasks/doc-merge/dataset';

/** The paper's NDA rows by id (`DATASET`, default ../shared/data/got-examples/documents.csv). */
export function ndaProblems(): { file: string; problems: Map<string, { documents: string[] }> } {
  const file = process.env.DATASET ?? join(import.meta.dirname, '..', '..', 'shared', 'data', 'got-examples', 'documents.csv');
  return { file, problems: new Map(parseDocMergeCsv(readFileSync(file, 'utf8')).map((s) => [s.id, s.problem])) };
}

/** A cell's JSON lines about its runs (`remeasured.jsonl`, `rejudged.jsonl`), the latest per workflow id. */
export function linesByRun<T extends { workflowId: string }>(folder: string, name: string): Map<string, T> {
  const file = join(folder, name);
  if (!existsSync(file)) return new Map();
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return new Map(lines.map((l) => JSON.parse(l) as T).map((r) => [r.workflowId, r]));
}
