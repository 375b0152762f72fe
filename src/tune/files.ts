import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { renderFigure } from '../eval/figure';
import type { PromptSet } from '../prompts/parts';
import { paretoSpec } from './figure';
import type { StudyResult } from './results';
import type { Config } from './space';
import { outcomeText, trialsTable } from './table';

/** The files a study writes into its output folder. */
export interface StudyFiles {
  csv: string;
  json: string;
  summary: string;
  svg: string;
  png: string;
  bestGoo: string;
  bestConfig: string;
  /** The best configuration's prompt set (`got run --prompts`), when the study searched prompts or ran with a set. */
  bestPrompts?: string;
}

/** Writes the trials (CSV, JSON), the summary, the Pareto figure and the best feasible configuration (as a GoO `got run --goo` takes). */
export async function writeStudyFiles(
  result: StudyResult,
  out: string,
  o: { title: string; settings: string; bestGoo?: unknown; bestPrompts?: PromptSet },
): Promise<StudyFiles> {
  const files: StudyFiles = {
    csv: join(out, 'trials.csv'),
    json: join(out, 'trials.json'),
    summary: join(out, 'summary.md'),
    svg: join(out, 'pareto.svg'),
    png: join(out, 'pareto.png'),
    bestGoo: join(out, 'best-goo.json'),
    bestConfig: join(out, 'best-config.json'),
  };
  writeFileSync(files.csv, trialsCsv(result));
  writeFileSync(files.json, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(files.summary, `# ${o.title}\n\n${o.settings}\n\n${trialsTable(result)}\n\n${outcomeText(result)}\n`);
  await renderFigure(paretoSpec(result, o.title), files.svg, files.png);
  if (result.best !== undefined && o.bestGoo) {
    writeFileSync(files.bestGoo, `${JSON.stringify(o.bestGoo, null, 2)}\n`);
    writeFileSync(files.bestConfig, `${JSON.stringify(result.trials[result.best]!.config as Config, null, 2)}\n`);
    if (o.bestPrompts) {
      files.bestPrompts = join(out, 'best-prompts.json');
      writeFileSync(files.bestPrompts, `${JSON.stringify(o.bestPrompts, null, 2)}\n`);
    }
  }
  return files;
}

/** One CSV row per trial, a column per parameter. */
export function trialsCsv(result: StudyResult): string {
  const names = Object.keys(result.space);
  const front = new Set(result.pareto);
  const rows = result.trials.map((t) => ({
    trial: t.index,
    baseline: t.baseline,
    ...Object.fromEntries(names.map((n) => [n, t.config[n]])),
    samples: t.samples.length,
    meanScore: t.score?.mean ?? '',
    scoreLow: t.score?.low ?? '',
    scoreHigh: t.score?.high ?? '',
    meanCostUsd: t.cost?.mean ?? '',
    costUsd: t.costUsd,
    paidUsd: t.paidUsd,
    llmCalls: t.llmCalls,
    cachedCalls: t.cachedCalls,
    solvedShare: t.solvedShare,
    feasible: t.feasible,
    pareto: front.has(t.index),
    best: t.index === result.best,
    status: t.status,
    stoppedBecause: t.stoppedBecause,
    workflowId: t.workflowId,
    error: t.error ?? '',
  }));
  return stringify(rows, { header: true });
}
