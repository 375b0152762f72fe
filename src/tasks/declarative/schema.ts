import { z } from 'zod';
import { everyOperation } from '../../goo/graph';
import { GoO, type Operation } from '../../goo/schema';
import { ValidationError, validateGoO } from '../../goo/validate';
import { isPromptedTask, PromptedTaskRef } from '../../prompts/schema';
import { shapeDepth } from './parsers';
import { FIELD_TYPES, type FieldSpec, problemSchema } from './problem';
import { paramsUsed, type Root, type TemplateScope, templateProblems } from './templates';

/**
 * A task declared as data (JSON or YAML), for backends that cannot ship TypeScript: prompt
 * templates, a built-in parser, built-in scorers, the problem's shape and the GoOs of its schemes.
 * A run request may carry one in place of a task id; `compileDeclaration` turns it into a Task.
 * The schema is strict: unknown fields, dangling names (a template naming a field the problem
 * lacks, a scheme using a prompt or scorer that is not declared) and inconsistent settings are
 * refused with the path of the offending field. The template syntax is described in templates.ts,
 * thought states and score defaults in compile.ts.
 */

/** A declaration travels in every activity input of a run: keep it small. */
export const MAX_DECLARATION_CHARS = 200_000;
export const MAX_TEMPLATE_CHARS = 50_000;
const MAX_JSON_SHAPE_DEPTH = 8;

const RESERVED_FIELDS: readonly string[] = ['thought', 'thoughts', 'problem', 'params', 'scale'];

const name = (what: string) =>
  z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, `a ${what} name is a letter followed by letters, digits, "_" or "-" (at most 64 characters)`);
const fieldName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
    'a field name is a letter or "_" followed by letters, digits or "_" (at most 64 characters), so templates can name it',
  );
const Tag = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, 'a tag name is a letter followed by letters, digits, "_" or "-" (at most 32 characters)');
const Template = z
  .string()
  .min(1, 'a template must not be empty')
  .max(MAX_TEMPLATE_CHARS, `a template may have at most ${MAX_TEMPLATE_CHARS} characters`);
const count = z.number().int().min(0);

/** Records keyed by names: at least `min` entries, at most `max`. */
function named<T extends z.ZodType>(key: z.ZodString, value: T, what: string, min: number, max: number) {
  return z
    .record(key, value, {
      // zod says only "Invalid key in record": say what a name must look like.
      error: (iss) =>
        iss.code === 'invalid_key'
          ? `invalid name "${String(iss.input ?? '')}": ${(iss.issues as { message: string }[] | undefined)?.[0]?.message ?? 'not allowed'}`
          : undefined,
    })
    .refine((r) => Object.keys(r).length >= min, `declare at least ${min} ${what}`)
    .refine((r) => Object.keys(r).length <= max, `at most ${max} ${what} are allowed`);
}

// ---------------------------------------------------------------- problem

export const ProblemField = z
  .strictObject({
    type: z.enum(FIELD_TYPES, { error: `expected a field type: one of ${FIELD_TYPES.map((t) => `"${t}"`).join(', ')}` }),
    description: z.string().max(500).optional(),
    optional: z.boolean().default(false),
    /** Texts (and the texts of a list): length bounds. */
    minLength: count.optional(),
    maxLength: z.number().int().min(1).optional(),
    /** Lists: item count bounds. */
    minItems: count.optional(),
    maxItems: z.number().int().min(1).optional(),
    /** Numbers (and the numbers of a list). */
    integer: z.boolean().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
  })
  .superRefine((f, ctx) => {
    const texts = f.type === 'string' || f.type === 'string[]';
    const lists = f.type.endsWith('[]');
    const only = (keys: (keyof typeof f)[], allowed: boolean, kind: string) => {
      for (const key of keys)
        if (f[key] !== undefined && !allowed)
          ctx.addIssue({ code: 'custom', path: [key], message: `only ${kind} fields take ${key}; this field is of type "${f.type}"` });
    };
    only(['minLength', 'maxLength'], texts, 'text ("string" or "string[]")');
    only(['minItems', 'maxItems'], lists, 'list ("string[]" or "number[]")');
    only(['integer', 'min', 'max'], !texts, 'number ("number" or "number[]")');
    const order = (lo: keyof typeof f, hi: keyof typeof f) => {
      if (typeof f[lo] === 'number' && typeof f[hi] === 'number' && f[lo] > f[hi])
        ctx.addIssue({ code: 'custom', path: [lo], message: `${lo} (${f[lo]}) is larger than ${hi} (${f[hi]})` });
    };
    order('minLength', 'maxLength');
    order('minItems', 'maxItems');
    order('min', 'max');
  });

