import { readFileSync, writeFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { SingleBar } from 'cli-progress';
import type { ReviewRecord } from '../../documents/types';
import { ValidationError } from '../../goo/validate';
import { recommendedParams, recommendedScheme } from '../../localllm/recommended';
import { checkedPromptSet, taskWithPrompts } from '../../prompts/task-ref';
import { checkRun } from '../../run/check';
import type { RunRequestInput, RunResult } from '../../run/request';
import { DEFAULT_PRICING, type StructuredOutputMode } from '../../run/wire';
import { payloadRouteFromEnv } from '../../store/route';
import { loadTaskDeclaration } from '../../tasks/declarative/load';
import { getTask, resolveTask, UnknownTaskError } from '../../tasks/registry';
import type { AnyTask } from '../../tasks/task';
import { taskIdOf } from '../../tasks/task-ref';
import { applyConfig, readTunableGoO, TUNABLE_KEY } from '../../tune/template';
import { type InputDocument, readInputDocuments } from '../documents';
import { defaultLlmSource, defaultModel, type LlmSource, localLlmSettings, localModelChoice } from '../llm-source';
import { chooseProblem } from '../problem';
import { formatReport, type RunReport, reportOf } from '../report';
import { withReviewPrompt } from '../review-wait';

export interface RunOptions {
  task: string;
  /** A task declared as data (JSON or YAML): used instead of the built-in `task`. */
  taskFile?: string;
  /** A prompt set (JSON): the built-in task's prompts reworded (docs/prompts.md). */
  prompts?: string;
  scheme: string;
  /** The user named the scheme (on the command line or in the config): a model's recommended scheme does not replace it. */
  schemeGiven?: boolean;
  /** Values of the scheme's tunable parameters (`--param name=value`). */
  param?: Record<string, string | number | boolean>;
  size?: number;
  sample: string;
  dataset?: string;
  doc?: string[];
  /** A data room: every file in the folder is a document (doc-merge). */
  docs?: string;
  /** The documents of `doc` and `docs` as read (by `runCommand`, before the request is built). */
  readDocuments?: InputDocument[];
  /** Wait for a person's decisions on the sources' disagreements (doc-merge). */
  review?: boolean;
  problem?: string;
  goo?: string;
  output?: string;
  seed: number;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  /** The model's context window, when the model's name does not tell it (`llm.contextTokens`). */
  contextTokens?: number;
  priceInput?: number;
  priceOutput?: number;
  budgetUsd?: number;
  budgetTokens?: number;
  latency: number;
  /** Default: `taskQueueFor` the LLM source. */
  taskQueue?: string;
  workflowId?: string;
  worker: boolean;
  /** Start a resident worker for these settings unless one runs, and hand the run to it. */
  keepWorker?: boolean;
  cache?: boolean;
  fanOut?: 'batched' | 'perSample';
  /** Answers in the task's JSON shape where the endpoint takes it (`llm.structuredOutput`). */
  structuredOutput?: StructuredOutputMode;
  /** Where the LLM calls go (default: OPENAI_BASE_URL when set, else the simulator). */
  llm?: LlmSource;
  /** With `llm: 'local'`: the built-in model to serve (`--local-model`; default SmolLM2-135M). */
  localModel?: string;
  /** Re-asks per LLM step whose answers are unusable. */
  reask?: number;
  /** `llm.maxConcurrentCalls`, `llm.timeoutSeconds` and `children.maxCalls` of the request. */
  maxConcurrentCalls?: number;
  callTimeout?: number;
  callsPerHistory?: number;
  /** Stop waiting once the run's workflow task has failed this many times in a row (default `DEFAULT_STUCK_AFTER`; 0: never). */
  stuckAfter?: number;
  json: boolean;
  dryRun?: boolean;
  progress: boolean;
}

/** Builds the run request from CLI options; every mistake is reported before anything starts. */
export function requestFromOptions(o: RunOptions): RunRequestInput {
  const declaration = o.taskFile ? loadTaskDeclaration(o.taskFile) : undefined;
  let task: AnyTask;
  try {
    task = declaration ? resolveTask(declaration) : getTask(o.task);
  } catch (e) {
    if (e instanceof UnknownTaskError) throw new ValidationError('options', [{ path: '--task', message: e.message }]);
    throw e;
  }
  if (o.prompts && declaration)
    throw new ValidationError('options', [{ path: '--prompts', message: 'a declared task (--task-file) says its prompts itself' }]);
  const prompts = o.prompts ? checkedPromptSet(task, readJsonFile(o.prompts, '--prompts')) : undefined;
  if (o.goo && o.param)
    throw new ValidationError('options', [
      { path: '--param', message: "values of a scheme's parameters, but --goo runs a GoO file as written: give one or the other" },
    ]);
  if (!Object.hasOwn(task.schemes, o.scheme)) {
    throw new ValidationError('options', [
      {
        path: '--scheme',
        message: `task "${task.id}" has no scheme "${o.scheme}"; expected one of: ${Object.keys(task.schemes).join(', ')}`,
      },
    ]);
  }
  const { sampleId, problem, size } = chooseProblem(task, {
    sample: o.sample,
    ...(o.dataset ? { dataset: o.dataset } : {}),
    ...(o.readDocuments?.length ? { documents: o.readDocuments } : o.doc?.length ? { files: o.doc } : {}),
    ...(o.problem ? { problemFile: o.problem } : {}),
    ...(o.size ? { size: o.size } : {}),
  });
  const source = o.llm ?? defaultLlmSource();
  const budget =
    o.budgetUsd !== undefined || o.budgetTokens !== undefined ? { maxCostUsd: o.budgetUsd, maxTokens: o.budgetTokens } : undefined;
  const llm = {
    ...(source === 'local' ? localLlmSettings(o.localModel) : {}),
    model: o.model ?? defaultModel(source, process.env, o.localModel),
    ...(o.contextTokens !== undefined ? { contextTokens: o.contextTokens } : {}),
  };
  return {
    // A declared task travels in the request itself: no worker has to be redeployed for it.
    task: declaration ?? taskWithPrompts(task.id, prompts),
    problem: problem as RunRequestInput['problem'],
    // A scheme goes by name: the worker builds its GoO for the problem's size and the model's window (decisions 36, 49).
    ...(o.goo ? { goo: gooFromFile(o.goo) } : { scheme: { name: o.scheme, ...(o.param ? { params: o.param } : {}) } }),
    llm: {
      ...llm,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
      ...(o.priceInput !== undefined || o.priceOutput !== undefined || source !== 'local'
        ? {
            pricing: {
              inputPerMTok: o.priceInput ?? DEFAULT_PRICING.inputPerMTok,
              outputPerMTok: o.priceOutput ?? DEFAULT_PRICING.outputPerMTok,
            },
          }
        : {}),
      ...(o.reask !== undefined ? { reask: o.reask } : {}),
      ...(o.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: o.maxConcurrentCalls } : {}),
      ...(o.callTimeout !== undefined ? { timeoutSeconds: o.callTimeout } : {}),
      ...(o.cache ? { cache: true } : {}),
      ...(o.fanOut && o.fanOut !== 'batched' ? { fanOut: o.fanOut } : {}),
      ...(o.structuredOutput ? { structuredOutput: o.structuredOutput } : {}),
    },
    ...(budget ? { budget } : {}),
    ...(o.callsPerHistory !== undefined ? { children: { maxCalls: o.callsPerHistory } } : {}),
    seed: o.seed,
    labels: { scheme: o.scheme, size, sample: sampleId },
    ...(o.review ? { review: { decide: true } } : {}),
  };
}

