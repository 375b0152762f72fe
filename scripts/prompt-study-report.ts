/**
 * The prompt studies on Qwen2.5-Coder-1.5B (issue 24), summed up from what `scripts/prompt-study-qwen.sh`
 * wrote, per cell: the proposal (cases, proposals kept and set aside), the study's trials, and the paper's
 * prompts against the study's best on the same test rows, with 95% t-intervals. Writes
 * docs/prompt-study/results.md; safe to run while the study is still going (it reports what exists).
 * Run: `npx tsx scripts/prompt-study-report.ts`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Proposal } from '../src/cli/commands/prompts';
import { type EvalRow, ResultJournal } from '../src/eval/results';
import { keywordCountingTask } from '../src/tasks/keyword-counting';
import { sortingTask } from '../src/tasks/sorting';
import { splitRows } from '../src/tune/data-split';
import type { StudyResult } from '../src/tune/results';
import { mean, sum, tInterval } from '../src/tune/stats';
import { configText } from '../src/tune/table';

const DIR = join(import.meta.dirname, '..', 'docs', 'prompt-study');

/** The cells `scripts/prompt-study-qwen.sh` measures. */
const CELLS = [
  { name: 'sorting-32', title: 'Sorting 32 digits', task: sortingTask, prompt: 'sort', dataset: 'sorting_032.csv', rows: 100 },
  { name: 'keyword-counting', title: 'Keyword counting', task: keywordCountingTask, prompt: 'count', dataset: 'countries.csv', rows: 99 },
] as const;
type Cell = (typeof CELLS)[number];

const readJson = <T>(path: string): T | undefined => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined);
const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function interval(scores: number[]): string {
  if (scores.length < 2) return scores.length ? fmt(scores[0]!) : 'n/a';
  const { mean: m, low, high } = tInterval(scores, 0.95);
  return `${fmt(m)} [${fmt(low)}, ${fmt(high)}]`;
}

function proposalSection(cell: Cell): string {
  const dir = join(DIR, cell.name);
  const proposal = readJson<Proposal>(join(dir, 'proposal', 'proposal.json'));
  if (!proposal) return 'Not run yet.';
  const wrong = proposal.cases.filter((c) => c.failed).length;
  const candidates = readJson<Record<string, { instruction?: string[]; examples?: string[][] }>>(join(dir, 'proposal', 'candidates.json'));
  const part = candidates?.[cell.prompt];
  const kept = part?.instruction ?? [];
  return [
    `IO with the paper's ${cell.prompt} prompt on ${proposal.cases.length} training rows (${proposal.cases.map((c) => c.sample).join(', ')}): ${wrong} wrong, scores ${proposal.cases.map((c) => c.score).join(', ')}.`,
    `The proposer (the same model, ${proposal.proposer.proposals.length} samples of one call) proposed ${proposal.proposer.proposals.length} instructions; ${kept.length} kept${proposal.proposer.rejected.length ? `, set aside: ${proposal.proposer.rejected.map((r) => `"${r.text.slice(0, 60)}…" (${r.why})`).join('; ')}` : ''}.`,
    '',
    ...kept.map((text, i) => `${i + 1}. ${text.replace(/\n/g, ' ')}`),
    '',
    `Example sets: none (0) and ${(part?.examples?.length ?? 1) - 1} sets of training rows solved by the task itself (1..).`,
  ].join('\n');
}

function studySection(cell: Cell): string {
  const study = readJson<StudyResult>(join(DIR, cell.name, 'study', 'trials.json'));
  if (!study) return 'Not run yet.';
  const rows = study.trials.map(
    (t) =>
      `| ${t.index}${t.index === study.best ? ' (best)' : ''} | ${configText(study, t.config)} | ${t.samples.length} | ${t.score ? `${fmt(t.score.mean)} [${fmt(t.score.low)}, ${fmt(t.score.high)}]` : 'failed'} | ${t.cost ? `$${t.cost.mean.toFixed(5)}` : '-'} | ${t.llmCalls} (${t.cachedCalls} cached) |`,
  );
  return [
    '| trial | configuration | samples | mean score [95% CI] | mean cost at GPT-3.5 prices | calls |',
    '|---|---|---:|---|---:|---:|',
    ...rows,
    '',
    `The study: ${sum(study.trials.map((t) => t.samples.length))} runs, $${sum(study.trials.map((t) => t.costUsd)).toFixed(4)} at GPT-3.5 prices ($${sum(study.trials.map((t) => t.paidUsd)).toFixed(4)} of it for calls that reached the model; its wall time is in README.md). Its Pareto figure (score against cost): [${cell.name}/study/pareto.png](${cell.name}/study/pareto.png); each test arm's figure is \`figure.png\` in its folder.`,
  ].join('\n');
}

function testRows(cell: Cell, name: string): EvalRow[] {
  const path = join(DIR, cell.name, name, 'runs.jsonl');
  if (!existsSync(path)) return [];
  // The latest row per sample: two instances of the script may both record a run they awaited together.
  const latest = new Map(new ResultJournal(path).read().map((r) => [`${r.scheme}/${r.size}/${r.sample}`, r]));
  return [...latest.values()].filter((r) => r.status !== 'failed');
}

function testSection(cell: Cell): string {
  const arms = [
    { label: "the paper's prompts", rows: testRows(cell, 'test-paper') },
    { label: "the study's best prompts", rows: testRows(cell, 'test-tuned') },
  ];
  const lines = arms.map(({ label, rows }) => {
    const scores = rows.map((r) => r.score ?? cell.task.noAnswerScore);
    const solved = rows.filter((r) => r.solved).length;
    const tokens = `${fmt(mean(rows.map((r) => r.promptTokens)), 0)} / ${fmt(mean(rows.map((r) => r.completionTokens)), 0)}`;
    return `| ${label} | ${rows.length} | ${interval(scores)} | ${solved} | ${tokens} | $${fmt(mean(rows.map((r) => r.costUsd)), 5)} | ${fmt(mean(rows.map((r) => r.wallMs)) / 1000, 0)} s |`;
  });
  return [
    `| IO ${cell.prompt} prompt | test rows | mean score [95% CI] | solved | mean tokens (in / out) | mean cost at GPT-3.5 prices | mean wall |`,
    '|---|---:|---|---:|---:|---:|---:|',
    ...lines,
  ].join('\n');
}

function cellSection(cell: Cell): string {
  const train = splitRows(cell.rows, 'train');
  return `## ${cell.title} (\`${cell.dataset}\`, IO's ${cell.prompt} prompt)

Training rows ${train.first + 1}–${train.end} for the proposal and the study; the first test rows for the
comparison. Score: ${cell.task.higherIsBetter ? 'higher' : 'lower'} is better; a run with no answer counts ${cell.task.noAnswerScore}, as in \`got eval\`.

### Candidates

${proposalSection(cell)}

### The study (training rows)

${studySection(cell)}

### The test split

${testSection(cell)}
`;
}

const text = `# Prompt optimisation on Qwen2.5-Coder-1.5B: results so far

Generated by \`npx tsx scripts/prompt-study-report.ts\` from the folders \`scripts/prompt-study-qwen.sh\`
writes; how they were made: [README.md](README.md). Scores are errors as the paper counts them; costs
are what the tokens would cost at the paper's GPT-3.5 prices ($1.5 / $2 per million input / output
tokens); the runs themselves cost nothing.

${CELLS.map(cellSection).join('\n')}`;
writeFileSync(join(DIR, 'results.md'), text);
console.log(text);