// ---------------------------------------------------------------- parsers

/** A JSON-Schema-like shape (a small subset) that a JSON answer must match. */
export type JsonShape =
  | { type: 'string'; enum?: string[] | undefined; minLength?: number | undefined; maxLength?: number | undefined }
  | { type: 'number' | 'integer'; minimum?: number | undefined; maximum?: number | undefined }
  | { type: 'boolean' }
  | { type: 'array'; items: JsonShape; minItems?: number | undefined; maxItems?: number | undefined }
  | { type: 'object'; properties: Record<string, JsonShape>; required?: string[] | undefined; additionalProperties: boolean };

export const JsonShape: z.ZodType<JsonShape> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('string'),
      enum: z.array(z.string()).min(1).optional(),
      minLength: count.optional(),
      maxLength: count.optional(),
    }),
    z.strictObject({ type: z.enum(['number', 'integer']), minimum: z.number().optional(), maximum: z.number().optional() }),
    z.strictObject({ type: z.literal('boolean') }),
    z.strictObject({ type: z.literal('array'), items: JsonShape, minItems: count.optional(), maxItems: count.optional() }),
    z
      .strictObject({
        type: z.literal('object'),
        properties: z.record(z.string().min(1), JsonShape),
        required: z.array(z.string()).optional(),
        additionalProperties: z.boolean().default(false),
      })
      .superRefine((o, ctx) => {
        for (const [i, key] of (o.required ?? []).entries()) {
          if (!Object.hasOwn(o.properties, key))
            ctx.addIssue({
              code: 'custom',
              path: ['required', i],
              message: `"${key}" is required but not among the properties (${Object.keys(o.properties).join(', ') || 'none'})`,
            });
        }
      }),
  ]),
);

const TagOption = Tag.optional().describe('read only the content of the last <tag>…</tag> of the answer');

export const Parser = z.discriminatedUnion('kind', [
  /** The answer's text (trimmed), or the content of its last <tag> block. */
  z.strictObject({ kind: z.literal('text'), tag: TagOption, minLength: count.default(1), maxLength: z.number().int().min(1).optional() }),
  /** A JSON value matching `schema`: the whole answer (or tag), else the one among its {…}/[…] that fits, read leniently (decision 28). */
  z.strictObject({ kind: z.literal('json'), tag: TagOption, schema: JsonShape }),
  /** The answer's list of numbers, e.g. `[1, 2.5, -3]`: the one labelled as the answer, else the last that does not copy the prompt (decision 28). */
  z.strictObject({
    kind: z.literal('numberList'),
    tag: TagOption,
    integers: z.boolean().default(false),
    minItems: count.optional(),
    maxItems: count.optional(),
  }),
]);
export type Parser = z.infer<typeof Parser>;

// ---------------------------------------------------------------- prompts and scorers

export const PromptSpec = z.strictObject({
  system: Template.optional(),
  user: Template,
  /** Overrides the task's parser for the answers to this prompt. */
  parser: Parser.optional(),
});

export const Scale = z
  .strictObject({ min: z.number(), max: z.number() })
  .refine((s) => s.min < s.max, { message: 'the scale needs min < max', path: ['max'] });

export const LlmJudge = z.strictObject({
  kind: z.literal('llmJudge'),
  system: Template.optional(),
  user: Template,
  scale: Scale,
  /** Where the rating(s) are in the judge's answer: the last number of each <tag>, or the answer's last number. */
  extract: z
    .discriminatedUnion('kind', [
      z.strictObject({
        kind: z.literal('tags'),
        tags: z
          .array(Tag)
          .min(1)
          .max(10)
          .refine((t) => new Set(t).size === t.length, 'tags must be distinct'),
      }),
      z.strictObject({ kind: z.literal('lastNumber') }),
    ])
    .default({ kind: 'lastNumber' }),
  /** Each rating is averaged over the samples; the ratings are then combined into one score. */
  combine: z.enum(['mean', 'harmonicMean']).default('mean'),
  /** The score when no sample could be read; defaults to the worst end of the scale. */
  unparseableScore: z.number().optional(),
});

