import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOrThrow, ValidationError } from '../../goo/validate';
import type { PromptSet } from '../../prompts/parts';
import { type PromptSearch, PromptSearchSchema, promptSetFor, schemeParamsOf } from '../../prompts/search';
import { checkedPromptSet, taskWithPrompts } from '../../prompts/task-ref';
import { payloadRouteFromEnv } from '../../store/route';
import { getTask, UnknownTaskError } from '../../tasks/registry';
import type { AnyTask } from '../../tasks/task';
import { type GooSource, gooFor } from '../../tune/configure';
import type { SplitName } from '../../tune/data-split';
import type { StudyFiles } from '../../tune/files';
import { checkStudy, type StudyRequestInput } from '../../tune/request';
import { briefOf, type StudyResult, type TrialBrief } from '../../tune/results';
import { DEFAULT_STOP_RULE } from '../../tune/stopping';
import { configText, outcomeText, trialsTable } from '../../tune/table';
import { outputFolderId } from '../../util/output-folder';
import { splitProblems } from '../problem';
import { type RunOptions, readJsonFile, requestFromOptions } from './run';

/** `got tune`'s options: the study's, and the execution options every command that runs workflows has. */
export interface TuneOptions
  extends Omit<RunOptions, 'scheme' | 'size' | 'sample' | 'workflowId' | 'output' | 'doc' | 'problem' | 'taskFile'> {
  scheme?: string;
  size?: number;
  /** Samples per trial at most (the stopping rule may use fewer). */
  samples: number;
  trials: number;
  maxCostPerSample?: number;
  minSamples?: number;
  batch?: number;
  confidence?: number;
  ciRel?: number;
  ciAbs?: number;
  baseline: boolean;
  replayCache: boolean;
  out: string;
  /** Candidate prompt parts (JSON, `PromptSearch`): the study searches them with the scheme's parameters. */
  promptCandidates?: string;
  /** Which instances the study's samples are (default: the training split). */
  split?: SplitName;
}

export interface TuneOutcome {
  result: StudyResult;
  files: StudyFiles;
  workflowId: string;
}

/** The study's request from the CLI's options; every mistake is reported before anything starts. */
export function studyRequestFromOptions(o: TuneOptions): {
  request: StudyRequestInput;
  task: AnyTask;
  source: GooSource;
  size: number;
  prompts?: PromptSet;
} {
  let task: AnyTask;
  try {
    task = getTask(o.task);
  } catch (e) {
    if (e instanceof UnknownTaskError) throw new ValidationError('options', [{ path: '--task', message: e.message }]);
    throw e;
  }
  if (!o.goo && !o.scheme)
    throw new ValidationError('options', [
      { path: '--scheme', message: 'name the scheme to tune (or --goo a GoO file with a tunable section)' },
    ]);
  const source: GooSource = o.goo ? { tunableGoo: readJsonFile(o.goo, '--goo') as Record<string, unknown> } : { scheme: o.scheme! };
  const size = o.size ?? task.sizes[Math.floor(task.sizes.length / 2)]!;
  const split = o.split ?? 'train';
  const samples = splitProblems(task, { dataset: o.dataset, size, split, count: o.samples });
  const prompts = o.prompts ? checkedPromptSet(task, readJsonFile(o.prompts, '--prompts')) : undefined;
  const promptSearch = o.promptCandidates
    ? parseOrThrow(PromptSearchSchema, readJsonFile(o.promptCandidates, '--prompt-candidates'), 'prompt candidates', '--prompt-candidates')
    : undefined;
  // The runs' LLM settings and budget exactly as `got run` makes them from the same options.
  const run = requestFromOptions({
    ...o,
    scheme: 'scheme' in source ? source.scheme : Object.keys(task.schemes)[0]!,
    size,
    sample: '0',
    json: true,
    goo: undefined,
    dataset: undefined,
  });
  const stop = {
    ...(o.minSamples !== undefined ? { minSamples: o.minSamples } : {}),
    ...(o.batch !== undefined ? { batch: o.batch } : {}),
    ...(o.confidence !== undefined ? { confidence: o.confidence } : {}),
    ...(o.ciRel !== undefined ? { relHalfWidth: o.ciRel } : {}),
    ...(o.ciAbs !== undefined ? { absHalfWidth: o.ciAbs } : {}),
  };
  const request: StudyRequestInput = {
    task: taskWithPrompts(task.id, prompts),
    source: source as StudyRequestInput['source'],
    size,
    samples: samples as StudyRequestInput['samples'],
    trials: o.trials,
    ...(o.maxCostPerSample !== undefined ? { maxCostPerSample: o.maxCostPerSample } : {}),
    stop,
    baseline: o.baseline,
    llm: run.llm,
    ...(run.budget ? { budget: run.budget } : {}),
    replayCache: o.replayCache,
    seed: o.seed,
    ...(promptSearch ? { promptSearch } : {}),
    labels: { split },
  };
  return { request, task, source, size, ...(prompts ? { prompts } : {}) };
}

