import { z } from 'zod';

/**
 * The Graph of Operations (GoO) as data. Every operation names the operations whose output
 * thoughts it consumes (`inputs`); an operation without inputs starts from the problem's
 * root thought (inside a forEach body: from its part's thoughts). The schema is the type:
 * everything else is inferred from it.
 */

export { DEFAULT_LIMITS } from './graph';

const operationId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'an id of letters, digits, "_", "." or "-" (at most 64 characters)');

const jsonValue: z.ZodType<unknown> = z.json();
const params = z.record(z.string(), jsonValue).optional().describe('task-specific prompt parameters');
const branches = z.number().int().min(1).describe('samples requested from the LLM per input thought');

const base = {
  id: operationId,
  inputs: z.array(operationId).default([]),
};

export const GenerateOp = z.strictObject({
  ...base,
  type: z.literal('generate'),
  /** The task's prompt to use, e.g. "sort", "split" or "improve" for sorting. */
  prompt: z.string().min(1),
  k: branches.default(1),
  params,
});

export const AggregateOp = z.strictObject({
  ...base,
  type: z.literal('aggregate'),
  prompt: z.string().min(1),
  k: branches.default(1),
  params,
});

export const ImproveOp = z.strictObject({
  ...base,
  type: z.literal('improve'),
  prompt: z.string().min(1),
  params,
});

export const Scorer = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('local') }),
  z.strictObject({
    kind: z.literal('llm'),
    prompt: z.string().min(1),
    samples: z.number().int().min(1).default(1),
  }),
  // A person scores the thoughts through the workflow's `scoreThoughts` update (the paper lets humans act as scorers).
  z.strictObject({
    kind: z.literal('human'),
    timeoutSeconds: z
      .number()
      .positive()
      .max(30 * 24 * 3600)
      .default(3600),
    /** What happens when nobody scores in time: the task's local score, or leave the thoughts unscored. */
    fallback: z.enum(['local', 'unscored']).default('local'),
  }),
]);

export const ScoreOp = z.strictObject({
  ...base,
  type: z.literal('score'),
  scorer: Scorer.default({ kind: 'local' }),
});

export const ValidateAndImproveOp = z.strictObject({
  ...base,
  type: z.literal('validateAndImprove'),
  /** Validation runs locally (the task's validator); improvement asks the LLM. */
  prompt: z.string().min(1).describe('the improve prompt used when a thought is invalid'),
  tries: z.number().int().min(1).default(3),
  params,
});

export const KeepBestNOp = z.strictObject({
  ...base,
  type: z.literal('keepBestN'),
  n: z.number().int().min(1),
  higherIsBetter: z.boolean(),
});

export const KeepValidOnlyOp = z.strictObject({
  ...base,
  type: z.literal('keepValidOnly'),
});

export const SelectorOp = z.strictObject({
  ...base,
  type: z.literal('selector'),
  /** Keeps the input thoughts whose state has all these field values (e.g. `{ part: 2 }`). */
  where: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

export const GroundTruthOp = z.strictObject({
  ...base,
  type: z.literal('groundTruth'),
});

/** How a forEach cuts its input thoughts into parts. */
export const Parts = z.union([
  z.literal('each').describe('every input thought is one part'),
  z.strictObject({
    /** The task's named split function (`Task.splits`), run in a local activity: its parts are recorded in history. */
    split: z.string().min(1),
    params: params.describe("the split's parameters"),
  }),
]);

/**
 * Grows the graph while the run goes on: the body (operations with ids local to it) runs once per
 * part, the number of parts known only at run time. Part i of forEach `F` runs a copy of the body
 * whose ids are `F[i].<id>`; body operations without inputs start from the part's thoughts. Its
 * output: the body's sinks' outputs over all parts, in part order (a part the split keeps, or an
 * empty body, passes the part's thoughts on).
 */
export const ForEachOp = z.strictObject({
  ...base,
  type: z.literal('forEach'),
  parts: Parts,
  /** At most this many parts (bounded by `limits.maxParts`); a split making more fails the operation. */
  maxParts: z.number().int().min(1).describe('the most parts this forEach may make at run time'),
  // Annotated with the named types below: the schema refers to itself through Operation.
  get body(): z.ZodArray<z.ZodType<AnyOperation, AnyOperationInput>> {
    return z.array(Operation).describe('operations run once per part; ids are local to the body');
  },
});

const NON_GROWING = [
  GenerateOp,
  AggregateOp,
  ImproveOp,
  ScoreOp,
  ValidateAndImproveOp,
  KeepBestNOp,
  KeepValidOnlyOp,
  SelectorOp,
  GroundTruthOp,
] as const;
type NonGrowing = z.infer<(typeof NON_GROWING)[number]>;
type NonGrowingInput = z.input<(typeof NON_GROWING)[number]>;
/** The recursive types the forEach schema names (inferred types cannot refer to themselves). */
interface ForEachShape {
  id: string;
  inputs: string[];
  type: 'forEach';
  parts: z.infer<typeof Parts>;
  maxParts: number;
  body: AnyOperation[];
}
interface ForEachInputShape {
  id: string;
  inputs?: string[] | undefined;
  type: 'forEach';
  parts: z.input<typeof Parts>;
  maxParts: number;
  body: AnyOperationInput[];
}
type AnyOperation = NonGrowing | ForEachShape;
type AnyOperationInput = NonGrowingInput | ForEachInputShape;

// Named in the published JSON Schema (`$defs/Operation`), where forEach bodies refer to it.
export const Operation = z.discriminatedUnion('type', [...NON_GROWING, ForEachOp]).meta({ id: 'Operation' });

export const GoO = z.strictObject({
  /** Schema version of this document; bumped only on incompatible change. */
  version: z.literal(1).default(1),
  operations: z.array(Operation).min(1, 'a GoO needs at least one operation'),
});

export type Operation = z.infer<typeof Operation>;
export type OperationType = Operation['type'];
export type GoO = z.infer<typeof GoO>;
export type GoOInput = z.input<typeof GoO>;
export type OperationOf<T extends OperationType> = Extract<Operation, { type: T }>;
export type Scorer = z.infer<typeof Scorer>;
export type Parts = z.infer<typeof Parts>;

export { callsLlm, LLM_OPERATION_TYPES } from './graph';
