import { z } from 'zod';
import type { Issue } from '../goo/graph';
import type { AnyTask } from '../tasks/task';
import { type ChoiceParam, type Config, choiceParam, PROMPT_PARAM_PREFIX, type SearchSpace } from '../tune/space';
import type { PromptOverride, PromptParts, PromptSet } from './parts';
import { PROMPT_SET_LIMITS, promptSetIssues } from './schema';

/**
 * Prompts as a study's search dimension (decision 73): for each prompt part a study may vary, a list
 * of candidates (written by hand or proposed by `got prompts propose`). Each becomes a choice
 * parameter `prompt.<prompt>.<part>` whose value 0 is the task's own part (or the study's prompt set's)
 * and i the i-th candidate, so the sampler searches prompts and scheme parameters together and a
 * configuration stays a plain object of numbers. Pure and free of SDK imports: the trial workflow's
 * local activity and `checkStudy` both use it.
 */

/** Candidates per part a study may choose between (besides the part the task already has). */
export const PROMPT_SEARCH_LIMITS = { candidatesPerPart: 12 } as const;

const L = PROMPT_SET_LIMITS;
const candidates = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(PROMPT_SEARCH_LIMITS.candidatesPerPart).optional();

export const PartCandidatesSchema = z
  .strictObject({
    instruction: candidates(z.string().min(1).max(L.instructionChars)),
    format: candidates(z.string().max(L.formatChars)),
    approach: candidates(z.string().max(L.approachChars)),
    examples: candidates(z.array(z.string().min(1).max(L.exampleChars)).max(L.examples)),
  })
  .describe("one prompt's candidate parts: a study chooses the task's own part (0) or one of these (1..n)");
export type PartCandidates = z.infer<typeof PartCandidatesSchema>;

export const PromptSearchSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'a prompt name'), PartCandidatesSchema)
  .refine((s) => Object.keys(s).length <= L.prompts, `at most ${L.prompts} prompts`)
  .describe('candidate prompt parts by prompt name (docs/prompts.md)');
export type PromptSearch = z.infer<typeof PromptSearchSchema>;

const PARTS = ['instruction', 'format', 'approach', 'examples'] as const satisfies readonly (keyof PromptParts)[];

const paramName = (prompt: string, part: string) => `${PROMPT_PARAM_PREFIX}${prompt}.${part}`;

/** The search's choice parameters: one per prompt part with candidates, 0 (the part as it is) by default. */
export function promptSpaceOf(search: PromptSearch | undefined): SearchSpace {
  const space: Record<string, ChoiceParam> = {};
  for (const [prompt, parts] of Object.entries(search ?? {}))
    for (const part of PARTS) {
      const list = parts[part];
      if (!list?.length) continue;
      space[paramName(prompt, part)] = choiceParam(
        Array.from({ length: list.length + 1 }, (_, i) => i),
        0,
        `the ${prompt} prompt's ${part}: 0 as it is, 1..${list.length} a candidate`,
      );
    }
  return space;
}

/** The configuration's scheme parameters (its prompt choices left out). */
export function schemeParamsOf(config: Config): Config {
  return Object.fromEntries(Object.entries(config).filter(([name]) => !name.startsWith(PROMPT_PARAM_PREFIX)));
}

/** The prompt set a configuration chooses: the base set with each chosen candidate in its part. */
export function promptSetFor(base: PromptSet | undefined, search: PromptSearch | undefined, config: Config): PromptSet {
  const set: Record<string, PromptOverride> = Object.fromEntries(Object.entries(base ?? {}).map(([p, o]) => [p, { ...o }]));
  for (const [prompt, parts] of Object.entries(search ?? {}))
    for (const part of PARTS) {
      const choice = config[paramName(prompt, part)];
      const list = parts[part];
      if (typeof choice !== 'number' || choice === 0 || !list) continue;
      const chosen = list[choice - 1];
      if (chosen === undefined) continue;
      set[prompt] = { ...set[prompt], [part]: chosen };
    }
  return Object.fromEntries(Object.entries(set).filter(([, o]) => Object.keys(o).length > 0));
}

/** What is wrong with a search for a task: prompts it cannot reword, candidates naming variables the prompt lacks. */
export function promptSearchIssues(task: AnyTask, search: PromptSearch, prefix = 'promptSearch'): Issue[] {
  const issues: Issue[] = [];
  for (const [prompt, parts] of Object.entries(search))
    for (const part of PARTS)
      (parts[part] ?? []).forEach((candidate, i) => {
        for (const issue of promptSetIssues(task, { [prompt]: { [part]: candidate } }, prefix))
          issues.push({ ...issue, path: issue.path.endsWith(`.${part}`) ? `${issue.path}[${i}]` : issue.path });
      });
  // One issue per prompt that cannot be reworded is enough.
  return issues.filter((issue, i) => issues.findIndex((o) => o.path === issue.path && o.message === issue.message) === i);
}
