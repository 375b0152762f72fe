/**
 * A built-in prompt as parts a person (or a study) can reword: the instruction, the answer's format,
 * the approach and the worked examples; the input (the list to sort, the text to count in) is the
 * task's and never replaced. Rendering the task's own parts gives its prompt byte for byte, so the
 * paper's prompts, the response cache and the simulator see no change. Pure; no zod.
 */

/** The replaceable parts of one prompt. */
export interface PromptParts {
  /** What to do, in a sentence or a few; may name the prompt's variables as `{{name}}`. */
  instruction: string;
  /** How to answer (e.g. "Answer with the sorted list only."); empty: nothing said. */
  format: string;
  /** Steps to follow, shown in an `<Approach>` block; empty: no block. */
  approach: string;
  /** Worked examples, each a block of text as the prompt shows it; none: no `<Examples>` block. */
  examples: string[];
}

/** A prompt's replacements: any part left out keeps the task's own. */
export type PromptOverride = Partial<PromptParts>;

/** Replacements by prompt name (the names a task's GoOs use: `sort`, `merge`, `improve`...). */
export type PromptSet = Record<string, PromptOverride>;

/** A task's tunable prompt: its own parts for a request, the variables an instruction may name, and the input. */
export interface PromptLayout<R> {
  /** Variables instructions and formats may name, each with what it holds. */
  variables: Readonly<Record<string, string>>;
  /** The task's parts (instruction and format as templates naming the variables), their values and the input block for one prompt request. */
  build(request: R): { parts: PromptParts; values: Record<string, string>; input: string };
  /**
   * A worked example made from a solved problem of the training split, as this prompt shows its own
   * (absent: the prompt's examples can be reworded but not drawn from problems).
   */
  exampleFrom?(problem: unknown): string | undefined;
}

/** The prompt text: the instruction block, the approach and examples when there are any, then the input. */
export function renderParts(parts: PromptParts, input: string): string {
  const said = [parts.instruction, parts.format].filter((s) => s.length > 0).join(' ');
  const blocks = [`<Instruction> ${said} </Instruction>`];
  if (parts.approach) blocks.push(`<Approach>\n${parts.approach}\n</Approach>`);
  if (parts.examples.length) blocks.push(`<Examples>\n${parts.examples.join('\n\n')}\n</Examples>`);
  blocks.push(input);
  return blocks.join('\n\n');
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g;

/** The variable names a text uses as `{{name}}`. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** The text with each `{{name}}` replaced by its value (names are checked before a run: an unknown one stays as written). */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
}

/** The parts a prompt is sent with: the task's own (templates) with a set's replacements, variables filled. */
export function partsWith(own: PromptParts, override: PromptOverride | undefined, values: Readonly<Record<string, string>>): PromptParts {
  const chosen = { ...own, ...override };
  return {
    instruction: fillPlaceholders(chosen.instruction, values),
    format: fillPlaceholders(chosen.format, values),
    approach: chosen.approach,
    examples: chosen.examples,
  };
}
