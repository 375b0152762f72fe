/**
 * What the doc-merge runs of the Qwen evaluation had to choose from: for each run, every distinct
 * merge it produced, the judge's score and the share of the sources' clauses each keeps (the review's
 * measure), and what the run returned against the best it had. Reads the runs' histories from the
 * local dev server (`got inspect`'s rebuild); writes docs/eval-qwen/doc-merge/candidates.md.
 * Run: `npx tsx scripts/eval-qwen-candidates.ts` (decision 82).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { measureRetention, retentionTotals } from '../src/documents/retention';
import { ResultJournal } from '../src/eval/results';
import { bestThought } from '../src/grs/analysis';
import { inspectRun, runRequestOf } from '../src/inspect/rebuild';

const CELL = join(import.meta.dirname, '..', 'docs', 'eval-qwen', 'doc-merge');
const extraRuns = process.argv.slice(2); // more workflow ids, e.g. a run with retention=measured

interface Candidate {
  operation: string;
  /** Every score a judge gave this text (the same text can be made, and judged, more than once). */
  scores: number[];
  kept: number;
  perDocument: string;
}

async function candidatesOf(client: Client, workflowId: string) {
  const { grs, history } = await inspectRun(client, workflowId);
  const request = (await runRequestOf(history, client.options.dataConverter)) as { problem?: { documents?: string[] } };
  const documents = request.problem?.documents ?? [];
  // A merge is judged in a score operation of its own: one row per distinct text, with every score it got.
  const byText = new Map<string, { operation: string; scores: number[] }>();
  for (const t of grs.thoughts) {
    if (typeof t.state.merged !== 'string') continue;
    const known = byText.get(t.state.merged) ?? { operation: t.operationId, scores: [] };
    if (t.score !== undefined && !known.scores.includes(t.score)) known.scores.push(t.score);
    byText.set(t.state.merged, known);
  }
  const best = bestThought(grs, true)?.state.merged;
  const returned = typeof best === 'string' ? best : undefined;
  const keptOf = (merged: string) => {
    const retention = measureRetention(merged, documents);
    const { clauses, kept } = retentionTotals(retention);
    return { kept: clauses ? kept / clauses : 1, perDocument: retention.map((r) => `${r.kept}/${r.clauses}`).join(' ') };
  };
  const candidates: Candidate[] = [...byText].map(([merged, c]) => ({ ...c, ...keptOf(merged) }));
  return { candidates, returned: returned === undefined ? undefined : keptOf(returned) };
}

// The journal, the latest row per run (written as each run ends; runs.json only when the cell ends).
const latest = new Map(new ResultJournal(join(CELL, 'runs.jsonl')).read().map((r) => [`${r.scheme}/${r.sample}`, r]));
const rows = [...latest.values()].filter((r) => r.status === 'completed' && (r.scheme === 'tot' || r.scheme === 'got'));
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
const dataConverter = dataConverterFromEnv();
const client = new Client({ connection, ...(dataConverter ? { dataConverter } : {}) });
const pct = (x: number) => `${Math.round(100 * x)}%`;
const lines: string[] = [];
try {
  for (const id of [...rows.map((r) => r.workflowId), ...extraRuns]) {
    const { candidates, returned } = await candidatesOf(client, id);
    const best = Math.max(...candidates.map((c) => c.kept));
    lines.push(
      `\n### ${id}\n\n${candidates.length} distinct merges; the run returned one keeping ${returned ? `${pct(returned.kept)} (${returned.perDocument})` : '—'}; the best of them kept ${pct(best)}.\n`,
      '| first made by | judged | kept | per document |',
      '|---|---:|---:|---|',
      ...candidates
        .sort((a, b) => b.kept - a.kept || Math.max(0, ...b.scores) - Math.max(0, ...a.scores))
        .map((c) => `| ${c.operation} | ${c.scores.map((x) => x.toFixed(2)).join(', ') || '—'} | ${pct(c.kept)} | ${c.perDocument} |`),
    );
  }
} finally {
  await connection.close();
}
writeFileSync(
  join(CELL, 'candidates.md'),
  `# What the doc-merge runs chose from

Every distinct merge each ToT and GoT run of this cell produced (Qwen2.5-Coder-1.5B, the paper's
NDAs), the score its judge gave it and the share of the sources' clauses it keeps, as the engine's
review measures it (decision 79). Written by \`npx tsx scripts/eval-qwen-candidates.ts\` on
${new Date().toISOString().slice(0, 10)} from the runs' histories (decision 82).
${lines.join('\n')}
`,
);
console.error(`wrote ${join(CELL, 'candidates.md')}`);
