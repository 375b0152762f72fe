import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { SingleBar } from 'cli-progress';
import { type RunOptions, requestFromOptions } from '../cli/commands/run';
import { exitOnInterrupt, startRuntimeFor } from '../cli/runtime';
import { RunStuckError, resultUnlessStuck, stuckAdvice, stuckFacts } from '../client/health';
import { startOrJoinRun } from '../client/runs';
import { ValidationError } from '../goo/validate';
import { checkRun } from '../run/check';
import { bestReview, runOutcome } from '../run/outcome';
import type { RunRequestInput, RunResult } from '../run/request';
import { payloadRouteFromEnv } from '../store/route';
import { getTask } from '../tasks/registry';
import { splitRows, TRAIN_SPLIT } from '../tune/data-split';
import { outputFolderId } from '../util/output-folder';
import { pool } from '../util/pool';
import { figureSpec, renderFigure } from './figure';
import { type EvalJob, jobKey, planJobs } from './plan';
import { type EvalRow, formatSummary, latestRows, ResultJournal, summarize, writeTables } from './results';
import { type ReviewMeasures, reviewMeasuresOf } from './review-measures';

// biome-ignore lint/suspicious/noTemplateCurlyInString: a dollar sign before cli-progress's {cost} placeholder.
const PROGRESS_FORMAT = '  {bar} {value}/{total} runs · ${cost} · {failed} failed';

export interface EvalOptions extends Omit<RunOptions, 'scheme' | 'size' | 'sample' | 'dataset' | 'workflowId' | 'json'> {
  schemes: string[];
  sizes: number[];
  samples: number;
  /** The samples' ids (a dataset's row ids or generator seeds) in the order they are taken; default 0, 1, 2, ... */
  rows?: string[];
  /** Folder with the reference CSVs; without it, problems are generated from seeds 0..samples-1. */
  datasetDir?: string;
  out: string;
  concurrency: number;
}

export interface EvalOutcome {
  rows: EvalRow[];
  /** Workflow ids of this invocation's runs found stuck (recorded as failed; still running in Temporal). */
  stuck: string[];
  ran: number;
  reused: number;
  files: { csv: string; json: string; summary: string; svg: string; png: string };
}

/**
 * Runs samples x schemes x sizes as concurrent workflows and writes the table and the paper's
 * figure. Resumable twice over: finished rows in the journal are not run again, and a run whose
 * workflow already exists (e.g. the evaluation was interrupted) is awaited instead of restarted.
 */
export async function runEvaluation(o: EvalOptions, log: (line: string) => void = (l) => console.error(l)): Promise<EvalOutcome> {
  const task = getTask(o.task);
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const { jobs, requests } = planEvaluation(o); // every input checked before anything starts
  const route = payloadRouteFromEnv();
  for (const r of requests.values()) checkRun(r, route);

  // Workflow ids derive from it: rerunning into the same folder reattaches to its runs.
  const evalId = outputFolderId(out, 'evaluation.json');
  const journal = new ResultJournal(join(out, 'runs.jsonl'));
  const done = journal.completed();
  const todo = jobs.filter((j) => !done.has(jobKey(j)));
  // The local model generates two answers at once, and a run already keeps both busy: more runs would
  // queue their calls at the server, where waiting looks like a stalled stream.
  const concurrency = o.llm === 'local' ? 1 : o.concurrency;
  log(`${jobs.length} runs planned, ${done.size} already done, ${todo.length} to run (${concurrency} at a time); results in ${out}`);

  const stuck: string[] = [];
  if (todo.length) {
    const runtime = await startRuntimeFor(o, log);
    exitOnInterrupt(`runs in flight go on in Temporal; the same command with --out ${o.out} resumes without paying for them again`, log);
    const bar =
      o.progress && process.stderr.isTTY ? new SingleBar({ format: PROGRESS_FORMAT, stream: process.stderr, hideCursor: true }) : undefined;
    let cost = 0;
    let failed = 0;
    bar?.start(todo.length, 0, { cost: '0.0000', failed });
    try {
      await pool(todo, concurrency, async (job) => {
        const { row, stuck: isStuck } = await runJob(
          runtime.client,
          job,
          requests.get(jobKey(job))!,
          runtime.taskQueue,
          evalId,
          o.stuckAfter,
        );
        if (isStuck) stuck.push(row.workflowId);
        journal.append(row);
        cost += row.costUsd;
        if (row.status === 'failed') failed++;
        bar?.increment(1, { cost: cost.toFixed(4), failed });
        if (!bar) log(`  ${jobKey(job)}: ${row.status} score ${row.score} · $${row.costUsd.toFixed(4)}`);
      });
    } finally {
      bar?.stop();
      await runtime.close();
    }
  }

  const rows = latestRows(journal.read(), jobs);
  const files = {
    csv: join(out, 'runs.csv'),
    json: join(out, 'runs.json'),
    summary: join(out, 'summary.md'),
    svg: join(out, 'figure.svg'),
    png: join(out, 'figure.png'),
  };
  writeTables(rows, files.csv, files.json);
  const summary = formatSummary(summarize(rows, o.schemes));
  writeFileSync(files.summary, `# ${task.title}\n\n${summary}\n`);
  await renderFigure(
    figureSpec(rows, {
      task: task.title,
      schemes: o.schemes,
      higherIsBetter: task.higherIsBetter,
      ...(task.plotMax ? { plotMax: task.plotMax } : {}),
    }),
    files.svg,
    files.png,
  );
  console.log(summary);
  if (stuck.length) {
    log(
      `\n${stuck.length} runs are stuck (their workflow task keeps failing) and recorded as failed: ${stuck.join(', ')}. ${stuckAdvice('<id>')} The same command with --out ${o.out} awaits them again.`,
    );
  }
  return { rows, stuck, ran: todo.length, reused: done.size, files };
}

