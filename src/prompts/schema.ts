import { z } from 'zod';
import type { Issue } from '../goo/graph';
import type { AnyTask } from '../tasks/task';
import { type PromptSet, placeholdersOf } from './parts';

/**
 * A prompt set on the wire: a built-in task's prompts reworded, sent as the run request's task
 * `{ "id": "sorting", "prompts": { "sort": { "instruction": "…" } } }` (`got run --prompts FILE`).
 * It travels in every activity input of a run, so it is kept small.
 */
export const PROMPT_SET_LIMITS = {
  prompts: 16,
  instructionChars: 4_000,
  formatChars: 1_000,
  approachChars: 4_000,
  examples: 16,
  exampleChars: 8_000,
} as const;

const L = PROMPT_SET_LIMITS;

export const PromptOverrideSchema = z
  .strictObject({
    instruction: z
      .string()
      .min(1, 'an instruction cannot be empty')
      .max(L.instructionChars)
      .optional()
      .describe("what to do; may name the prompt's variables as {{name}} (`got prompts show` lists them)"),
    format: z.string().max(L.formatChars).optional().describe('how to answer; empty: nothing said'),
    approach: z.string().max(L.approachChars).optional().describe('the steps shown in <Approach>; empty: no block'),
    examples: z
      .array(z.string().min(1).max(L.exampleChars))
      .max(L.examples)
      .optional()
      .describe('worked examples, each a block as the prompt shows it; []: none'),
  })
  .describe("one prompt's replacements; a part left out keeps the task's own");

export const PromptSetSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'a prompt name'), PromptOverrideSchema)
  .refine((set) => Object.keys(set).length <= L.prompts, `at most ${L.prompts} prompts`)
  .describe('replacements by prompt name');

/** A built-in task with its prompts reworded: what a run request's `task` may be besides an id or a declaration. */
export const PromptedTaskSchema = z
  .strictObject({
    id: z.string().min(1).describe('a built-in task whose prompts have layouts (schema/tasks.json: promptLayouts)'),
    prompts: PromptSetSchema,
  })
  .describe('a built-in task with its prompts reworded (docs/prompts.md)');
export type PromptedTask = z.infer<typeof PromptedTaskSchema>;

/**
 * The prompt set as a member of the task reference's union: an object of exactly `id` and `prompts`
 * is judged as a prompt set, anything else is left to the declaration (without the guard, zod would
 * report a declaration's mistakes as a prompt set's unknown keys). Published as `PromptedTaskSchema`.
 */
export const PromptedTaskRef = z
  .custom<PromptedTask>((v) => isPromptedTask(v), { abort: true, message: 'not a built-in task with prompts' })
  .pipe(PromptedTaskSchema);

/** Is this task reference a built-in task with a prompt set (rather than an id or a declaration)? */
export function isPromptedTask(ref: unknown): ref is PromptedTask {
  if (ref === null || typeof ref !== 'object' || Array.isArray(ref)) return false;
  const keys = Object.keys(ref);
  return keys.length === 2 && keys.includes('id') && keys.includes('prompts');
}

/** What is wrong with a prompt set for a task: prompts without a layout, variables the prompt does not have. */
export function promptSetIssues(task: AnyTask, set: PromptSet, prefix = 'task.prompts'): Issue[] {
  const layouts = task.promptLayouts ?? {};
  const names = Object.keys(layouts);
  const issues: Issue[] = [];
  for (const [name, override] of Object.entries(set)) {
    const layout = Object.hasOwn(layouts, name) ? layouts[name] : undefined;
    if (!layout) {
      issues.push({
        path: `${prefix}.${name}`,
        message: names.length
          ? `task "${task.id}" has no prompt "${name}" that can be reworded; it has ${names.join(', ')}`
          : `task "${task.id}" has no prompts that can be reworded`,
      });
      continue;
    }
    for (const part of ['instruction', 'format'] as const) {
      const text = override[part];
      if (text === undefined) continue;
      for (const variable of placeholdersOf(text))
        if (!Object.hasOwn(layout.variables, variable))
          issues.push({
            path: `${prefix}.${name}.${part}`,
            message: `no variable {{${variable}}}; the "${name}" prompt has ${
              Object.keys(layout.variables)
                .map((v) => `{{${v}}}`)
                .join(', ') || 'none'
            }`,
          });
    }
  }
  return issues;
}