export const ExactMatch = z.strictObject({
  kind: z.literal('exactMatch'),
  /** The problem field holding the expected answer. */
  expected: fieldName,
  /** Texts are compared trimmed, with runs of white space as one space; ignoreCase also ignores letter case. */
  ignoreCase: z.boolean().default(false),
});

export const Numeric = z.strictObject({
  kind: z.literal('numeric'),
  /** The problem field holding the expected number; the score is |answer − expected|. */
  expected: fieldName,
  /** Ground truth: solved when the difference is at most this. */
  tolerance: z.number().min(0).default(0),
});

export const ScorerSpec = z.discriminatedUnion('kind', [LlmJudge, ExactMatch, Numeric]);
export type ScorerSpec = z.infer<typeof ScorerSpec>;
export type LlmJudgeSpec = z.infer<typeof LlmJudge>;
export type LocalScorerSpec = Exclude<ScorerSpec, LlmJudgeSpec>;

// ---------------------------------------------------------------- splits

/**
 * A split for forEach operations (`parts: { split: <name> }`). `items`: one part per item of a list,
 * each a new thought `{ output: <item> }`: the items of a problem field (`field`), or else of each
 * input thought's `output` (a thought whose output is not a list makes no part).
 */
export const SplitSpec = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('items'),
    field: fieldName.optional().describe("a list field of the problem; default: the input thoughts' outputs"),
  }),
]);
export type SplitSpec = z.infer<typeof SplitSpec>;

// ---------------------------------------------------------------- the declaration

const TaskDeclarationObject = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a task id is lower-case letters, digits, ".", "_" or "-" (at most 64 characters)'),
  title: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  /** How scores read: true for quality ratings, false for error counts and distances. */
  higherIsBetter: z.boolean({
    error: 'expected true or false: whether higher scores are better (true for quality ratings, false for error counts or distances)',
  }),
  /** The score of an answer that could not be read (see the defaults in compile.ts). */
  noAnswerScore: z.number().optional(),
  problem: named(fieldName, ProblemField, 'problem fields', 1, 32),
  /** The problem field whose length (a list or text) or value (a number) is the problem's size. */
  size: fieldName.optional(),
  sizes: z.array(z.number().int().positive()).max(20).optional(),
  prompts: named(name('prompt'), PromptSpec, 'prompts', 1, 50),
  parser: Parser.default({ kind: 'text', minLength: 1 }),
  scorers: named(name('scorer'), ScorerSpec, 'scorers', 0, 20).default({}),
  /** Splits by name, for forEach operations. */
  splits: named(name('split'), SplitSpec, 'splits', 0, 20).default({}),
  schemes: named(name('scheme'), GoO, 'schemes', 1, 20),
  /** Problems to run without a problem file (the CLI's generator picks one by sample number). */
  examples: z.array(z.record(z.string(), z.json())).max(20).optional(),
});

export const TaskDeclaration = TaskDeclarationObject.superRefine(crossCheck).describe('a task declared as data (see "Tasks as data")');
export type TaskDeclaration = z.infer<typeof TaskDeclaration>;
export type TaskDeclarationInput = z.input<typeof TaskDeclaration>;

export { type TaskRef, taskIdOf } from '../task-ref';

type Ctx = z.core.$RefinementCtx<z.infer<typeof TaskDeclarationObject>>;
type Path = (string | number)[];

