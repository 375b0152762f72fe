/**
 * Where the Qwen evaluation's GoT runs lose their errors, step by step (decision 83): for every GoT
 * run of the list tasks, whether the split gave each part its true slice, the errors left after
 * the part steps (the best answer of each part, summed), after the root merge, and in the end.
 * Reads the runs' histories from the local dev server (`got inspect`'s rebuild); keeps what it read in
 * docs/eval-qwen/got-steps.json, so a run whose history has expired keeps its row; writes
 * docs/eval-qwen/got-steps.md. Run: `npx tsx scripts/eval-qwen-steps.ts`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { ResultJournal } from '../src/eval/results';
import type { Grs, ThoughtState } from '../src/grs/types';
import { inspectRun } from '../src/inspect/rebuild';

// OUT as in scripts/eval-qwen.sh: another checkout's docs/eval-qwen, say.
const OUT = process.env.OUT ?? join(import.meta.dirname, '..', 'docs', 'eval-qwen');
/** The cells with a GoT that splits, and how their thoughts name the part's truth and what the model was shown of it. */
const CELLS: Record<string, { truth: string; shown: string; partStep: string }> = {
  'sorting-32': { truth: 'unsorted', shown: 'list', partStep: 'sort' },
  'sorting-64': { truth: 'unsorted', shown: 'list', partStep: 'sort' },
  'sorting-32-split-engine': { truth: 'unsorted', shown: 'list', partStep: 'sort' },
  'sorting-64-split-engine': { truth: 'unsorted', shown: 'list', partStep: 'sort' },
  'sorting-32-structured': { truth: 'unsorted', shown: 'list', partStep: 'sort' },
  'sorting-64-structured': { truth: 'unsorted', shown: 'list', partStep: 'sort' },
  'set-intersection-32': { truth: 'subset', shown: 'given', partStep: 'intersect' },
  'set-intersection-64': { truth: 'subset', shown: 'given', partStep: 'intersect' },
  'set-intersection-32-split-engine': { truth: 'subset', shown: 'given', partStep: 'intersect' },
};

interface Steps {
  cell: string;
  sample: string;
  split: 'llm' | 'engine';
  /** Parts the split gave their true slice, of how many. */
  partsRight: number;
  parts: number;
  /** Errors after the part steps: each part's best answer, summed. */
  afterParts: number;
  /** The best answer of the merges over the whole input. */
  afterRootMerge: number;
  final: number;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const minScore = (scores: number[]) => (scores.length ? Math.min(...scores) : Number.NaN);

function stepsOf(grs: Grs, cell: string, sample: string, final: number): Steps {
  const how = CELLS[cell]!;
  const field = (s: ThoughtState, name: string) => s[name] as unknown[] | undefined;
  const whole = field(grs.thoughts[0]!.state, how.truth)!.length;
  const splitThoughts = grs.thoughts.filter((t) => t.operationId === 'split' && t.valid !== false);
  const byPart = new Map<number, number[]>();
  for (const t of grs.thoughts.filter((t) => t.operationId.startsWith(`${how.partStep}-`) && t.score !== undefined)) {
    const part = t.state.part as number;
    byPart.set(part, [...(byPart.get(part) ?? []), t.score!]);
  }
  const rootMerges = grs.thoughts.filter(
    (t) => t.operationId.startsWith('merge-') && t.score !== undefined && field(t.state, how.truth)?.length === whole,
  );
  return {
    cell,
    sample,
    split: grs.calls.some((c) => c.operationId === 'split') ? 'llm' : 'engine',
    partsRight: splitThoughts.filter((t) => same(field(t.state, how.shown), field(t.state, how.truth))).length,
    parts: byPart.size,
    afterParts: [...byPart.values()].reduce((sum, scores) => sum + minScore(scores), 0),
    afterRootMerge: minScore(rootMerges.map((t) => t.score!)),
    final,
  };
}

const cachePath = join(OUT, 'got-steps.json');
const known = new Map<string, Steps>(
  existsSync(cachePath) ? Object.entries(JSON.parse(readFileSync(cachePath, 'utf8')) as Record<string, Steps>) : [],
);
// The rebuild replays each history in a worker of its own: its state changes are not news here.
Runtime.install({ logger: new DefaultLogger('WARN') });
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
const dataConverter = dataConverterFromEnv();
const client = new Client({ connection, ...(dataConverter ? { dataConverter } : {}) });
let gone = 0;
try {
  for (const cell of Object.keys(CELLS)) {
    const journal = join(OUT, cell, 'runs.jsonl');
    if (!existsSync(journal)) continue;
    const rows = new ResultJournal(journal).read().filter((r) => r.scheme === 'got' && r.status === 'completed');
    for (const row of rows) {
      if (known.has(row.workflowId)) continue;
      try {
        const { grs } = await inspectRun(client, row.workflowId);
        known.set(row.workflowId, stepsOf(grs, cell, row.sample, row.score!));
      } catch (error) {
        if (!/not found/i.test(String((error as Error).message))) throw error;
        gone++;
      }
    }
  }
} finally {
  await connection.close();
}
writeFileSync(cachePath, `${JSON.stringify(Object.fromEntries([...known].sort()), null, 2)}\n`);

const rows = [...known.values()].sort((a, b) => a.cell.localeCompare(b.cell) || Number(a.sample) - Number(b.sample));
const mean = (xs: number[]) => (xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(1);
const byCell = Object.keys(CELLS)
  .map((cell) => rows.filter((r) => r.cell === cell))
  .filter((rs) => rs.length > 0);
writeFileSync(
  join(OUT, 'got-steps.md'),
  `# Where GoT's errors come from, step by step (Qwen2.5-Coder-1.5B)

Every GoT run of the list tasks whose history the local server still held when
\`npx tsx scripts/eval-qwen-steps.ts\` last ran (${new Date().toISOString().slice(0, 10)}; ${gone} finished runs were no
longer there): how many parts the split gave their true slice, the errors left after the part steps
(each part's best answer, summed, each scored against its true slice), after the root merge (its
best answer over the whole input) and at the end. \`split\` is who cut the input: the LLM (the
paper's GoT) or the engine (\`--param split=engine\`, decision 83).

| cell | split | runs | parts right (all runs) | mean errors after the parts | after the root merge | final |
|---|---|---:|---:|---:|---:|---:|
${byCell
  .map((rs) => {
    const right = rs.reduce((s, r) => s + r.partsRight, 0);
    const parts = rs.reduce((s, r) => s + r.parts, 0);
    return `| ${rs[0]!.cell} | ${rs[0]!.split} | ${rs.length} | ${right} of ${parts} | ${mean(rs.map((r) => r.afterParts))} | ${mean(rs.map((r) => r.afterRootMerge))} | ${mean(rs.map((r) => r.final))} |`;
  })
  .join('\n')}

## Each run

| cell | sample | split | parts right | errors after the parts | after the root merge | final |
|---|---:|---|---:|---:|---:|---:|
${rows.map((r) => `| ${r.cell} | ${r.sample} | ${r.split} | ${r.partsRight} of ${r.parts} | ${r.afterParts} | ${r.afterRootMerge} | ${r.final} |`).join('\n')}
`,
);
console.error(`wrote ${join(OUT, 'got-steps.md')} (${rows.length} runs; ${gone} no longer in history)`);