/**
 * The scheme parameters of a run on a built-in local model with what the model is recommended for the
 * task and scheme (decision 89), saying so; a parameter the user gave wins. Not for a GoO file or a
 * declared task (the user wrote the graph or the task), nor for `got eval`, which measures the
 * schemes as defined.
 */
function withRecommendedParams(o: RunOptions, log: (line: string) => void): Partial<Pick<RunOptions, 'param' | 'scheme'>> {
  if ((o.llm ?? defaultLlmSource()) !== 'local' || o.goo || o.taskFile) return {};
  const choice = localModelChoice(o.localModel);
  if (choice.kind !== 'built-in') return {};
  // A scheme the model does the task better with, where the user named none (decision 91).
  const schemeFor = o.schemeGiven || o.schemeGiven === undefined ? undefined : recommendedScheme(choice.model, o.task);
  if (schemeFor)
    log(
      `Recommended for ${choice.model.name}, so used: --scheme ${schemeFor.scheme}: ${schemeFor.why}. Give --scheme to choose otherwise.`,
    );
  const scheme = schemeFor?.scheme ?? o.scheme;
  const { params, why } = recommendedParams(choice.model, o.task, scheme, o.param);
  for (const line of why) log(`Recommended for ${choice.model.name}, so used: ${line}. Give the parameter to choose otherwise.`);
  return { ...(schemeFor ? { scheme } : {}), ...(why.length ? { param: { ...params, ...o.param } } : {}) };
}

