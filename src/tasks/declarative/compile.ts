import { z } from 'zod';
import { parseOrThrow } from '../../goo/validate';
import type { ThoughtState } from '../../grs/types';
import type { AnswerSchema } from '../answer-schema';
import { parseRows, readCsv } from '../dataset';
import type { ChatMessage, LlmScorer, ParsedThought, Part, PromptRequest, Sample, Split, Task } from '../task';
import { declaredAnswerSchema } from './answer-schemas';
import { type AnswerParser, compileParser } from './parsers';
import { type FieldSpec, fieldSchema, problemSchema } from './problem';
import {
  type LlmJudgeSpec,
  type LocalScorerSpec,
  missingParams,
  type SplitSpec,
  TaskDeclaration,
  type TaskDeclarationInput,
} from './schema';
import { compileJudge, compileLocalScorer } from './scorers';
import { asText, compileTemplate, type Template } from './templates';

/**
 * Turns a task declaration into a Task the activities run like any built-in one.
 *
 * Thoughts of a declared task hold the parsed answer as `output` (a text, a JSON value or a list of
 * numbers, per the parser); the problem's root thought is `{}`. A thought whose answer could not be
 * read has no `output` (the activities keep the raw text as `answer`): it scores `noAnswerScore`,
 * fails local validation (ValidateAndImprove) and never solves the problem.
 *
 * `noAnswerScore` defaults: when higher is better, the lowest judge scale minimum (0 without judges);
 * when lower is better, 1 with an exactMatch scorer, else the highest judge scale maximum. A numeric
 * scorer needs it declared.
 */

export type DeclaredProblem = Record<string, unknown>;

interface CompiledPrompt {
  system?: Template;
  user: Template;
  parser: AnswerParser;
  answerSchema: AnswerSchema | undefined;
  spec: { system?: string | undefined; user: string };
}

export function compileDeclaration(input: TaskDeclarationInput | unknown): Task<DeclaredProblem> {
  const d = parseOrThrow(TaskDeclaration, input, 'task declaration', 'task');
  const fields = d.problem as Record<string, FieldSpec>;
  const taskParser = compileParser(d.parser);
  const prompts = new Map<string, CompiledPrompt>(
    Object.entries(d.prompts).map(([name, p]) => [
      name,
      {
        ...(p.system !== undefined ? { system: compileTemplate(p.system) } : {}),
        user: compileTemplate(p.user),
        parser: p.parser ? compileParser(p.parser) : taskParser,
        answerSchema: declaredAnswerSchema(d.id, name, p.parser ?? d.parser),
        spec: p,
      },
    ]),
  );

  const judges = Object.entries(d.scorers).filter((e): e is [string, LlmJudgeSpec] => e[1].kind === 'llmJudge');
  const local = Object.values(d.scorers).find((s): s is LocalScorerSpec => s.kind !== 'llmJudge');
  const noAnswerScore =
    d.noAnswerScore ??
    defaultNoAnswerScore(
      d.higherIsBetter,
      judges.map(([, j]) => j),
      local,
    );
  const localScorer = local ? compileLocalScorer(local, d.higherIsBetter, noAnswerScore) : undefined;
  const llmScorers: Record<string, LlmScorer<DeclaredProblem>> = Object.fromEntries(
    judges.map(([name, spec]) => [name, compileJudge(spec, d.higherIsBetter)]),
  );

  const schema = problemSchema(fields);
  const sizeOf = (problem: DeclaredProblem): number => {
    if (d.size === undefined) return 1;
    const value = problem[d.size];
    if (Array.isArray(value) || typeof value === 'string') return value.length;
    return typeof value === 'number' ? value : 0;
  };
  const examples = (d.examples ?? []).map((e) => schema.parse(e));
  const sizes = d.sizes ?? (examples.length ? [...new Set(examples.map(sizeOf))].sort((a, b) => a - b) : [1]);

  const promptOf = (name: string): CompiledPrompt => {
    const p = prompts.get(name);
    if (!p) throw new Error(`task "${d.id}" has no prompt "${name}"; it declares: ${[...prompts.keys()].join(', ')}`);
    return p;
  };

  const task: Task<DeclaredProblem> = {
    id: d.id,
    title: d.title ?? d.id,
    problem: schema,
    higherIsBetter: d.higherIsBetter,
    noAnswerScore,
    sizes,
    prompts: [...prompts.keys()],
    schemes: Object.fromEntries(Object.entries(d.schemes).map(([name, goo]) => [name, () => structuredClone(goo)])),
    sizeOf,
    rootState: () => ({}),
    answerText: (state) =>
      Object.hasOwn(state, 'output') ? asText(state.output) : `(no answer: ${String(state.answer ?? 'unparseable answer')})`,

    buildPrompt(req: PromptRequest): ChatMessage[] {
      const p = promptOf(req.prompt);
      const values = { thoughts: req.thoughts, problem: req.problem, params: req.params };
      return [
        ...(p.system ? [{ role: 'system' as const, content: p.system.render(values) }] : []),
        { role: 'user', content: p.user.render(values) },
      ];
    },

    answerSchema: (req: PromptRequest) => prompts.get(req.prompt)?.answerSchema,

    parseResponse(req: PromptRequest, text: string): ParsedThought[] {
      const p = promptOf(req.prompt);
      // The prompt the answer replies to: what the answer copies from it is input, not answer (decision 28).
      let prompt: string | undefined;
      try {
        prompt = p.user.render({ thoughts: req.thoughts, problem: req.problem, params: req.params });
      } catch {
        // Rendered fine when the prompt was built; without it the answer is read without knowing its input.
      }
      const result = p.parser.parse(text, prompt === undefined ? {} : { prompt });
      return [result.ok ? { state: { output: result.value }, valid: true } : { state: {}, valid: false, error: result.error }];
    },

    checkParams(prompt, params) {
      const p = prompts.get(prompt);
      if (!p) return [];
      return missingParams(p.spec, params).map((m) => `${m}: prompt "${prompt}" uses {{params.${m}}}, which this operation does not give`);
    },

    validate: (state: ThoughtState) => Object.hasOwn(state, 'output'),
    parseDataset: (csv) => parseDeclaredCsv(d.id, fields, csv),
    generateProblem(_size, seed) {
      if (!examples.length)
        throw new Error(`task "${d.id}" declares no example problems: give the problem itself (e.g. --problem problem.json)`);
      return structuredClone(examples[seed % examples.length]!);
    },
    ...(Object.keys(d.splits).length
      ? { splits: Object.fromEntries(Object.entries(d.splits).map(([n, spec]) => [n, compileSplit(spec)])) }
      : {}),
    ...(Object.keys(llmScorers).length ? { llmScorers } : {}),
    ...(localScorer ? { score: localScorer.score, groundTruth: localScorer.groundTruth } : {}),
    ...(filesField(fields)
      ? {
          problemFromFiles: (files: { path: string; text: string }[]) =>
            parseOrThrow(schema, fromFiles(fields, files), 'problem', 'problem'),
        }
      : {}),
  };
  return task;
}