function crossCheck(d: z.infer<typeof TaskDeclarationObject>, ctx: Ctx): void {
  const issue = (path: Path, message: string) => ctx.addIssue({ code: 'custom', path, message });
  const fields = Object.keys(d.problem);

  const size = JSON.stringify(d).length;
  if (size > MAX_DECLARATION_CHARS)
    issue(
      [],
      `the declaration has ${size} characters as JSON; at most ${MAX_DECLARATION_CHARS} are allowed, since it travels with every step of a run`,
    );

  for (const f of fields)
    if (RESERVED_FIELDS.includes(f))
      issue(['problem', f], `"${f}" is a reserved template name (${RESERVED_FIELDS.join(', ')}); choose another field name`);
  if (d.size !== undefined && !fields.includes(d.size))
    issue(['size'], `the problem has no field "${d.size}"; its fields are ${fields.join(', ')}`);

  const checkTemplate = (path: Path, text: string | undefined, roots: readonly Root[]) => {
    if (text === undefined) return;
    const scope: TemplateScope = { roots, problemFields: fields };
    for (const message of templateProblems(text, scope)) issue(path, message);
  };
  const checkParser = (path: Path, parser: Parser | undefined) => {
    if (parser?.kind === 'json' && shapeDepth(parser.schema) > MAX_JSON_SHAPE_DEPTH)
      issue(
        [...path, 'schema'],
        `the JSON schema nests ${shapeDepth(parser.schema)} levels deep; at most ${MAX_JSON_SHAPE_DEPTH} are allowed`,
      );
  };
  checkParser(['parser'], d.parser);
  for (const [p, spec] of Object.entries(d.prompts)) {
    checkTemplate(['prompts', p, 'system'], spec.system, ['thought', 'thoughts', 'problem', 'params']);
    checkTemplate(['prompts', p, 'user'], spec.user, ['thought', 'thoughts', 'problem', 'params']);
    checkParser(['prompts', p, 'parser'], spec.parser);
  }

  const locals = Object.entries(d.scorers).filter(([, s]) => s.kind !== 'llmJudge');
  for (const [s] of locals.slice(1)) {
    issue(
      ['scorers', s, 'kind'],
      `at most one local scorer (exactMatch or numeric) may be declared, since Score operations with { kind: "local" } use it; "${locals[0]![0]}" already is one`,
    );
  }
  for (const [s, spec] of Object.entries(d.scorers)) {
    if (spec.kind === 'llmJudge') {
      checkTemplate(['scorers', s, 'system'], spec.system, ['thought', 'problem', 'scale']);
      checkTemplate(['scorers', s, 'user'], spec.user, ['thought', 'problem', 'scale']);
      if (spec.combine === 'harmonicMean' && spec.scale.min < 0)
        issue(['scorers', s, 'combine'], 'a harmonic mean needs ratings of 0 or more: use a scale with min >= 0, or combine by "mean"');
      continue;
    }
    const field = d.problem[spec.expected];
    if (!field) issue(['scorers', s, 'expected'], `the problem has no field "${spec.expected}"; its fields are ${fields.join(', ')}`);
    else if (field.optional)
      issue(
        ['scorers', s, 'expected'],
        `the ground truth field "${spec.expected}" must not be optional: every problem needs it to be scored`,
      );
    if (spec.kind === 'numeric') {
      if (field && field.type !== 'number')
        issue(['scorers', s, 'expected'], `a numeric scorer compares with a number; field "${spec.expected}" is of type "${field.type}"`);
      if (d.higherIsBetter)
        issue(
          ['higherIsBetter'],
          `the numeric scorer "${s}" scores the distance to the expected number, so lower is better: set higherIsBetter to false`,
        );
      if (d.noAnswerScore === undefined)
        issue(
          ['noAnswerScore'],
          `a task with a numeric scorer must say what an unreadable answer scores (a distance worse than any real answer's)`,
        );
    }
  }

  for (const [s, goo] of Object.entries(d.schemes)) {
    try {
      validateGoO(goo, undefined, '');
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      for (const i of e.issues) issue(['schemes', s, ...parsePath(i.path)], i.message);
    }
    // forEach bodies too: their operations need the same prompts, scorers and splits.
    everyOperation(goo.operations, (op, at) => {
      for (const { field, message } of supportProblems(d, op)) issue(['schemes', s, 'operations', ...at, ...field.split('.')], message);
    });
  }

  for (const [name, split] of Object.entries(d.splits)) {
    if (split.field === undefined) continue;
    const field = d.problem[split.field];
    if (!field) issue(['splits', name, 'field'], `the problem has no field "${split.field}"; its fields are ${fields.join(', ')}`);
    else if (!field.type.endsWith('[]'))
      issue(
        ['splits', name, 'field'],
        `an items split needs a list field ("string[]" or "number[]"); "${split.field}" is of type "${field.type}"`,
      );
  }

  if (d.examples) {
    const schema = problemSchema(d.problem as Record<string, FieldSpec>);
    d.examples.forEach((example, i) => {
      const r = schema.safeParse(example);
      if (!r.success) for (const iss of r.error.issues) issue(['examples', i, ...(iss.path as Path)], iss.message);
    });
  }
}