export async function runCommand(o: RunOptions, log: (line: string) => void = (l) => console.error(l)): Promise<RunReport | undefined> {
  // Files are read (PDF, DOCX, ...) before anything else, so a scanned or damaged one is refused before any server starts.
  const readDocuments = o.doc?.length || o.docs ? await readInputDocuments(o.doc ?? [], o.docs, log) : undefined;
  const request = requestFromOptions({ ...o, ...withRecommendedParams(o, log), ...(readDocuments ? { readDocuments } : {}) });
  // A merge is written in the format its extension names: an unknown one is refused before any money is spent.
  if (o.output && taskIdOf(request.task) === 'doc-merge') (await import('../../documents/output')).outputFormatOf(o.output);
  const { sent: checked } = checkRun(request, payloadRouteFromEnv()); // refuse bad input before a server, a worker or an LLM is touched
  if (o.dryRun) {
    console.log(JSON.stringify(request, null, 2));
    return undefined;
  }
  // Loaded only now: a dry run or a refused request never loads Temporal's SDK.
  const [{ startRuntimeFor, exitOnInterrupt }, runs, { resultUnlessStuck }] = await Promise.all([
    import('../runtime'),
    import('../../client/runs'),
    import('../../client/health'),
  ]);
  const { startCheckedRun, webUiLink } = runs;
  // One run, then the process exits: its workflow code runs on this thread, not a thread started for it.
  const runtime = await startRuntimeFor(o, log, { workflowsInThisThread: true });
  try {
    const started = Date.now();
    const handle = await startCheckedRun(runtime.client, checked, {
      taskQueue: runtime.taskQueue,
      ...(o.workflowId ? { workflowId: o.workflowId, joinOpen: true } : {}),
    });
    const webUi = webUiLink(runtime.uiUrl, runtime.namespace, handle.workflowId, handle.firstExecutionRunId);
    const joined = o.workflowId ? await joinedRun(handle, started) : undefined;
    log(joined ? joinedLine(handle.workflowId, joined, runtime.taskQueue, webUi) : `Started ${handle.workflowId}\n  Web UI: ${webUi}`);
    exitOnInterrupt(`the run ${handle.workflowId} goes on in Temporal; see it in the Web UI, or \`got inspect ${handle.workflowId}\``, log);
    // A run whose workflow task keeps failing ends the wait with a RunStuckError (exit code 5); the run is left as it is.
    const wait = { ...(o.stuckAfter !== undefined ? { stuckAfter: o.stuckAfter } : {}) };
    const waitForResult = () =>
      o.review ? withReviewPrompt(handle, () => resultUnlessStuck(handle, wait), log) : resultUnlessStuck(handle, wait);
    const result =
      o.progress && !o.json && process.stderr.isTTY && !o.review
        ? await withProgressBar(handle, runs.queryProgress, waitForResult)
        : await waitForResult();
    const report = reportOf(
      result,
      { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, webUi },
      Date.now() - started,
      resolveTask(request.task).answerText,
    );
    console.log(o.json ? JSON.stringify(report, null, 2) : formatReport(report));
    if (o.output) {
      if (!report.best) throw new Error(`no answer to write to ${o.output}: the run produced no scored thought`);
      await writeAnswer(o.output, report, result.grs.review);
      log(`Wrote the best answer to ${o.output}`);
    }
    return report;
  } finally {
    await runtime.close();
  }
}

