import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { type EvalJob, jobKey } from './plan';

export interface EvalRow extends EvalJob {
  /** The best final thought's score (undefined when nothing was scored). */
  score: number | null;
  solved: boolean | null;
  llmCalls: number;
  promptTokens: number;
  /** Of the prompt tokens, those the server took from its prompt cache (a local model's prefix cache, a provider's cached input). */
  cachedPromptTokens?: number;
  completionTokens: number;
  costUsd: number;
  wallMs: number;
  workflowId: string;
  /** `noAnswer`: the run completed without a valid final thought; it is scored as an unreadable answer (the task's `noAnswerScore`). */
  status: 'completed' | 'noAnswer' | 'failed';
  error?: string;
  /** Document merges: the share (0..1) of the sources' clauses the best merge keeps, from the engine's review (decision 79). */
  kept?: number;
  /** Document merges: the share (0..1) of the sources' clauses not kept that state a value the merge set aside for review (decision 99). */
  setAside?: number;
  /** Document merges: clauses of the best merge that say an earlier one again. */
  repeated?: number;
  /** Document merges: the share (0..1) of the best merge's clauses that no source supports. */
  unsupported?: number;
  /** Document merges: disagreements of the sources the best merge states no value of, or several. */
  undecided?: number;
}

/** A run that ended (with or without an answer): it is not run again, and it counts in the summary. */
const finished = (r: EvalRow) => r.status === 'completed' || r.status === 'noAnswer';

export const COLUMNS: (keyof EvalRow)[] = [
  'task',
  'scheme',
  'size',
  'sample',
  'score',
  'solved',
  'llmCalls',
  'promptTokens',
  'completionTokens',
  'costUsd',
  'wallMs',
  'workflowId',
  'status',
  'error',
  'kept',
  'repeated',
  'unsupported',
  'undecided',
  'cachedPromptTokens',
];

/**
 * Rows are appended to a JSON-lines journal as runs finish, so an interrupted evaluation resumes
 * where it stopped; CSV and JSON are rewritten from the journal.
 */
export class ResultJournal {
  constructor(private readonly path: string) {}

  read(): EvalRow[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as EvalRow);
  }

  /** Finished rows by job key (failed runs are retried on the next invocation). */
  completed(): Map<string, EvalRow> {
    return new Map(
      this.read()
        .filter(finished)
        .map((r) => [jobKey(r), r]),
    );
  }

  append(row: EvalRow): void {
    appendFileSync(this.path, `${JSON.stringify(row)}\n`);
  }
}

/** The latest row per job, in plan order. */
export function latestRows(rows: EvalRow[], order: EvalJob[]): EvalRow[] {
  const latest = new Map(rows.map((r) => [jobKey(r), r]));
  return order.map((j) => latest.get(jobKey(j))).filter((r): r is EvalRow => r !== undefined);
}

export function writeTables(rows: EvalRow[], csvPath: string, jsonPath: string): void {
  writeFileSync(csvPath, stringify(rows, { header: true, columns: COLUMNS as string[] }));
  writeFileSync(jsonPath, `${JSON.stringify(rows, null, 2)}\n`);
}

export interface SchemeSummary {
  scheme: string;
  size: number;
  runs: number;
  /** Runs that ended without a valid final thought (scored as unreadable answers). */
  noAnswer: number;
  medianScore: number | null;
  meanScore: number | null;
  solvedShare: number;
  totalCostUsd: number;
  meanWallMs: number;
}

export function summarize(rows: EvalRow[], schemes: string[]): SchemeSummary[] {
  const sizes = [...new Set(rows.map((r) => r.size))].sort((a, b) => a - b);
  return sizes.flatMap((size) =>
    schemes
      .map((scheme) => {
        const group = rows.filter((r) => r.size === size && r.scheme === scheme && finished(r));
        const scores = group
          .map((r) => r.score)
          .filter((s): s is number => s !== null)
          .sort((a, b) => a - b);
        return {
          scheme,
          size,
          runs: group.length,
          noAnswer: group.filter((r) => r.status === 'noAnswer').length,
          medianScore: scores.length ? median(scores) : null,
          meanScore: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null,
          solvedShare: group.length ? group.filter((r) => r.solved).length / group.length : 0,
          totalCostUsd: group.reduce((sum, r) => sum + r.costUsd, 0),
          meanWallMs: group.length ? group.reduce((sum, r) => sum + r.wallMs, 0) / group.length : 0,
        };
      })
      .filter((s) => s.runs > 0),
  );
}

function median(sorted: number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function formatSummary(summary: SchemeSummary[]): string {
  const header =
    '| size | scheme | runs | no answer | median score | mean score | solved | total cost | mean wall time |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|';
  const fmt = (n: number | null, digits = 2) => (n === null ? 'n/a' : n.toFixed(digits));
  const lines = summary.map(
    (s) =>
      `| ${s.size} | ${s.scheme} | ${s.runs} | ${s.noAnswer} | ${fmt(s.medianScore)} | ${fmt(s.meanScore)} | ${(s.solvedShare * 100).toFixed(0)}% | $${s.totalCostUsd.toFixed(4)} | ${(s.meanWallMs / 1000).toFixed(2)} s |`,
  );
  return [header, ...lines].join('\n');
}
