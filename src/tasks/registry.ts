import type { AnyTask } from './task';
import { docMergeTask } from './doc-merge';
import { keywordCountingTask } from './keyword-counting';
import { setIntersectionTask } from './set-intersection';
import { sortingTask } from './sorting';

/** Every task the worker knows, by id. Workflows name a task; only activities look it up. */
export const TASKS: Readonly<Record<string, AnyTask>> = {
  [sortingTask.id]: sortingTask,
  [setIntersectionTask.id]: setIntersectionTask,
  [keywordCountingTask.id]: keywordCountingTask,
  [docMergeTask.id]: docMergeTask,
};

export class UnknownTaskError extends Error {
  override readonly name = 'UnknownTaskError';
}

export function getTask(id: string): AnyTask {
  const task = TASKS[id];
  if (!task) throw new UnknownTaskError(`unknown task "${id}"; known tasks: ${Object.keys(TASKS).join(', ')}`);
  return task;
}
