import type { GoO } from '../goo/schema';
import type { RunRequestInput } from '../run/request';
import type { TaskRef } from '../tasks/task-ref';
import type { StudyRequest } from './request';

/**
 * The Controller run of one sample of a trial. Pure (types only from the zod modules): the trial
 * workflow builds its children's requests with it, and `checkStudy` checks the baseline's with it.
 */
export function runRequestFor(
  study: Pick<StudyRequest, 'task' | 'llm' | 'budget' | 'replayCache' | 'seed' | 'labels' | 'size' | 'source'>,
  o: { sample: { id: string; problem: unknown }; goo: GoO; labels?: Record<string, string | number>; task?: TaskRef },
): RunRequestInput {
  return {
    // A trial of a study that searches prompts runs the task with its own prompt set (decision 73).
    task: o.task ?? study.task,
    problem: o.sample.problem as RunRequestInput['problem'],
    goo: o.goo,
    // Every trial asks a sample's questions with the same seed: configurations meet the same draws, and shared calls replay from the cache.
    llm: { ...study.llm, ...(study.replayCache ? { cache: true, cacheCosts: 'recorded' as const } : {}) },
    ...(study.budget ? { budget: study.budget } : {}),
    seed: study.seed,
    labels: {
      ...study.labels,
      scheme: 'scheme' in study.source ? study.source.scheme : 'goo',
      size: study.size,
      sample: o.sample.id,
      ...o.labels,
    },
  };
}
