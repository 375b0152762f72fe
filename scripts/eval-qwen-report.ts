/**
 * The paper's experiment on Qwen2.5-Coder-1.5B, summed up from the journals `scripts/eval-qwen.sh`
 * writes: one table over every cell measured so far, and each claim of the paper checked against it.
 * Writes docs/eval-qwen/results.md; safe to run while the evaluation is still going (a cell counts
 * the runs finished so far).  Run: `npx tsx scripts/eval-qwen-report.ts`.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EvalRow, ResultJournal } from '../src/eval/results';
import { TASKS } from '../src/tasks/registry';
import { mean, pBelow, tInterval } from '../src/tune/stats';
import { clauseComparison } from './eval-qwen-clauses';

// OUT as in scripts/eval-qwen.sh: another checkout's docs/eval-qwen, say.
const DIR = process.env.OUT ?? join(import.meta.dirname, '..', 'docs', 'eval-qwen');
const SCHEMES = ['io', 'cot', 'tot', 'got', 'got2', 'got8', 'clauses']; // keyword counting's GoT is GoT8 (scripts/eval-qwen.sh)

/** Cells whose folder names a scheme parameter (scripts/eval-qwen.sh): their runs are a scheme of their own here, never the paper's. */
const VARIANTS: Record<string, string> = {
  '-split-engine': 'split=engine',
  '-structured': 'structured',
  '-sectioned': 'sections=always',
  // The clause comparison's cells (decision 97): rows 0-6 and 8-10, reported in their own section too.
  '-sectioned-rows': 'sections=always, rows 0-6 and 8-10',
  'doc-merge-rows': 'rows 0-6 and 8-10',
  // The clauses scheme's earlier aligners (decisions 91, 97).
  '-clauses-v1': 'first aligner',
  '-clauses-v2': 'kinds aligner, no clause put back',
  '-clauses-v3': 'one value, clauses put back (decision 97)',
};

/** What each variant changes, in words, for the line that compares it. */
const VARIANT_WORDS: Record<string, string> = {
  'split=engine': 'the input cut by the engine, not the LLM (decision 83)',
  structured: "answers in the task's schema, lists held to their length (decision 85)",
  'sections=always': 'the documents merged section by section though they fit one prompt (decision 87)',
};

/** The cells that only repeat another cell's runs on other rows or an earlier scheme's form: not a claim's variant. */
const REPORTED_APART = new Set([
  'sections=always, rows 0-6 and 8-10',
  'rows 0-6 and 8-10',
  'first aligner',
  'kinds aligner, no clause put back',
  'one value, clauses put back (decision 97)',
]);

/** Tasks whose size is the sample's own (keyword counting: the countries in each text), shown as "—". */
const SIZE_PER_SAMPLE = new Set(['keyword-counting']);

interface Cell {
  task: string;
  size: number;
  scheme: string;
  rows: EvalRow[];
}

const finished = (r: EvalRow) => r.status === 'completed' || r.status === 'noAnswer';
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length ? (s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2) : Number.NaN;
};

/** A run's score as the paper counts it: a run with no answer scores the task's no-answer score. */
function scoreOf(r: EvalRow): number {
  return r.score ?? TASKS[r.task]!.noAnswerScore;
}

function readCells(): Cell[] {
  const cells = new Map<string, Cell>();
  for (const name of existsSync(DIR) ? readdirSync(DIR, { withFileTypes: true }) : []) {
    if (!name.isDirectory()) continue;
    const journal = new ResultJournal(join(DIR, name.name, 'runs.jsonl'));
    const variant = Object.entries(VARIANTS).find(([suffix]) => name.name.endsWith(suffix))?.[1];
    // The latest row per run: a failed run retried later counts once.
    const latest = new Map(journal.read().map((r) => [`${r.task}/${r.scheme}/${r.size}/${r.sample}`, r]));
    for (const r of latest.values()) {
      if (!finished(r)) continue;
      // A cell is a folder: keyword counting's size is each text's own (its countries), not the cell's.
      const size = SIZE_PER_SAMPLE.has(r.task) ? 0 : r.size;
      const scheme = variant ? `${r.scheme} ${variant}` : r.scheme;
      const key = `${r.task}/${size}/${scheme}`;
      const cell = cells.get(key) ?? { task: r.task, size, scheme, rows: [] };
      cell.rows.push(r);
      cells.set(key, cell);
    }
  }
  // A variant follows its scheme.
  const order = (c: Cell) => `${c.task}/${String(c.size).padStart(4, '0')}/${SCHEMES.indexOf(c.scheme.split(' ')[0]!)}/${c.scheme}`;
  return [...cells.values()].sort((a, b) => order(a).localeCompare(order(b)));
}

