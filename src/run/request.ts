import { z } from 'zod';
import { Disagreement, ReviewDecision } from '../documents/types';
import { ForkSpec } from '../fork/types';
import { GoO } from '../goo/schema';
import { Grs, Thought, ThoughtState } from '../grs/types';
import { TaskRefSchema } from '../tasks/declarative/schema';
import {
  DEFAULT_CHILD_MAX_CALLS,
  DEFAULT_GIVE_UP_SECONDS,
  DEFAULT_PRICING,
  DEFAULT_REASK,
  DEFAULT_REVIEW_TIMEOUT_SECONDS,
  DEFAULT_STALL_SECONDS,
  DEFAULT_STRUCTURED_OUTPUT,
  MAX_CHILD_MAX_CALLS,
  SIMULATED_MODEL,
  STRUCTURED_OUTPUT_MODES,
} from './wire';

/**
 * The public contract of one run: what a client (any language) sends to start the Controller
 * workflow, and what it gets back. Secrets (API keys, endpoint credentials) are never part of it:
 * they live in the worker's environment.
 */

/** Prices in USD per million tokens. Defaults are the paper's gpt-3.5-turbo prices. */
export const Pricing = z.strictObject({
  inputPerMTok: z.number().min(0).default(DEFAULT_PRICING.inputPerMTok),
  outputPerMTok: z.number().min(0).default(DEFAULT_PRICING.outputPerMTok),
});

export const LlmSettings = z.strictObject({
  model: z.string().min(1).default(SIMULATED_MODEL),
  temperature: z.number().min(0).max(2).default(1.0),
  maxTokens: z.number().int().positive().max(1_000_000).optional(),
  /**
   * The model's context window in tokens (prompt and answer together). Schemes keep every prompt
   * inside it; without it, the window of the model's name is used (`src/llm/context-windows.ts`).
   */
  contextTokens: z.number().int().positive().max(100_000_000).optional(),
  pricing: Pricing.default({ ...DEFAULT_PRICING }),
  /**
   * How long one request of an LLM call may take to answer (a streamed one: to finish) before it
   * is given up and sent again; with `maxTokens` it grows with the tokens the request may generate.
   * Runs started before contract 1.17.0 used it as the timeout of a whole attempt of the call.
   */
  timeoutSeconds: z.number().positive().max(3600).default(120),
  /**
   * The slowest generation a call allows for: with `maxTokens` set, a call's timeout grows to
   * samples × maxTokens / this, so a long answer on a slow endpoint is not cut for being long.
   */
  minTokensPerSecond: z.number().positive().max(10_000).default(5),
  /** A streamed answer (endpoints that stream) that sends nothing this long is given up and asked again. */
  stallSeconds: z.number().positive().max(3600).default(DEFAULT_STALL_SECONDS),
  /**
   * A request refused or failing this long without a break (429s, 5xx, timeouts, dropped
   * connections) ends its call and the run, saying what was refused; until then each refused request
   * is sent again on its own inside the call, and the samples already answered are kept (decision 90).
   */
  giveUpSeconds: z.number().positive().max(86_400).default(DEFAULT_GIVE_UP_SECONDS),
  /** A call whose worker stops heartbeating this long is retried elsewhere (how a crashed worker is noticed). */
  heartbeatSeconds: z.number().positive().max(600).default(30),
  /**
   * Reuse responses from the worker's response cache (and store new ones). A rerun of the same
   * request with the same seed then costs nothing; k samples stay k samples (the seed carries the branch).
   */
  cache: z.boolean().default(false),
  /**
   * What a call served from the cache reports: `zero` (the default; a rerun costs nothing) or
   * `recorded`, the usage the answer had when it was paid for, at this run's prices, so runs that
   * replay answers compare honestly with runs that paid for them (studies use it; budgets count it).
   */
  cacheCosts: z
    .enum(['zero', 'recorded'])
    .optional()
    .describe("what a cached call reports: zero (default) or the usage it was paid for, at the run's prices"),
  /**
   * How k samples of one prompt are asked: `batched` is one call with n = k (the prompt is paid
   * once, as in the paper's runs); `perSample` is k requests of one sample each, sent together by
   * one call (every branch its own request, as Framework of Thoughts sends them; decision 69).
   */
  fanOut: z.enum(['batched', 'perSample']).default('batched'),
  /** LLM calls one run may have in flight at once (Temporal allows 2,000 pending activities per run). */
  maxConcurrentCalls: z.number().int().min(1).max(1900).default(500),
  /** Attempts per LLM call before the run fails (Temporal retries retryable faults). */
  maxAttempts: z.number().int().min(1).max(100).default(8),
  /**
   * How many times one LLM step asks again (a new seed, the missing samples only) when its answers
   * are unusable: none parses, or fewer than `reaskBelowShare` of them. Each re-ask is a call of its
   * own, recorded, costed and counted by the budget.
   */
  reask: z.number().int().min(0).max(10).default(DEFAULT_REASK.max),
  /** A step re-asks when fewer than this share of its answers are usable; 0 re-asks only when none is. */
  reaskBelowShare: z.number().min(0).max(1).default(DEFAULT_REASK.belowShare),
  /**
   * `auto`: ask for each answer in the task's JSON shape (OpenAI's `response_format` with a strict
   * JSON Schema) where the prompt has one; an endpoint that refuses it is asked for text instead.
   * `off`: free text, as the prompts describe. Steps recorded before the setting existed asked for text.
   */
  structuredOutput: z
    .enum(STRUCTURED_OUTPUT_MODES)
    .default(DEFAULT_STRUCTURED_OUTPUT)
    .describe("auto: answers as the task's JSON Schema (response_format) where the endpoint takes it; off: free text"),
});

