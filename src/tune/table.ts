import { isCompleted, type StudyResult, type TrialResult } from './results';

/** A study's results as a person reads them: the trials table and the outcome in a few sentences (Markdown). */

const num = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
const usd = (x: number) => `$${x.toFixed(4)}`;

/** `a=1 b=2` for a configuration, in the space's order. */
export function configText(result: Pick<StudyResult, 'space'>, config: TrialResult['config']): string {
  return Object.keys(result.space)
    .map((name) => `${name}=${String(config[name])}`)
    .join(' ');
}

/** One row per trial: parameters, mean score with its interval, mean cost, calls, feasibility. */
export function trialsTable(result: StudyResult): string {
  const names = Object.keys(result.space);
  const front = new Set(result.pareto);
  const header = ['trial', ...names, 'samples', 'mean score (95% CI)', 'cost/sample', 'calls (cached)', 'feasible', 'stopped', ''];
  const rows = result.trials.map((t) => {
    const marks = [t.baseline ? 'baseline' : '', t.index === result.best ? '**best**' : '', front.has(t.index) ? 'Pareto' : '']
      .filter(Boolean)
      .join(', ');
    const score = t.score ? `${num(t.score.mean)} ± ${num(t.score.halfWidth)}` : '–';
    return [
      String(t.index),
      ...names.map((n) => String(t.config[n])),
      String(t.samples.length),
      score,
      t.cost ? usd(t.cost.mean) : '–',
      `${t.llmCalls} (${t.cachedCalls})`,
      t.status === 'failed' ? 'failed' : t.feasible ? 'yes' : 'no',
      t.stoppedBecause,
      marks,
    ];
  });
  return [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** What the study found, against the baseline (the paper's configuration) when it ran. */
export function outcomeText(result: StudyResult): string {
  const baseline = result.trials.find((t) => t.baseline);
  const best = result.best !== undefined ? result.trials[result.best] : undefined;
  const lines: string[] = [];
  const limit = result.maxCostPerSample !== undefined ? ` (limit ${usd(result.maxCostPerSample)} per sample)` : '';
  if (!best || !isCompleted(best)) lines.push(`No trial was feasible${limit}.`);
  else {
    lines.push(
      `Best feasible configuration${limit}: trial ${best.index}, ${configText(result, best.config)}: mean score ${num(best.score.mean)} ± ${num(best.score.halfWidth)} at ${usd(best.cost.mean)} per sample (${best.samples.length} samples).`,
    );
    if (baseline && isCompleted(baseline) && baseline !== best) {
      const better = result.higherIsBetter ? best.score.mean >= baseline.score.mean : best.score.mean <= baseline.score.mean;
      const cheaper = best.cost.mean < baseline.cost.mean;
      lines.push(
        `The paper's configuration (trial ${baseline.index}): ${num(baseline.score.mean)} ± ${num(baseline.score.halfWidth)} at ${usd(baseline.cost.mean)} per sample. ` +
          `The best is ${better ? 'at least as good' : 'worse'} on the mean and ${cheaper ? `${num((100 * (baseline.cost.mean - best.cost.mean)) / baseline.cost.mean, 0)}% cheaper` : 'not cheaper'}` +
          `; the intervals ${overlap(best, baseline) ? 'overlap, so the samples cannot tell the two apart' : 'do not overlap'}.`,
      );
    } else if (baseline === best) lines.push("The paper's configuration (the baseline) is the best feasible one.");
  }
  lines.push(
    `Pareto front (no trial is both better and cheaper): trials ${result.pareto.join(', ') || '–'}. ` +
      `${result.trials.length} trials, ${result.trials.reduce((a, t) => a + t.samples.length, 0)} runs: ${usd(result.costUsd)} at recorded costs, ${usd(result.paidUsd)} paid (the rest replayed from the response cache).`,
  );
  return lines.join('\n\n');
}

const overlap = (a: TrialResult, b: TrialResult) => !!a.score && !!b.score && a.score.low <= b.score.high && b.score.low <= a.score.high;
