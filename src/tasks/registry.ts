import { ValidationError } from '../goo/validate';
import { isPromptedTask, type PromptedTask, promptSetIssues } from '../prompts/schema';
import { compileDeclaration } from './declarative/compile';
import type { TaskDeclarationInput } from './declarative/schema';
import { docMergeTask } from './doc-merge';
import { game24Task } from './game-of-24';
import { keywordCountingTask } from './keyword-counting';
import { setIntersectionTask } from './set-intersection';
import { sortingTask } from './sorting';
import type { AnyTask } from './task';

/** Every task the worker knows, by id. Workflows name a task; only activities look it up. */
export const TASKS: Readonly<Record<string, AnyTask>> = {
  [sortingTask.id]: sortingTask,
  [setIntersectionTask.id]: setIntersectionTask,
  [keywordCountingTask.id]: keywordCountingTask,
  [docMergeTask.id]: docMergeTask,
  [game24Task.id]: game24Task,
};

export class UnknownTaskError extends Error {
  override readonly name = 'UnknownTaskError';
}

export function getTask(id: string): AnyTask {
  const task = Object.hasOwn(TASKS, id) ? TASKS[id] : undefined;
  if (!task) throw new UnknownTaskError(`unknown task "${id}"; known tasks: ${Object.keys(TASKS).join(', ')}`);
  return task;
}

/** Compiled declarations and prompted tasks by their JSON: every activity of a run receives the same reference again. */
const compiled = new Map<string, AnyTask>();
const MAX_COMPILED = 64;

/**
 * The task a run request names: a built-in task by id, or a task declared as data, compiled (and
 * kept for the next step of the run). Throws UnknownTaskError for an unknown id and a
 * ValidationError (paths `task.<field>`) for a declaration that does not hold.
 */
export function resolveTask(task: string | PromptedTask | TaskDeclarationInput): AnyTask {
  if (typeof task === 'string') return getTask(task);
  const key = JSON.stringify(task);
  const cached = compiled.get(key);
  if (cached) return cached;
  const result = isPromptedTask(task) ? promptedTask(task) : declaredTask(task);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, result);
  return result;
}

/** A built-in task whose prompts are built with the set's replacements (checked against the task's layouts). */
function promptedTask({ id, prompts }: PromptedTask): AnyTask {
  const task = getTask(id);
  const issues = promptSetIssues(task, prompts);
  if (issues.length) throw new ValidationError('prompt set', issues);
  return { ...task, buildPrompt: (req) => task.buildPrompt({ ...req, prompts }) };
}

function declaredTask(task: TaskDeclarationInput): AnyTask {
  if (typeof task === 'object' && task !== null && typeof task.id === 'string' && Object.hasOwn(TASKS, task.id)) {
    throw new ValidationError('task declaration', [
      { path: 'task.id', message: `"${task.id}" is the id of a built-in task; give the declared task an id of its own` },
    ]);
  }
  return compileDeclaration(task);
}