export const Budget = z
  .strictObject({
    maxCostUsd: z.number().positive('a cost budget must be a positive number of USD').optional(),
    maxTokens: z.number().int().positive('a token budget must be a positive number of tokens').optional(),
  })
  .refine((b) => b.maxCostUsd !== undefined || b.maxTokens !== undefined, 'a budget needs maxCostUsd or maxTokens');

/**
 * How a large run spreads over histories (decision 71): a forEach whose parts may make more LLM
 * calls than `maxCalls` runs them in child workflows, each with a history of its own holding parts
 * worth at most `maxCalls` calls. The run's GRS, budget and result stay the run's.
 */
export const ChildSettings = z.strictObject({
  maxCalls: z
    .number()
    .int()
    .min(1)
    .max(MAX_CHILD_MAX_CALLS)
    .default(DEFAULT_CHILD_MAX_CALLS)
    .describe(
      "the LLM calls one history holds at most: a forEach's parts that may make more run in child workflows of this many calls each",
    ),
});
export type ChildSettings = z.infer<typeof ChildSettings>;

/** The largest `scheme.size` a request may name; the GoO limits bound what a scheme builds for it. */
export const MAX_SCHEME_SIZE = 100_000;

/**
 * A scheme of the task named instead of a GoO: the worker builds the GoO with the task's own scheme
 * code before any LLM call (schema/tasks.json lists each task's schemes and their parameters).
 */
export const NamedScheme = z.strictObject({
  name: z.string().min(1).describe("one of the task's schemes (schema/tasks.json), e.g. got"),
  size: z
    .number()
    .int()
    .min(1)
    .max(MAX_SCHEME_SIZE)
    .optional()
    .describe("the problem size the scheme is shaped for; default: the problem's own size (tasks.json: sizeMeans)"),
  params: z
    .record(z.string(), z.union([z.number(), z.string(), z.boolean()]))
    .optional()
    .describe("values of the scheme's tunable parameters (tasks.json); those left out take the paper's values"),
});
export type NamedScheme = z.infer<typeof NamedScheme>;

/**
 * `scheme` as a request carries it: a bare name is short for `{ name }` (what a client writes when the
 * scheme's defaults are what it wants). Normalised before the object is checked, so a mistake is still
 * reported at `scheme.<field>`; the contract publishes it as "a name or a NamedScheme".
 */
export const SchemeField = z.preprocess((value) => (typeof value === 'string' ? { name: value } : value), NamedScheme);

/** What a run does with the engine's review of its answer (tasks that review answers: doc-merge). */
export const ReviewSettings = z.strictObject({
  decide: z
    .boolean()
    .default(false)
    .describe('wait for a person to decide each disagreement of the sources (update decideDisagreements) before finishing'),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600)
    .default(DEFAULT_REVIEW_TIMEOUT_SECONDS)
    .describe('how long to wait for the decisions; then the merge stands as the model wrote it'),
});
export type ReviewSettings = z.infer<typeof ReviewSettings>;

export const RunRequest = z
  .strictObject({
    /** A built-in task's id, or a task declared as data (see src/tasks/declarative). */
    task: TaskRefSchema,
    /** The task's problem (e.g. `{ list: [...] }` for sorting); validated by the task before any LLM call. */
    problem: z.json(),
    goo: GoO.optional().describe('the Graph of Operations to run (or name a scheme instead)'),
    scheme: SchemeField.optional().describe(
      "a scheme of the task instead of a GoO: the worker expands it, for the model's context window (llm.contextTokens or the model's known window)",
    ),
    llm: LlmSettings.default(LlmSettings.parse({})),
    budget: Budget.optional(),
    /** Seeds the LLM requests, so a rerun (or a resumed run) asks exactly the same questions. */
    seed: z.number().int().min(0).default(0),
    /** Free-form labels shown in the Web UI and the GRS (scheme, sample, size...). */
    labels: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
    review: ReviewSettings.optional().describe("the engine's review of the answer: whether to wait for a person's decisions"),
    children: ChildSettings.optional().describe(
      'how a large run spreads its forEach parts over child workflows (default: 2,000 calls a history)',
    ),
    fork: ForkSpec.optional(),
  })
  .superRefine((request, ctx) => {
    if (request.goo !== undefined && request.scheme !== undefined)
      ctx.addIssue({ code: 'custom', path: ['scheme'], message: 'give either a GoO (goo) or a scheme by name, not both' });
    if (request.goo === undefined && request.scheme === undefined)
      ctx.addIssue({ code: 'custom', path: ['goo'], message: 'missing: expected a GoO, or a scheme of the task by name (scheme)' });
  })
  // The refinement above, as JSON Schema says it to clients in other languages.
  .meta({ oneOf: [{ required: ['goo'] }, { required: ['scheme'] }] });

