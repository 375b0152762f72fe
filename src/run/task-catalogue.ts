import { isDeepStrictEqual } from 'node:util';
import type { PromptParts } from '../prompts/parts';
import { TASKS } from '../tasks/registry';
import type { AnyTask } from '../tasks/task';
import type { SearchSpace } from '../tune/space';

/**
 * What a client needs to build a valid request for each built-in task without reading TypeScript:
 * its problem's JSON Schema (published beside this catalogue), its prompts and local functions (what
 * a GoO of its own may use), and its schemes with the parameters a request's `scheme` may set. Read
 * from the tasks themselves, so it cannot drift from what the worker accepts.
 */

/** Where a task's problem schema is published, relative to schema/. */
export const problemSchemaFile = (taskId: string): string => `tasks/${taskId}.problem.schema.json`;

/** A scheme's tunable parameters at some of the task's sizes (the space may change with the size). */
export interface ParamsAtSizes {
  sizes: number[];
  params: SearchSpace;
}

/** One task in the catalogue. */
export interface CatalogueTask {
  title: string;
  /** The problem's JSON Schema, relative to schema/. */
  problem: string;
  /** The problem may be sent as files instead (contract.json: problemFiles), which the worker reads by content. */
  takesFiles: boolean;
  /** The engine reviews the run's best answer (GRS `review`; document merges: sources per clause, disagreements). */
  reviewsAnswers: boolean;
  /** What a scheme's default size counts, and the sizes the paper evaluates. */
  size: { means: string; paperSizes: number[] };
  higherIsBetter: boolean;
  /** The score a run without an answer counts as in evaluations. */
  noAnswerScore: number;
  /** Prompt names a GoO's generate, aggregate, improve and validateAndImprove operations may use. */
  prompts: string[];
  /** The task's local functions: a `local` Score, ValidateAndImprove's check, GroundTruth. */
  localFunctions: { score: boolean; validate: boolean; groundTruth: boolean };
  /** Named splits a forEach may use (`parts: { split }`). */
  splits: string[];
  /** Named LLM judges a Score may use (`scorer: { kind: "llm", prompt }`). */
  llmScorers: string[];
  /** The schemes a request may name, each with its tunable parameters by size (none: nothing to tune). */
  schemes: Record<string, { params: ParamsAtSizes[] }>;
  /**
   * The prompts a request's prompt set may reword (`task: { id, prompts }`, docs/prompts.md): each with
   * the variables its instruction and format may name, and its own parts (instruction and format as templates).
   */
  promptLayouts: Record<string, { variables: Record<string, string>; examplesFromProblems: boolean; parts: PromptParts }>;
}

/** How a request's `scheme` is read, for every task. */
const SCHEME_FIELDS = {
  name: "one of the task's schemes below",
  size: "optional: the size the scheme is shaped for (e.g. how many parts GoT splits into); default: the problem's own size (the task's size.means); at sizes the paper did not evaluate the worker computes each parameter's range for that size",
  params:
    "optional: values of the scheme's tunable parameters (an int parameter takes a whole number from min to max, a choice one of its values); those left out take the default, the paper's value",
  contextTokens:
    "not part of scheme: the request's llm.contextTokens, else the window known for the model's name; schemes that must fit their prompts in it use it (doc-merge merges section by section when the documents do not fit)",
};

/** The catalogue of built-in tasks (schema/tasks.json). */
export function taskCatalogue(tasks: Readonly<Record<string, AnyTask>> = TASKS) {
  return {
    description:
      'The built-in tasks a worker serves: name one in a run request (task), give its problem (the schema named here), and a GoO or one of its schemes by name (scheme).',
    scheme: SCHEME_FIELDS,
    tasks: Object.fromEntries(Object.values(tasks).map((task) => [task.id, catalogueTask(task)])),
  };
}

function catalogueTask(task: AnyTask): CatalogueTask {
  if (!task.sizeMeans) throw new Error(`task "${task.id}" does not say what its size counts (sizeMeans)`);
  return {
    title: task.title,
    problem: problemSchemaFile(task.id),
    takesFiles: !!task.problemFromFiles,
    reviewsAnswers: !!task.reviewer,
    size: { means: task.sizeMeans, paperSizes: [...task.sizes] },
    higherIsBetter: task.higherIsBetter,
    noAnswerScore: task.noAnswerScore,
    prompts: [...task.prompts],
    localFunctions: { score: !!task.score, validate: !!task.validate, groundTruth: !!task.groundTruth },
    splits: Object.keys(task.splits ?? {}),
    llmScorers: Object.keys(task.llmScorers ?? {}),
    schemes: Object.fromEntries(Object.keys(task.schemes).map((name) => [name, { params: paramsBySize(task, name) }])),
    promptLayouts: promptLayoutsOf(task),
  };
}

/** Each layout's parts as the task has them, shown on a generated problem (the parts are templates: the problem only fills the input). */
export function promptLayoutsOf(task: AnyTask): CatalogueTask['promptLayouts'] {
  const problem = task.generateProblem(task.sizes[0]!, 0);
  return Object.fromEntries(
    Object.entries(task.promptLayouts ?? {}).map(([name, layout]) => {
      const { parts } = layout.build({ prompt: name, params: {}, thoughts: [task.rootState(problem)], problem });
      return [name, { variables: { ...layout.variables }, examplesFromProblems: !!layout.exampleFrom, parts }];
    }),
  );
}

/** The scheme's space at each of the task's sizes, equal spaces grouped (most schemes have one for every size). */
function paramsBySize(task: AnyTask, scheme: string): ParamsAtSizes[] {
  const groups: ParamsAtSizes[] = [];
  for (const size of task.sizes) {
    const params = task.tunables?.[scheme]?.(size) ?? {};
    const same = groups.find((g) => isDeepStrictEqual(g.params, params));
    if (same) same.sizes.push(size);
    else groups.push({ sizes: [size], params });
  }
  return groups;
}
