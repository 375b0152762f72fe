import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { GOT_SEARCH_ATTRIBUTES, type RunStatus } from '../../src/run/search-attributes';
import type { StudyProgress, TrialResult } from '../../src/tune/results';
import type { Config } from '../../src/tune/space';

/**
 * What the Web UI shows of a study and its trials: the runs' search attributes (task, scheme,
 * status, cost so far, best mean score so far), so `WorkflowType='tuneStudy' AND GotStatus='running'`
 * finds studies under way, and a details line with the trials table.
 */

/** Task, scheme and `running`, at the start of a study or a trial. */
export function markTuneStarted(task: string, scheme: string): void {
  const { task: taskKey, scheme: schemeKey, status } = GOT_SEARCH_ATTRIBUTES;
  upsertSearchAttributes([
    { key: taskKey, value: task },
    { key: schemeKey, value: scheme },
    { key: status, value: 'running' satisfies RunStatus },
  ]);
}

/** The cost so far and the best mean score so far (a study's best feasible trial, a trial's own mean). */
export function markTuneSpent(costUsd: number, bestScore: number | undefined): void {
  const { costUsd: costKey, bestScore: bestKey } = GOT_SEARCH_ATTRIBUTES;
  upsertSearchAttributes([
    { key: costKey, value: Math.round(costUsd * 1e6) / 1e6 },
    ...(bestScore !== undefined && Number.isFinite(bestScore) ? [{ key: bestKey, value: bestScore }] : []),
  ]);
}

/** The final status of a study or a trial. */
export function markTuneFinished(status: 'completed' | 'failed' | 'cancelled'): void {
  upsertSearchAttributes([{ key: GOT_SEARCH_ATTRIBUTES.status, value: status satisfies RunStatus }]);
}

/** A configuration as one short line: `a=1 b=2`. */
export function describeConfig(config: Config): string {
  return Object.entries(config)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}

const MAX_ROWS = 40;

/** The study page's details: progress, best so far, and the trials table (the latest rows). */
export function showStudyProgress(p: StudyProgress, trials: readonly TrialResult[]): void {
  const best = p.best
    ? `best feasible: trial ${p.best.index} (${describeConfig(p.best.config)}), mean score ${fmt(p.best.meanScore)} at $${p.best.meanCostUsd.toFixed(4)} per sample`
    : 'no feasible trial yet';
  const rows = trials.slice(-MAX_ROWS).map((t) => {
    const score = t.score ? `${fmt(t.score.mean)} ± ${fmt(t.score.halfWidth)}` : '–';
    const cost = t.cost ? `$${t.cost.mean.toFixed(4)}` : '–';
    return `| ${t.index}${t.baseline ? ' (baseline)' : ''} | ${describeConfig(t.config)} | ${score} | ${cost} | ${t.samples.length} | ${t.status === 'failed' ? 'failed' : t.feasible ? 'yes' : 'no'} |`;
  });
  const lines = [
    `**${p.trialsDone} of ${p.trialsPlanned} trials done** · ${p.feasible} feasible · $${p.costUsd.toFixed(4)} recorded, $${p.paidUsd.toFixed(4)} paid`,
    p.running ? `running: trial ${p.running.index} (${describeConfig(p.running.config)})` : '',
    best,
    rows.length
      ? ['| trial | configuration | mean score | cost/sample | samples | feasible |', '|---|---|---|---|---|---|', ...rows].join('\n')
      : '',
  ];
  setCurrentDetails(lines.filter(Boolean).join('\n\n'));
}

/** A trial page's details line. */
export function showTrialProgress(o: {
  index: number;
  config: Config;
  done: number;
  running: number;
  budget: number;
  meanScore?: number;
  meanCost?: number;
}): void {
  const so = o.meanScore !== undefined ? ` · mean score ${fmt(o.meanScore)} · $${o.meanCost!.toFixed(4)} per sample` : '';
  setCurrentDetails(
    `**trial ${o.index}**: ${describeConfig(o.config)}\n\n${o.done} of at most ${o.budget} samples done, ${o.running} running${so}`,
  );
}

const fmt = (x: number) => (Number.isFinite(x) ? (Math.round(x * 1000) / 1000).toString() : String(x));