function table(cells: Cell[]): string {
  const lines = [
    '| task | size | scheme | runs | no answer | median score | mean score [95% interval] | solved | mean tokens (in / out) | mean wall | mean cost at GPT-3.5 prices | sources kept (merges) |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of cells) {
    const scores = c.rows.map(scoreOf);
    const higher = TASKS[c.task]!.higherIsBetter;
    lines.push(
      `| ${c.task} | ${SIZE_PER_SAMPLE.has(c.task) ? '—' : c.size} | ${c.scheme} | ${c.rows.length} | ${c.rows.filter((r) => r.status === 'noAnswer').length} | ${median(scores).toFixed(higher ? 2 : 1)} | ${withInterval(scores, 2)} | ${c.rows.filter((r) => r.solved).length} | ${Math.round(mean(c.rows.map((r) => r.promptTokens)))} / ${Math.round(mean(c.rows.map((r) => r.completionTokens)))} | ${(mean(c.rows.map((r) => r.wallMs)) / 1000).toFixed(0)} s | $${mean(c.rows.map((r) => r.costUsd)).toFixed(4)} | ${keptCell(c.rows)} |`,
    );
  }
  return lines.join('\n');
}

/** The share of the sources' clauses each run's merge keeps: 0 for a run with no answer, none for a run that did not record it. */
function keptOf(rows: EvalRow[]): number[] {
  return rows.flatMap((r) => (r.status === 'noAnswer' ? [0] : r.kept === undefined ? [] : [r.kept]));
}

const percent = (shares: number[]) => `${Math.round(100 * mean(shares))}%`;

/** Shares kept of some of the runs, as `m% (n of N runs)`; `none` when no run measured it. */
const keptOfRuns = (shares: number[], rows: EvalRow[], none: string) =>
  shares.length ? `${percent(shares)} (${shares.length} of ${rows.length} runs)` : none;

/** The mean share of the sources' clauses the merges keep (decision 79), over the runs that recorded it. */
function keptCell(rows: EvalRow[]): string {
  return keptOfRuns(
    rows.flatMap((r) => (r.kept === undefined ? [] : [r.kept])),
    rows,
    '',
  );
}

/** A mean with its 95% t-interval, as `m [low, high]` (no interval from one run). */
function withInterval(values: number[], digits: number): string {
  const { mean: m, low, high } = tInterval(values, 0.95);
  return values.length < 2 ? m.toFixed(digits) : `${m.toFixed(digits)} [${low.toFixed(digits)}, ${high.toFixed(digits)}]`;
}

/** The level at which a comparison counts as shown. */
const ALPHA = 0.05;

const formatP = (p: number) => (p < 0.001 ? '< 0.001' : `= ${p.toFixed(3)}`);

/**
 * How a claim "a is lower than b", made for each of its comparisons (each size, each task), stands on
 * these runs, by one-sided exact permutation tests (`pBelow`): confirmed when every comparison shows
 * it at p < 0.05 (each must hold, so no correction is due); contradicted when one shows the opposite at
 * p < 0.05 / k over k comparisons (Bonferroni: any one of k may refute); otherwise not settled, with
 * the direction the means point so far. Few runs cannot settle anything: 2 against 2 cannot go below
 * p = 1/6, 3 against 3 below 1/20.
 */