/**
 * Runs a study to its end and writes its files. Resumable: the study's workflow id is kept in the
 * output folder, so the same command with the same `--out` joins the study under way (or reads the
 * finished one) instead of paying for it again.
 */
export async function tuneCommand(o: TuneOptions, log: (line: string) => void = (l) => console.error(l)): Promise<TuneOutcome | undefined> {
  const { request, task, source, size, prompts } = studyRequestFromOptions(o);
  const prepared = checkStudy(request, payloadRouteFromEnv());
  if (o.dryRun) {
    console.log(JSON.stringify(request, null, 2));
    return undefined;
  }
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const workflowId = outputFolderId(out, 'study.json', 'tune-');
  const [{ startRuntimeFor, exitOnInterrupt }, studies, { resultUnlessStuck }, { webUiLink }, { writeStudyFiles }] = await Promise.all([
    import('../runtime'),
    import('../../client/studies'),
    import('../../client/health'),
    import('../../client/runs'),
    import('../../tune/files'),
  ]);
  const runtime = await startRuntimeFor(o, log);
  try {
    const handle = await studies.startStudy(runtime.client, request, { taskQueue: runtime.taskQueue, workflowId });
    log(
      `Study ${handle.workflowId}: ${prepared.scheme} of ${task.id} (size ${size}), ${o.trials} trials of up to ${o.samples} samples` +
        `${o.maxCostPerSample !== undefined ? `, at most $${o.maxCostPerSample} per sample` : ''}\n  Web UI: ${webUiLink(runtime.uiUrl, runtime.namespace, handle.workflowId)}`,
    );
    exitOnInterrupt(`the study ${handle.workflowId} goes on in Temporal; the same command with --out ${o.out} joins it again`, log);
    const printed = new Set<number>();
    const poll = setInterval(() => {
      studies
        .queryStudyProgress(handle)
        .then((p) => {
          for (const t of p.done.filter((d) => !printed.has(d.index))) {
            printed.add(t.index);
            log(briefLine(prepared, t));
          }
        })
        .catch(() => undefined); // the study may be finishing, or its worker restarting: the next poll tells
    }, 1000);
    let result: StudyResult;
    try {
      const wait = o.stuckAfter !== undefined ? { stuckAfter: o.stuckAfter } : {};
      result = (await resultUnlessStuck(handle, wait)) as unknown as StudyResult;
    } finally {
      clearInterval(poll);
    }
    for (const t of result.trials.map(briefOf)) if (!printed.has(t.index)) log(briefLine(prepared, t));
    const best = result.best !== undefined ? result.trials[result.best]! : undefined;
    const bestGoo = best
      ? gooFor(task, source, { size, problem: request.samples[0]!.problem, params: schemeParamsOf(best.config) })
      : undefined;
    const bestPrompts =
      best && (request.promptSearch || prompts)
        ? promptSetFor(prompts, request.promptSearch as PromptSearch | undefined, best.config)
        : undefined;
    const title = `Tuning ${prepared.scheme} on ${task.title} (size ${size})`;
    const files = await writeStudyFiles(result, out, { title, settings: settingsText(request, handle.workflowId), bestGoo, bestPrompts });
    console.log(o.json ? JSON.stringify(result, null, 2) : `${trialsTable(result)}\n\n${outcomeText(result)}`);
    return { result, files, workflowId: handle.workflowId };
  } finally {
    await runtime.close();
  }
}

function briefLine(study: { space: StudyResult['space'] }, t: TrialBrief): string {
  const score = t.meanScore !== undefined ? `score ${t.meanScore.toFixed(2)} ± ${t.halfWidth!.toFixed(2)}` : 'failed';
  const cost = t.meanCostUsd !== undefined ? ` · $${t.meanCostUsd.toFixed(4)}/sample` : '';
  return `  trial ${t.index}: ${configText(study, t.config)} → ${score}${cost} · ${t.samples} samples · ${t.feasible ? 'feasible' : 'infeasible'}`;
}

function settingsText(request: StudyRequestInput, workflowId: string): string {
  const stop = { ...DEFAULT_STOP_RULE, ...request.stop };
  return [
    `Study \`${workflowId}\`: ${request.trials} trials, up to ${request.samples.length} samples each of the ${request.labels?.split ?? 'train'} split (samples ${request.samples.map((x) => x.id).join(', ')}), seed ${request.seed ?? 0}.`,
    `A trial stops once its score's ${(stop.confidence * 100).toFixed(0)}% t-interval is within ±${(stop.relHalfWidth * 100).toFixed(0)}% of the mean (or ±${stop.absHalfWidth}), after at least ${stop.minSamples} samples, or once its cost is clearly over the limit.`,
    request.maxCostPerSample !== undefined ? `Feasible: mean cost per sample at most $${request.maxCostPerSample}.` : 'No cost limit.',
  ].join(' ');
}
