import type { AnyTask } from '../tasks/task';
import { seededRandom, shuffled } from '../util/random';
import { type PromptParts, placeholdersOf } from './parts';
import { PROMPT_SET_LIMITS } from './schema';

/**
 * Where a study's prompt candidates come from (decision 73), pure: the model's failures on training
 * cases written for a proposer, the proposer itself as a task declared as data (its calls are
 * Controller runs like any other: durable, cached, priced, in the Web UI), the proposals it makes
 * filtered to what a prompt set accepts, and example sets drawn from training problems by a seed.
 */

/** What the proposer is shown of a case the current prompt got wrong. */
export interface FailedCase {
  sample: string;
  /** The prompt's input block for the case (the list, the text...). */
  input: string;
  /** The model's answer as a person reads it. */
  answer: string;
  score: number;
}

/** How much of a case the proposer is shown: long inputs are cut (the proposer needs the pattern, not the whole text). */
const CASE_CHARS = 2_000;
export const MAX_SHOWN_FAILURES = 6;

const clip = (text: string) => (text.length > CASE_CHARS ? `${text.slice(0, CASE_CHARS)} …` : text);

/** A failure as the proposer reads it. */
export function failureText(task: AnyTask, f: FailedCase): string {
  const direction = task.higherIsBetter ? 'higher is better' : 'lower is better';
  return `${clip(f.input)}\nThe model answered: ${clip(f.answer)}\nIts score: ${f.score} (${direction})`;
}

/** The proposer's answer tag. */
const TAG = 'NewInstruction';

/** The proposer, declared as data: one prompt, k samples of it; the run request sends it, so no worker learns it in code. */
export function proposerTask(k: number) {
  return {
    id: 'prompt-proposer',
    title: 'Proposing instructions for a prompt',
    description: "Rewrites a prompt's instruction from the cases the model got wrong with it (got prompts propose).",
    higherIsBetter: true,
    problem: {
      task: { type: 'string', maxLength: 500 },
      prompt: { type: 'string', maxLength: 100 },
      instruction: { type: 'string', maxLength: PROMPT_SET_LIMITS.instructionChars },
      format: { type: 'string', minLength: 0, maxLength: PROMPT_SET_LIMITS.formatChars },
      variables: { type: 'string', minLength: 0, maxLength: 2_000 },
      failures: { type: 'string[]', minItems: 0, maxItems: MAX_SHOWN_FAILURES, maxLength: 3 * CASE_CHARS },
    },
    prompts: {
      propose: {
        system: 'You improve the instructions given to a language model.',
        user: `<Instruction> A language model is given the instruction below for the "{{prompt}}" step of a task: {{task}}. Below it are cases from the training set that the model got wrong with this instruction (if none are listed, it got them right, and a clearer wording may still help on harder cases). Write one new instruction that leads the model to answer such cases correctly: name the steps to take and the mistakes these cases show. Do not say how to format the answer; that is said separately ("{{format}}"). These placeholders are filled in for each case and may be used: {{variables}}. Reply with the new instruction alone, enclosed in <${TAG}> and </${TAG}>. </Instruction>

The current instruction:
{{instruction}}

Cases the model got wrong:

{{failures | tagged:Case}}`,
      },
    },
    parser: { kind: 'text', tag: TAG, minLength: 10, maxLength: PROMPT_SET_LIMITS.instructionChars },
    scorers: {},
    schemes: { io: { operations: [{ id: 'propose', type: 'generate', prompt: 'propose', k }] } },
  };
}

/** The proposer's problem for one prompt of a task. */
export function proposerProblem(
  task: AnyTask,
  prompt: string,
  own: PromptParts,
  variables: Readonly<Record<string, string>>,
  failures: FailedCase[],
) {
  return {
    task: task.title,
    prompt,
    instruction: own.instruction,
    format: own.format,
    variables:
      Object.entries(variables)
        .map(([name, means]) => `{{${name}}} (${means})`)
        .join(', ') || 'none',
    failures: failures.slice(0, MAX_SHOWN_FAILURES).map((f) => failureText(task, f)),
  };
}

/** A proposal the study cannot use, and why. */
export interface Rejected {
  text: string;
  why: string;
}

/** The proposals a prompt set accepts (known variables, within the limit, new), in order, once each. */
export function usableInstructions(
  proposals: string[],
  o: { current: string; variables: Readonly<Record<string, string>> },
): { kept: string[]; rejected: Rejected[] } {
  const kept: string[] = [];
  const rejected: Rejected[] = [];
  for (const raw of proposals) {
    const text = raw.trim().replace(/\s+\n/g, '\n');
    const unknown = placeholdersOf(text).filter((v) => !Object.hasOwn(o.variables, v));
    if (!text) rejected.push({ text: raw, why: 'empty' });
    else if (text.length > PROMPT_SET_LIMITS.instructionChars)
      rejected.push({ text, why: `longer than ${PROMPT_SET_LIMITS.instructionChars} characters` });
    else if (unknown.length) rejected.push({ text, why: `names unknown variables ${unknown.map((v) => `{{${v}}}`).join(', ')}` });
    else if (text === o.current.trim() || kept.includes(text)) rejected.push({ text, why: 'a repeat' });
    else kept.push(text);
  }
  return { kept, rejected };
}

/**
 * `sets` example sets of `size` worked examples each, drawn by the seed from training problems (the
 * layout writes each as the prompt shows its own); problems the layout cannot write are skipped.
 */
export function exampleSets(
  exampleFrom: (problem: unknown) => string | undefined,
  problems: readonly unknown[],
  o: { sets: number; size: number; seed: number },
): string[][] {
  const written = problems.map(exampleFrom).filter((e): e is string => e !== undefined);
  if (written.length === 0 || o.size === 0) return [];
  const random = seededRandom(o.seed);
  return Array.from({ length: o.sets }, () => shuffled(random, written).slice(0, Math.min(o.size, PROMPT_SET_LIMITS.examples)));
}