/** The run an id named when it was already open before this command (its command run again): when it started, where it waits. */
async function joinedRun(handle: WorkflowHandle, started: number): Promise<{ startTime: Date; taskQueue: string } | undefined> {
  const { startTime, taskQueue } = await handle.describe();
  // Started by this command: its start time is this command's (the server's clock; five seconds of leeway for a skew).
  return startTime.getTime() < started - 5_000 ? { startTime, taskQueue } : undefined;
}

function joinedLine(workflowId: string, run: { startTime: Date; taskQueue: string }, served: string, webUi: string): string {
  const elsewhere =
    run.taskQueue === served
      ? ''
      : `\n  It waits on task queue ${run.taskQueue}, which this command's worker (${served}) does not poll: rerun with --task-queue ${run.taskQueue}, or serve it with \`got worker start --task-queue ${run.taskQueue}\` and the LLM flags it was started with.`;
  return `Joined ${workflowId}, open since ${run.startTime.toISOString()}: waiting for its result (nothing it already did is paid again).${elsewhere}\n  Web UI: ${webUi}`;
}

/** How long one progress query may take: a run whose workflow task keeps failing never answers one. */
const PROGRESS_QUERY_TIMEOUT_MS = 2_000;

async function withProgressBar(
  handle: WorkflowHandle,
  queryProgress: typeof import('../../client/runs').queryProgress,
  wait: () => Promise<RunResult>,
) {
  const bar = new SingleBar({
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a dollar sign before cli-progress's {cost} placeholder.
    format: '  {bar} {value}/{total} operations · {calls} LLM calls · {tokens} tokens · ${cost}',
    hideCursor: true,
    stream: process.stderr,
  });
  bar.start(1, 0, { calls: 0, tokens: 0, cost: '0.0000' });
  let asking = false;
  const poll = setInterval(() => {
    if (asking) return; // one query at a time: a run that cannot answer must not pile them up
    asking = true;
    handle.client
      .withDeadline(Date.now() + PROGRESS_QUERY_TIMEOUT_MS, () => queryProgress(handle))
      .then((p) => {
        bar.setTotal(p.operationsTotal);
        bar.update(p.operationsDone, { calls: p.llmCalls, tokens: p.promptTokens + p.completionTokens, cost: p.costUsd.toFixed(4) });
      })
      .catch(() => undefined) // a query can race the run's completion; the next poll or the result settles it
      .finally(() => {
        asking = false;
      });
  }, 250);
  try {
    const result = await wait();
    bar.update(result.grs.operations.length, {
      calls: result.grs.totals.llmCalls,
      tokens: result.grs.totals.promptTokens + result.grs.totals.completionTokens,
      cost: result.grs.totals.costUsd.toFixed(4),
    });
    return result;
  } finally {
    clearInterval(poll);
    bar.stop();
  }
}

/** A GoO file; one with a `tunable` section (what `got tune` reads) runs as written, the section left out. */
function gooFromFile(path: string): RunRequestInput['goo'] {
  const document = readJsonFile(path, '--goo');
  const tunable = typeof document === 'object' && document !== null && TUNABLE_KEY in document;
  return (tunable ? applyConfig(readTunableGoO(document)) : document) as RunRequestInput['goo'];
}

/** A JSON file an option names; a file that cannot be read is bad input naming the option. */
export function readJsonFile(path: string, option: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ValidationError('options', [{ path: option, message: `cannot read ${path} as JSON: ${(e as Error).message}` }]);
  }
}

/** The answer as a file: a document merge through the document writers (by extension), any other answer as text. */
async function writeAnswer(path: string, report: RunReport, review: ReviewRecord | undefined): Promise<void> {
  if (report.task !== 'doc-merge') {
    writeFileSync(path, `${report.best!.answer}\n`);
    return;
  }
  const { outputOfReview, writeMergedOutput } = await import('../../documents/output');
  const answer = report.best!.answer;
  await writeMergedOutput(
    path,
    review && review.thought === report.best!.id ? outputOfReview(review, answer) : { merged: answer, sources: [] },
  );
}
