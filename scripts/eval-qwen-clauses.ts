/**
 * The clause-by-clause comparison of the Qwen evaluation (issue 38, decision 97): the cells run on the
 * same NDA rows (`MERGE_ROWS` of scripts/eval-qwen.sh), compared on the rows every one of them has
 * finished: what the engine's review says of each best merge, the judge, tokens and wall time; a
 * table for results.md and a figure (clause-comparison.svg / .png). Used by eval-qwen-report.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { renderFigure } from '../src/eval/figure';
import { type EvalRow, ResultJournal } from '../src/eval/results';
import { rejudged } from './eval-qwen-rejudge';
import { remeasured } from './eval-qwen-remeasure';

/** The cells compared, by folder, and the schemes of each (a folder may hold two). */
const CELLS: { folder: string; label: (scheme: string) => string }[] = [
  { folder: 'doc-merge-clauses', label: () => 'clauses' },
  // The runs of decision 97's code, their group clauses joined by the current join (decision 99).
  { folder: 'doc-merge-clauses-v3', label: () => 'clauses, runs of decision 97 joined anew' },
  { folder: 'doc-merge-sectioned-rows', label: (s) => `${s} sections=always` },
  { folder: 'doc-merge-rows', label: (s) => s },
];

interface Series {
  label: string;
  rows: (EvalRow & { rejudged?: number })[];
}

const finished = (r: EvalRow) => r.status === 'completed' || r.status === 'noAnswer';
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

function series(dir: string): Series[] {
  const out = new Map<string, Series['rows']>();
  for (const { folder, label } of CELLS) {
    const file = join(dir, folder, 'runs.jsonl');
    if (!existsSync(file)) continue;
    const latest = new Map(new ResultJournal(file).read().map((r) => [`${r.scheme}/${r.sample}`, r]));
    // The review's measures as the current code takes them, where the runs were measured anew.
    const again = remeasured(join(dir, folder));
    const judged = rejudged(join(dir, folder));
    for (const r of latest.values()) {
      const { workflowId: _, measures: __, rejoined: ___, ...measures } = again.get(r.workflowId) ?? { workflowId: '', measures: 0 };
      const fresh = judged.get(r.workflowId);
      if (finished(r))
        out.set(label(r.scheme), [...(out.get(label(r.scheme)) ?? []), { ...r, ...measures, ...(fresh ? { rejudged: fresh.score } : {}) }]);
    }
  }
  return [...out].map(([label, rows]) => ({ label, rows }));
}

const fmt = (x: number, digits: number, suffix = '') => (Number.isFinite(x) ? `${x.toFixed(digits)}${suffix}` : '–');
const measured = (rows: EvalRow[], key: 'kept' | 'setAside' | 'repeated' | 'unsupported' | 'undecided') =>
  rows.flatMap((r) => (typeof r[key] === 'number' ? [r[key] as number] : []));

/** The mean of the fresh judge's scores (scripts/eval-qwen-rejudge.ts) over the runs that have one, and how many. */
function afresh(rows: (EvalRow & { rejudged?: number })[]): string {
  const fresh = rows.flatMap((r) => (r.rejudged !== undefined ? [r.rejudged] : []));
  return fresh.length ? `${fmt(mean(fresh), 2)} (${fresh.length})` : '–';
}

/** The share of the prompt tokens the server took from its cache, over the runs that recorded it (since session 20). */
function cacheShare(rows: EvalRow[]): string {
  const recorded = rows.filter((r) => r.cachedPromptTokens !== undefined);
  if (!recorded.length) return 'not recorded';
  const share = recorded.reduce((n, r) => n + r.cachedPromptTokens!, 0) / recorded.reduce((n, r) => n + r.promptTokens, 0);
  return `${fmt(100 * share, 0, '%')}${recorded.length < rows.length ? ` (${recorded.length} of ${rows.length} runs)` : ''}`;
}

