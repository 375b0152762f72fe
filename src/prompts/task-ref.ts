import { parseOrThrow, ValidationError } from '../goo/validate';
import type { AnyTask } from '../tasks/task';
import type { PromptSet } from './parts';
import { type PromptedTask, PromptSetSchema, promptSetIssues } from './schema';

/** A prompt set read from a file's JSON (`--prompts`), checked against the task; errors name the option and the field. */
export function checkedPromptSet(task: AnyTask, value: unknown, option = '--prompts'): PromptSet {
  const set = parseOrThrow(PromptSetSchema, value, 'prompt set', option);
  const issues = promptSetIssues(task, set, option);
  if (issues.length) throw new ValidationError('prompt set', issues);
  return set;
}

/** The task as a run request names it: the id alone, or with the prompt set (an empty set changes nothing, so none is sent). */
export function taskWithPrompts(id: string, prompts: PromptSet | undefined): string | PromptedTask {
  return prompts && Object.keys(prompts).length ? { id, prompts } : id;
}
