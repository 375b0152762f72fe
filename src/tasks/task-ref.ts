import type { PromptedTask } from '../prompts/schema';
import type { TaskDeclaration } from './declarative/schema';

/** What a run request's `task` may be: a built-in task's id, a built-in task with a prompt set, or a declaration. */
export type TaskRef = string | PromptedTask | TaskDeclaration;

/** The id a task goes by in the GRS, the Web UI and reports (kept apart from the schemas: workflows use it). */
export const taskIdOf = (task: string | { id: string }): string => (typeof task === 'string' ? task : task.id);