/**
 * The evaluation's runs and their requests. With a dataset folder every task reads its reference
 * file (the paper's NDAs and texts too, not generated look-alikes), and a run's size is its problem's:
 * a dataset of one file for all sizes (keyword counting's) gives each row its own size, so sizes
 * asked for that name the same row are one run.
 */
export function planEvaluation(o: EvalOptions): { jobs: EvalJob[]; requests: Map<string, RunRequestInput> } {
  const task = getTask(o.task);
  const jobs: EvalJob[] = [];
  const requests = new Map<string, RunRequestInput>();
  for (const planned of planJobs(task.id, o.schemes, o.sizes, sampleIds(o))) {
    const request = requestFor(planned, o);
    const size = request.labels?.size;
    const job = { ...planned, size: typeof size === 'number' ? size : planned.size };
    if (requests.has(jobKey(job))) continue;
    requests.set(jobKey(job), request);
    jobs.push(job);
  }
  return { jobs, requests };
}

/** The first n sample ids of `--rows`, else 0..n-1: row IDs of the reference datasets, or generator seeds without one. */
function sampleIds(o: EvalOptions): string[] {
  return o.rows ? o.rows.slice(0, o.samples) : Array.from({ length: o.samples }, (_, i) => String(i));
}

function requestFor(job: EvalJob, o: EvalOptions): RunRequestInput {
  const task = getTask(job.task);
  const dataset = o.datasetDir && task.datasetFile ? join(o.datasetDir, task.datasetFile(job.size)) : undefined;
  // Prompts chosen by a study are scored on instances no study has seen (decision 73).
  if (o.prompts && dataset) {
    const ids = datasetIds(task, dataset);
    const { end } = splitRows(ids.length, 'test');
    const at = ids.indexOf(job.sample);
    if (at >= end)
      throw new ValidationError('options', [
        {
          path: '--samples',
          message: `sample ${job.sample} of ${dataset} is in its training split (its last ${TRAIN_SPLIT.rows} rows); with --prompts evaluate at most ${end} samples`,
        },
      ]);
  }
  return requestFromOptions({ ...o, scheme: job.scheme, size: job.size, sample: job.sample, ...(dataset ? { dataset } : {}), json: true });
}

const idsByFile = new Map<string, string[]>();

/** A dataset's row ids in order (read once per file). */
function datasetIds(task: ReturnType<typeof getTask>, file: string): string[] {
  let ids = idsByFile.get(file);
  if (!ids) {
    try {
      ids = task.parseDataset(readFileSync(file, 'utf8')).map((r) => r.id);
    } catch (e) {
      throw new ValidationError('options', [{ path: '--dataset-dir', message: `cannot read ${file}: ${(e as Error).message}` }]);
    }
    idsByFile.set(file, ids);
  }
  return ids;
}

/**
 * What the engine's review says of the best merge, when the run reviewed it: the share of the
 * sources' clauses it keeps, its clauses that say an earlier one again, its share of clauses no source
 * supports, and the disagreements it leaves undecided (states no value, or more than one).
 */
function reviewMeasures(result: RunResult): ReviewMeasures {
  const review = bestReview(result);
  return review ? reviewMeasuresOf(review) : {};
}

async function runJob(
  client: Client,
  job: EvalJob,
  request: RunRequestInput,
  taskQueue: string,
  evalId: string,
  stuckAfter: number | undefined,
): Promise<{ row: EvalRow; stuck?: true }> {
  const workflowId = `eval-${evalId}-${job.task}-${job.scheme}-${job.size}-s${job.sample}`;
  const handle = await startOrJoinRun(client, request, { taskQueue, workflowId });
  const base = { ...job, workflowId, llmCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };
  try {
    // A stuck sample ends its wait like a failed one, so it cannot hold up the whole evaluation.
    const result = await resultUnlessStuck(handle, stuckAfter !== undefined ? { stuckAfter } : {});
    const { startTime, closeTime } = await handle.describe();
    const { totals } = result.grs;
    const { status, score, solved, error } = runOutcome(result, getTask(job.task).noAnswerScore);
    const row: EvalRow = {
      ...base,
      score,
      solved,
      llmCalls: totals.llmCalls,
      promptTokens: totals.promptTokens,
      ...(totals.cachedPromptTokens ? { cachedPromptTokens: totals.cachedPromptTokens } : {}),
      completionTokens: totals.completionTokens,
      costUsd: totals.costUsd,
      wallMs: closeTime ? closeTime.getTime() - startTime.getTime() : 0,
      status,
      ...(error ? { error } : {}),
      ...reviewMeasures(result),
    };
    return { row };
  } catch (e) {
    const failed = { ...base, score: null, solved: null, wallMs: 0, status: 'failed' } as const;
    if (e instanceof RunStuckError) return { row: { ...failed, error: stuckFacts(workflowId, e.health) }, stuck: true };
    if (!(e instanceof WorkflowFailedError)) throw e;
    return { row: { ...failed, error: e.cause?.message ?? e.message } };
  }
}
