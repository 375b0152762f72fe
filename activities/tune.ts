import { ApplicationFailure } from '@temporalio/common';
import type { GoO } from '../src/goo/schema';
import { ValidationError } from '../src/goo/validate';
import { isPromptedTask } from '../src/prompts/schema';
import { type PromptSearch, promptSetFor, schemeParamsOf } from '../src/prompts/search';
import { taskWithPrompts } from '../src/prompts/task-ref';
import { FAILURE } from '../src/run/wire';
import type { PayloadStore } from '../src/store/payload-store';
import type { TaskRef } from '../src/tasks/declarative/schema';
import { resolveTask } from '../src/tasks/registry';
import { type GooSource, gooFor } from '../src/tune/configure';
import { checkStudy, type PreparedStudy, type StudyRequest } from '../src/tune/request';
import type { Config } from '../src/tune/space';

/** A checked study as the workflow receives it: the samples stay in the workflow's input, not again in history. */
export type CheckedStudy = Omit<PreparedStudy, 'request'> & { request: Omit<StudyRequest, 'samples'> };

/** What a trial asks for: the GoO its configuration makes for each sample. */
export interface TrialGoOsStep {
  task: TaskRef;
  source: GooSource;
  size: number;
  params: Config;
  problems: unknown[];
  /** The study's candidate prompt parts: `params` then chooses among them too (decision 73). */
  promptSearch?: PromptSearch;
}

/** The GoOs once each (most schemes make one GoO for every problem of a size), and which one each sample runs. */
export interface TrialGoOs {
  goos: GoO[];
  bySample: number[];
  /** The task with the prompt set the configuration chooses, when the study searches prompts: the trial's runs use it. */
  task?: TaskRef;
}

/**
 * The study's local activities: the task knowledge a study needs (search spaces, schemes, run
 * checks) stays out of the workflow, as the Controller's does; their answers are recorded, so a
 * replay sees the same GoOs even after a scheme's code changed.
 */
export function createTuneActivities({ store }: { store?: PayloadStore } = {}) {
  return {
    /** Checks a study request (shape, search space, the baseline's run on every sample) before anything is spent. */
    async prepareStudy(input: unknown): Promise<CheckedStudy> {
      try {
        const { request, ...rest } = checkStudy(input, { storeThreshold: store?.threshold });
        const { samples: _, ...withoutSamples } = request;
        return { ...rest, request: withoutSamples };
      } catch (e) {
        throw refused(e);
      }
    },

    /** The GoO the trial's configuration makes for each of its samples. */
    async trialGoOs(step: TrialGoOsStep): Promise<TrialGoOs> {
      try {
        const task = resolveTask(step.task);
        const params = schemeParamsOf(step.params);
        const goos: GoO[] = [];
        const seen = new Map<string, number>();
        const bySample = step.problems.map((problem) => {
          const goo = gooFor(task, step.source, { size: step.size, problem, params });
          const key = JSON.stringify(goo);
          if (!seen.has(key)) {
            seen.set(key, goos.length);
            goos.push(goo);
          }
          return seen.get(key)!;
        });
        if (!step.promptSearch) return { goos, bySample };
        const base = typeof step.task === 'object' && isPromptedTask(step.task) ? step.task.prompts : undefined;
        const prompts = promptSetFor(base, step.promptSearch, step.params);
        return { goos, bySample, task: taskWithPrompts(task.id, prompts) };
      } catch (e) {
        throw refused(e);
      }
    },
  };
}

/** The study's local activities, as the workflows proxy them. */
export type TuneActivities = ReturnType<typeof createTuneActivities>;

/** Bad input stays bad on a retry: fail at once, with the issues in the failure's details. */
function refused(e: unknown): unknown {
  if (e instanceof ValidationError) return ApplicationFailure.nonRetryable(e.message, FAILURE.validation, e.issues);
  return e;
}
