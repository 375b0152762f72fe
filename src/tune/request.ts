import { z } from 'zod';
import { parseOrThrow, ValidationError } from '../goo/validate';
import { PromptSearchSchema, promptSearchIssues, promptSpaceOf } from '../prompts/search';
import { checkRun, type PayloadRoute } from '../run/check';
import { Budget, LlmSettings } from '../run/request';
import { TaskRefSchema } from '../tasks/declarative/schema';
import { resolveTask } from '../tasks/registry';
import { taskIdOf } from '../tasks/task-ref';
import { type GooSource, gooFor, spaceOf } from './configure';
import { runRequestFor } from './run-request';
import { defaultsOf, type SearchSpace } from './space';
import { DEFAULT_STOP_RULE } from './stopping';

/**
 * A study's request: what `got tune` (or any client) sends to start the `tuneStudy` workflow. The
 * study evaluates `trials` configurations of one scheme (or of a GoO file's tunables) on the same
 * samples, each sample a run of the Controller, and reports the best configuration whose mean cost
 * per sample stays within `maxCostPerSample`.
 */

const StopRuleSchema = z.strictObject({
  minSamples: z.number().int().min(2).max(1000).default(DEFAULT_STOP_RULE.minSamples),
  batch: z.number().int().min(1).max(1000).default(DEFAULT_STOP_RULE.batch),
  confidence: z.number().min(0.5).max(0.999).default(DEFAULT_STOP_RULE.confidence),
  relHalfWidth: z.number().min(0).default(DEFAULT_STOP_RULE.relHalfWidth),
  absHalfWidth: z.number().min(0).default(DEFAULT_STOP_RULE.absHalfWidth),
});

export const StudyRequest = z.strictObject({
  /** A built-in task's id, or a task declared as data (then tune a GoO file's tunables). */
  task: TaskRefSchema,
  /** A scheme of the task, or a GoO document with a `tunable` section. */
  source: z.union([z.strictObject({ scheme: z.string().min(1) }), z.strictObject({ tunableGoo: z.record(z.string(), z.json()) })]),
  /** The problem size the schemes are built for. */
  size: z.number().int().positive(),
  /** The problems every trial is evaluated on, in order (a trial evaluates a prefix of them). */
  samples: z
    .array(z.strictObject({ id: z.string().min(1), problem: z.json() }))
    .min(2, 'a study needs at least 2 samples: an interval needs a spread'),
  trials: z.number().int().min(1).max(500),
  /** A trial whose mean cost per sample (USD, recorded costs) exceeds this is infeasible. */
  maxCostPerSample: z.number().positive().optional(),
  stop: StopRuleSchema.default({ ...DEFAULT_STOP_RULE }),
  /** Evaluate the paper's configuration (every default) first, as trial 0. */
  baseline: z.boolean().default(true),
  /** The runs' LLM settings; the study turns the response cache on with recorded costs unless `replayCache` is false. */
  llm: LlmSettings.default(LlmSettings.parse({})),
  /** Each run's budget (as `got run --budget-usd`): a run stops starting LLM calls once spent. */
  budget: Budget.optional(),
  /** Replay answers from the response cache, reporting the cost they had (`llm.cacheCosts: 'recorded'`). */
  replayCache: z.boolean().default(true),
  /** Seeds the runs (every trial asks each sample's questions with the same seed) and the sampler. */
  seed: z.number().int().min(0).default(0),
  /**
   * Candidate prompt parts the study chooses between, besides the task's own (decision 73): each part
   * with candidates is a parameter `prompt.<prompt>.<part>` searched with the scheme's.
   */
  promptSearch: PromptSearchSchema.optional(),
  /** Labels every run of the study carries (besides scheme, size, sample, study, trial). */
  labels: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
});

export type StudyRequest = z.infer<typeof StudyRequest>;
export type StudyRequestInput = z.input<typeof StudyRequest>;

/** A checked study: its request with defaults, the search space, and what the task says about scores. */
export interface PreparedStudy {
  request: StudyRequest;
  task: string;
  /** The scheme's name, or `goo` for a GoO file. */
  scheme: string;
  space: SearchSpace;
  higherIsBetter: boolean;
  noAnswerScore: number;
}

/**
 * Checks a study before anything is spent: the request's shape, a non-empty search space, and the
 * baseline configuration's run on every sample (the same checks as `got run`). Throws a
 * ValidationError naming each offending field.
 */
export function checkStudy(input: unknown, route: PayloadRoute = {}): PreparedStudy {
  const request = parseOrThrow(StudyRequest, input, 'study request');
  let task: ReturnType<typeof resolveTask>;
  try {
    task = resolveTask(request.task);
  } catch (e) {
    if (e instanceof ValidationError) throw e;
    throw new ValidationError('study request', [{ path: 'task', message: (e as Error).message }]);
  }
  const source = request.source as GooSource;
  const schemeSpace = spaceOf(task, source, request.size);
  const scheme = 'scheme' in source ? source.scheme : 'goo';
  if (request.promptSearch) {
    const issues = promptSearchIssues(task, request.promptSearch);
    if (issues.length) throw new ValidationError('study request', issues);
  }
  const space = { ...schemeSpace, ...promptSpaceOf(request.promptSearch) };
  if (Object.keys(space).length === 0)
    throw new ValidationError('study request', [
      {
        path: 'scheme' in source ? 'source.scheme' : 'source.tunableGoo.tunable',
        message: `${scheme} has no tunable parameters (and the study has no promptSearch)`,
      },
    ]);
  const defaults = defaultsOf(schemeSpace);
  for (const sample of request.samples) {
    try {
      checkRun(
        runRequestFor(request, { sample, goo: gooFor(task, source, { size: request.size, problem: sample.problem, params: defaults }) }),
        route,
      );
    } catch (e) {
      if (e instanceof ValidationError) throw new ValidationError(`study sample "${sample.id}"`, e.issues);
      throw e;
    }
  }
  return { request, task: taskIdOf(request.task), scheme, space, higherIsBetter: task.higherIsBetter, noAnswerScore: task.noAnswerScore };
}