/** A run request as a client sends it: a GoO, or a scheme the worker expands to one. */
export type RunRequestInput = z.input<typeof RunRequest>;
/** A request as sent, its defaults filled in; a scheme is still named, not expanded. */
export type SentRunRequest = z.infer<typeof RunRequest>;
/** A request as the Controller runs it: its GoO is the one sent, or the one its named scheme expanded to. */
export type RunRequest = Omit<SentRunRequest, 'goo' | 'scheme'> & { goo: GoO };
export type LlmSettings = z.infer<typeof LlmSettings>;

export const RunResult = z.object({
  task: z.string(),
  labels: z.record(z.string(), z.union([z.string(), z.number()])),
  /** Output thoughts of the GoO's sink operations. */
  final: z.array(Thought),
  /** The best final thought by the task's score direction, if any was scored. */
  best: Thought.optional(),
  /**
   * `answered` when a final thought is valid; `noAnswer` when none is (then `noAnswer` says where the
   * run lost its way). Absent in results of runs recorded before it was reported.
   */
  status: z.enum(['answered', 'noAnswer']).optional(),
  noAnswer: z
    .object({
      /** The first operation that had input thoughts yet produced no valid one. */
      operation: z.string(),
      /** Why its thoughts were invalid, with the start of what the model said. */
      reason: z.string(),
    })
    .optional(),
  grs: Grs,
});
export type RunResult = z.infer<typeof RunResult>;

/** What a person sends to score thoughts of a `human` Score operation (the `scoreThoughts` update). */
export const HumanScores = z.strictObject({
  operationId: z.string().min(1),
  /** A score for every thought the operation waits on, by thought id. */
  scores: z.record(z.string(), z.number().refine(Number.isFinite, 'a score must be a finite number')),
  by: z.string().max(200).optional(),
});
export type HumanScores = z.infer<typeof HumanScores>;

/** A person's decisions on a reviewed answer's disagreements (the `decideDisagreements` update). */
export const ReviewDecisions = z.strictObject({
  decisions: z.array(ReviewDecision).max(10_000),
  by: z.string().max(200).optional(),
});
export type ReviewDecisions = z.infer<typeof ReviewDecisions>;

/** A reviewed answer waiting for a person's decisions (the `pendingReview` query). */
export const PendingReview = z.object({
  thought: z.string(),
  documents: z.array(z.string()),
  disagreements: z.array(Disagreement),
  /** Workflow time (ms) after which the merge stands as written. */
  deadline: z.number(),
});
export type PendingReview = z.infer<typeof PendingReview>;

/** A human Score operation waiting for its scores (the `pendingHumanScores` query). */
export const PendingHumanScore = z.object({
  operationId: z.string(),
  thoughts: z.array(z.object({ id: z.string(), state: ThoughtState })),
  /** Workflow time (ms) after which the fallback applies. */
  deadline: z.number(),
});
export type PendingHumanScore = z.infer<typeof PendingHumanScore>;

/** The `progress` query's answer. */
export const Progress = z.object({
  operationsDone: z.number().int(),
  /** The GoO's operations and those its forEach operations grew so far: it grows while a run grows its graph. */
  operationsTotal: z
    .number()
    .int()
    .describe("the GoO's operations and those its forEach operations grew so far (grows while the run grows its graph)"),
  running: z.array(z.string()),
  awaitingHumanScores: z.array(z.string()),
  /** The run waits for a person's decisions on the disagreements of its reviewed answer (`pendingReview`). */
  awaitingReview: z.boolean().optional(),
  llmCalls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  costUsd: z.number(),
  budgetExhausted: z.boolean(),
  /** A person paused the run's LLM calls (the `steer` update): none starts until they resume it. */
  paused: z.boolean().optional(),
  /**
   * Child workflows running parts of the run now (decision 71): their workflow ids. What they have
   * done is in these counts once they end; `queryProgress` adds what they report meanwhile.
   */
  children: z.array(z.string()).optional().describe('workflow ids of the child workflows running parts of this run now'),
});
export type Progress = z.infer<typeof Progress>;