function verdict(comparisons: { label: string; a: number[]; b: number[] }[]): string {
  const tested = comparisons.map((c) => ({ ...c, p: pBelow(c.a, c.b), opposite: pBelow(c.b, c.a) }));
  const ps = (key: 'p' | 'opposite') => tested.map((c) => `p ${formatP(c[key])}${tested.length > 1 ? ` at ${c.label}` : ''}`).join(', ');
  const tests = `one-sided permutation test${tested.length > 1 ? 's' : ''}`;
  if (tested.every((c) => c.p < ALPHA)) return `**confirmed** (${tests}: ${ps('p')})`;
  const against = tested.filter((c) => c.opposite < ALPHA / tested.length);
  if (against.length) {
    const where = against.map((c) => `${tested.length > 1 ? `${c.label}: ` : ''}p ${formatP(c.opposite)}`).join(', ');
    return `**contradicted**: the opposite holds (one-sided permutation test${against.length > 1 ? 's' : ''}, ${where}${tested.length > 1 ? `; each against 0.05 / ${tested.length}` : ''})`;
  }
  const direction = tested.every((c) => mean(c.a) < mean(c.b))
    ? 'as claimed'
    : tested.every((c) => mean(c.a) >= mean(c.b))
      ? 'not as claimed'
      : 'as claimed at some, not at others';
  return `**not settled** (so far ${direction}; ${tests} of the claim: ${ps('p')})`;
}

function cellOf(cells: Cell[], task: string, size: number | undefined, scheme: string): Cell | undefined {
  return cells.find((c) => c.task === task && c.scheme === scheme && (size === undefined || c.size === size));
}