/** Whether the declaration can serve an operation of its own schemes (the run's GoO is checked by checkRun). */
function supportProblems(d: z.infer<typeof TaskDeclarationObject>, op: Operation): { field: string; message: string }[] {
  const prompts = Object.keys(d.prompts);
  const judges = Object.entries(d.scorers)
    .filter(([, s]) => s.kind === 'llmJudge')
    .map(([n]) => n);
  const hasLocal = Object.values(d.scorers).some((s) => s.kind !== 'llmJudge');
  const noLocal = (what: string) => [
    { field: 'type', message: `${what} needs a local scorer (exactMatch or numeric), and the declaration has none` },
  ];
  switch (op.type) {
    case 'generate':
    case 'aggregate':
    case 'improve':
    case 'validateAndImprove': {
      const spec = d.prompts[op.prompt];
      if (!spec) return [{ field: 'prompt', message: `no prompt "${op.prompt}" is declared; expected one of: ${prompts.join(', ')}` }];
      const missing = missingParams(spec, op.params ?? {});
      return missing.length
        ? [
            {
              field: 'params',
              message: `prompt "${op.prompt}" uses ${missing.map((m) => `{{params.${m}}}`).join(', ')}, which this operation's params do not give`,
            },
          ]
        : [];
    }
    case 'score':
      if (op.scorer.kind === 'llm') {
        return judges.includes(op.scorer.prompt)
          ? []
          : [
              {
                field: 'scorer',
                message: `no llmJudge scorer "${op.scorer.prompt}" is declared; expected one of: ${judges.join(', ') || '(none)'}`,
              },
            ];
      }
      if (op.scorer.kind === 'local' || op.scorer.fallback === 'local')
        return hasLocal ? [] : noLocal(op.scorer.kind === 'local' ? 'a local Score operation' : "a human scorer's local fallback");
      return [];
    case 'groundTruth':
      return hasLocal ? [] : noLocal('a GroundTruth operation');
    case 'forEach': {
      if (op.parts === 'each' || Object.hasOwn(d.splits, op.parts.split)) return [];
      const splits = Object.keys(d.splits);
      return [
        { field: 'parts.split', message: `no split "${op.parts.split}" is declared; expected one of: ${splits.join(', ') || '(none)'}` },
      ];
    }
    default:
      return [];
  }
}

/** The params a prompt's templates read that `params` does not give. */
export function missingParams(spec: { system?: string | undefined; user: string }, params: Record<string, unknown>): string[] {
  const used = [...paramsUsed(spec.user), ...(spec.system ? paramsUsed(spec.system) : [])];
  return [...new Set(used)].filter((p) => params[p] === undefined);
}

/** `operations[3].inputs` → ['operations', 3, 'inputs'] */
function parsePath(path: string): Path {
  if (!path) return [];
  return path.split('.').flatMap((part) => {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return [part];
    const indices = [...m[2]!.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]));
    return [...(m[1] ? [m[1]] : []), ...indices];
  });
}

/**
 * A run request's `task`: a built-in task's id, a built-in task with a prompt set (src/prompts), or a
 * task declaration. An object that does not hold is reported with the issues of the form it was
 * meant as (a plain union would only say "Invalid input").
 */
export const TaskRefSchema = z.union([z.string().min(1, 'expected a task id'), PromptedTaskRef, TaskDeclaration], {
  error: (iss) => {
    if (iss.code !== 'invalid_union') return undefined;
    const input: unknown = iss.input;
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      return 'expected a built-in task id (a string), a built-in task with prompts, or a task declaration (an object)';
    const prompted = isPromptedTask(input);
    const errors = (iss.errors as z.core.$ZodIssue[][] | undefined)?.[prompted ? 1 : 2] ?? [];
    const shown = errors.slice(0, 8).map((i) => `${formatIssuePath(i.path)}: ${i.message}`);
    const more = errors.length > shown.length ? `; and ${errors.length - shown.length} more` : '';
    return `invalid ${prompted ? 'prompt set' : 'task declaration'}: ${shown.join('; ')}${more}`;
  },
});

function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), 'task');
}