/** The comparison's markdown section, and its figure written beside results.md. */
export async function clauseComparison(dir: string): Promise<string> {
  const all = series(dir);
  if (!all.length) return '';
  // The rows the clause merge has finished; each scheme's means over those of them it has finished too
  // (its run count says how many: a scheme with fewer is compared on fewer NDAs).
  const common = new Set(all.filter((s) => s.label.startsWith('clauses')).flatMap((s) => s.rows.map((r) => r.sample)));
  const rows = [...common].sort((a, b) => Number(a) - Number(b));
  const lines = [
    `Rows: ${rows.length ? rows.join(', ') : 'none yet'}, those the clause merge has finished; each scheme's means are over those of them it has finished (its runs). Row by row, all schemes: ${rows.filter((r) => all.every((s) => s.rows.some((x) => x.sample === r))).join(', ') || 'none'}. The review's measures are decision 99's: runs made before it were measured anew from their histories (\`scripts/eval-qwen-remeasure.ts\`); "joined anew" rows keep the judge's score, tokens and wall time of their run, whose merge was joined by decision 97's code. "Judge afresh": one new judge call (3 samples) on each run's final merge (\`scripts/eval-qwen-rejudge.ts\`); a GoT or ToT run's own score is the judge's score of the thought it kept because the judge scored it highest, which noise in the judge lifts.`,
    '',
    '| scheme | runs | sources kept | kept or set aside for review | repeated clauses | unsupported | undecided disagreements | judge (its own score) | judge afresh (runs) | tokens (in / out) | prompt tokens from the cache | wall |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const points: { scheme: string; measure: string; value: number }[] = [];
  for (const s of all) {
    const on = s.rows.filter((r) => common.has(r.sample));
    if (!on.length) continue;
    const kept = mean(measured(on, 'kept'));
    const judge = mean(on.map((r) => r.score ?? 0));
    lines.push(
      `| ${s.label} | ${on.length} | ${fmt(100 * kept, 1, '%')} | ${fmt(100 * (kept + mean(measured(on, 'setAside'))), 1, '%')} | ${fmt(mean(measured(on, 'repeated')), 1)} | ${fmt(100 * mean(measured(on, 'unsupported')), 1, '%')} | ${fmt(mean(measured(on, 'undecided')), 1)} | ${fmt(judge, 2)} | ${afresh(on)} | ${Math.round(mean(on.map((r) => r.promptTokens)))} / ${Math.round(mean(on.map((r) => r.completionTokens)))} | ${cacheShare(on)} | ${fmt(mean(on.map((r) => r.wallMs)) / 1000, 0, ' s')} |`,
    );
    const fresh = on.flatMap((r) => (r.rejudged !== undefined ? [r.rejudged] : []));
    points.push(
      { scheme: s.label, measure: 'sources kept (0-10)', value: 10 * kept },
      { scheme: s.label, measure: 'judge, its own score (0-10)', value: judge },
      ...(fresh.length ? [{ scheme: s.label, measure: 'judge afresh (0-10)', value: mean(fresh) }] : []),
    );
  }
  if (points.length) {
    const spec: TopLevelSpec = {
      title: `Clause by clause on Qwen2.5-Coder-1.5B, NDA row${rows.length === 1 ? '' : 's'} ${rows.join(', ')}`,
      data: { values: points },
      mark: 'bar',
      encoding: {
        x: { field: 'scheme', type: 'nominal', title: null, axis: { labelAngle: 0 } },
        xOffset: { field: 'measure' },
        y: { field: 'value', type: 'quantitative', title: 'mean', scale: { domain: [0, 10] } },
        color: { field: 'measure', type: 'nominal', title: null },
      },
      width: 420,
      height: 220,
    };
    await renderFigure(spec, join(dir, 'clause-comparison.svg'), join(dir, 'clause-comparison.png'));
    lines.push('', '![Sources kept and the judge per scheme](clause-comparison.png)');
  }
  return lines.join('\n');
}