/** One claim, checked on the cells measured: confirmed, not confirmed, or not measured yet. */
function claims(cells: Cell[]): string[] {
  const out: string[] = [];
  const sortingSizes = [...new Set(cells.filter((c) => c.task === 'sorting').map((c) => c.size))];
  const pairs = (task: string) =>
    [...new Set(cells.filter((c) => c.task === task).map((c) => c.size))]
      .map((size) => ({ size, got: cellOf(cells, task, size, 'got'), tot: cellOf(cells, task, size, 'tot') }))
      .filter((p) => p.got && p.tot) as { size: number; got: Cell; tot: Cell }[];

  const sorting = pairs('sorting');
  if (!sorting.length) out.push('- GoT makes fewer errors than ToT at every sorting size: not measured yet.');
  else {
    const each = sorting.map(
      (p) =>
        `${p.size}: GoT ${mean(p.got.rows.map(scoreOf)).toFixed(2)} vs ToT ${mean(p.tot.rows.map(scoreOf)).toFixed(2)} mean errors (${p.got.rows.length} / ${p.tot.rows.length} runs)`,
    );
    const judged = verdict(sorting.map((p) => ({ label: String(p.size), a: p.got.rows.map(scoreOf), b: p.tot.rows.map(scoreOf) })));
    const missing = [32, 64].filter((s) => !sortingSizes.includes(s));
    out.push(
      `- GoT makes fewer errors than ToT at every sorting size: ${judged}${missing.length ? ` on the sizes measured so far (not yet: ${missing.join(', ')})` : ''}. ${each.join('; ')}.`,
    );
  }

  const costly = ['sorting', 'set-intersection', 'keyword-counting', 'doc-merge'].flatMap((t) => pairs(t).map((p) => ({ task: t, ...p })));
  if (!costly.length) out.push('- GoT is cheaper than ToT: not measured yet.');
  else {
    const each = costly.map(
      (p) =>
        `${p.task}-${p.size}: GoT $${mean(p.got.rows.map((r) => r.costUsd)).toFixed(4)} vs ToT $${mean(p.tot.rows.map((r) => r.costUsd)).toFixed(4)}`,
    );
    const judged = verdict(
      costly.map((p) => ({ label: `${p.task}-${p.size}`, a: p.got.rows.map((r) => r.costUsd), b: p.tot.rows.map((r) => r.costUsd) })),
    );
    out.push(`- GoT is cheaper than ToT (mean cost per run at the paper's prices): ${judged}. ${each.join('; ')}.`);
  }

  // Not claims of the paper: the same comparison with GoT changed as a variant cell says.
  for (const variant of Object.values(VARIANTS)) {
    const rows = ['sorting', 'set-intersection'].flatMap((task) =>
      pairs(task).flatMap((p) => {
        const changed = cellOf(cells, task, p.size, `got ${variant}`);
        return changed ? [{ task, ...p, changed }] : [];
      }),
    );
    if (!rows.length) continue;
    const each = rows.map(
      (p) =>
        `${p.task}-${p.size}: this GoT ${mean(p.changed.rows.map(scoreOf)).toFixed(2)}, the paper's GoT ${mean(p.got.rows.map(scoreOf)).toFixed(2)}, ToT ${mean(p.tot.rows.map(scoreOf)).toFixed(2)} mean errors (${p.changed.rows.length} / ${p.got.rows.length} / ${p.tot.rows.length} runs)`,
    );
    const judged = verdict(rows.map((p) => ({ label: `${p.task}-${p.size}`, a: p.changed.rows.map(scoreOf), b: p.tot.rows.map(scoreOf) })));
    out.push(
      `- (Beside the paper's claims) GoT with ${VARIANT_WORDS[variant]} makes fewer errors than ToT: ${judged}. ${each.join('; ')}. Where each GoT run loses its errors: [got-steps.md](got-steps.md).`,
    );
  }

  // Not a claim of the paper: what the merges of a variant keep of the sources against the paper's merges of the same scheme.
  for (const variant of Object.values(VARIANTS)) {
    const rows = SCHEMES.flatMap((scheme) => {
      const paper = cellOf(cells, 'doc-merge', undefined, scheme);
      const changed = cellOf(cells, 'doc-merge', undefined, `${scheme} ${variant}`);
      return paper && changed
        ? [{ scheme, paper: keptOf(paper.rows), changed: keptOf(changed.rows), paperScores: paper.rows, changedScores: changed.rows }]
        : [];
    });
    if (!rows.length) continue;
    const each = rows.map(
      (r) =>
        `${r.scheme}: ${percent(r.changed)} against ${percent(r.paper)} (${r.changed.length} / ${r.paper.length} runs), judged ${mean(r.changedScores.map(scoreOf)).toFixed(2)} against ${mean(r.paperScores.map(scoreOf)).toFixed(2)}`,
    );
    // "The paper's merges keep less": a run with no answer keeps nothing.
    const judged = verdict(rows.map((r) => ({ label: r.scheme, a: r.paper, b: r.changed })));
    out.push(
      `- (Beside the paper's claims) document merges with ${VARIANT_WORDS[variant]} keep more of the sources' clauses: ${judged}. Mean share kept ${each.join('; ')}.`,
    );
  }

  const got = cellOf(cells, 'doc-merge', undefined, 'got');
  const io = cellOf(cells, 'doc-merge', undefined, 'io');
  if (!got || !io) out.push("- GoT's document merges score better than IO's: not measured yet.");
  else {
    const g = mean(got.rows.map(scoreOf));
    const i = mean(io.rows.map(scoreOf));
    // Higher is better here: "IO lower than GoT".
    const judged = verdict([{ label: 'doc-merge', a: io.rows.map(scoreOf), b: got.rows.map(scoreOf) }]);
    // The judge is the model itself and does not see what a merge drops: what the merges keep, beside it.
    const kept = (rows: EvalRow[]) => keptOfRuns(keptOf(rows), rows, 'not measured');
    out.push(
      `- GoT's document merges score better than IO's: ${judged}. Mean score GoT ${g.toFixed(2)} vs IO ${i.toFixed(2)} (${got.rows.length} / ${io.rows.length} runs). The judge is the model itself; the share of the sources' clauses the merges keep, by the engine's measure (decision 79): GoT ${kept(got.rows)}, IO ${kept(io.rows)}.`,
    );
  }
  return out;
}

const cells = readCells();
const clauses = await clauseComparison(DIR);
const runs = cells.reduce((n, c) => n + c.rows.length, 0);
const text = `# The paper's experiment on Qwen2.5-Coder-1.5B: results so far

Generated by \`npx tsx scripts/eval-qwen-report.ts\` from the journals in this folder (${runs} runs
finished); how they were made: [README.md](README.md). Scores: errors for sorting, set intersection
and keyword counting (lower is better), the judge's 0–10 for document merges (higher is better); a
run with no answer scores the task's no-answer score. Costs are what the tokens would cost at the
paper's GPT-3.5 prices ($1.5 / $2 per million input / output tokens); the runs themselves cost nothing.

${table(cells)}

## The paper's claims, checked

${claims(cells.filter((c) => !REPORTED_APART.has(c.scheme.split(' ').slice(1).join(' ')))).join('\n')}
${clauses ? `\n## Clause by clause (issue 38): the same NDA rows, scheme beside scheme\n\n${clauses}\n` : ''}`;
writeFileSync(join(DIR, 'results.md'), text);
console.log(text);