/** A declared split: one new thought `{ output: <item> }` per item of the lists it reads. */
function compileSplit(spec: SplitSpec): Split<DeclaredProblem> {
  return (inputs, problem) => {
    const lists = spec.field !== undefined ? [problem[spec.field]] : inputs.map((s) => s.output);
    return lists.flatMap((list) => (Array.isArray(list) ? list.map((item): Part => ({ state: { output: item } })) : []));
  };
}

function defaultNoAnswerScore(higherIsBetter: boolean, judges: LlmJudgeSpec[], local: LocalScorerSpec | undefined): number {
  if (higherIsBetter) return judges.length ? Math.min(...judges.map((j) => j.scale.min)) : 0;
  if (local?.kind === 'exactMatch') return 1;
  return judges.length ? Math.max(...judges.map((j) => j.scale.max)) : 1;
}

/** The one required field a user's files can fill: a list of texts (one per file) or a text (one file). */
function filesField(fields: Record<string, FieldSpec>): string | undefined {
  const required = Object.entries(fields).filter(([, f]) => !f.optional);
  const [only] = required;
  return required.length === 1 && (only![1].type === 'string[]' || only![1].type === 'string') ? only![0] : undefined;
}

function fromFiles(fields: Record<string, FieldSpec>, files: { path: string; text: string }[]): DeclaredProblem {
  const name = filesField(fields)!;
  const texts = files.map((f) => f.text);
  if (fields[name]!.type === 'string' && texts.length !== 1)
    throw new Error(`the problem field "${name}" is one text: give exactly one file, got ${texts.length}`);
  return { [name]: fields[name]!.type === 'string' ? texts[0] : texts };
}

/** One row per problem: a column per field (lists as JSON, e.g. `["a", "b"]` or `[1, 2]`) and an `id` column. */
function parseDeclaredCsv(taskId: string, fields: Record<string, FieldSpec>, csv: string): Sample<DeclaredProblem>[] {
  const cell = (f: FieldSpec) =>
    z.preprocess((raw) => {
      if (typeof raw !== 'string') return raw;
      if (raw === '' && f.optional) return undefined;
      if (f.type === 'string') return raw;
      if (f.type === 'number') return raw.trim() === '' ? raw : Number(raw);
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return raw;
      }
    }, fieldSchema(f));
  const Row = z.object({
    id: z.string({ error: 'missing: expected a sample id' }).min(1, 'expected a sample id'),
    ...Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, cell(f)])),
  });
  return parseRows(readCsv(csv), Row, `dataset of task "${taskId}"`).map((row) => {
    const { id, ...problem } = row as Record<string, unknown>;
    return { id: String(id), problem: Object.fromEntries(Object.entries(problem).filter(([, v]) => v !== undefined)) };
  });
}
