/**
 * Every name that crosses a process boundary, and every default a client, the CLI and the worker
 * must agree on, defined once. This module imports nothing (no zod, no SDK): the workflow bundle,
 * the worker, the client, the CLI, the JSON Schema export and the tests all read it.
 */

/** The Controller's workflow type, as clients in any language start it. */
export const WORKFLOW_TYPE = 'graphOfThoughts';

/** The task queue runs go to unless told otherwise. */
export const DEFAULT_TASK_QUEUE = 'got';

/** Query names the Controller answers. */
export const QUERY = {
  /** Operations done, running and waiting; calls, tokens and cost so far (`Progress`). */
  progress: 'progress',
  /** The Graph Reasoning State as it stands (`Grs`). */
  grs: 'grs',
  /** Human Score operations waiting for a person (`PendingHumanScore[]`). */
  pendingHumanScores: 'pendingHumanScores',
  /** The disagreements of a reviewed answer waiting for a person's decisions (`PendingReview`, or null). */
  pendingReview: 'pendingReview',
} as const;

/** The study workflow (`got tune`): trials as child workflows, each sample of a trial a Controller run. */
export const STUDY_WORKFLOW_TYPE = 'tuneStudy';

/** One trial of a study: a configuration evaluated on the study's samples. */
export const TRIAL_WORKFLOW_TYPE = 'tuneTrial';

/** Query names a study and its trials answer. */
export const STUDY_QUERY = {
  /** Trials done, the best feasible so far, feasible count, cost (`StudyProgress`). */
  studyProgress: 'studyProgress',
  /** Samples done and running, the mean so far (`TrialProgress`). */
  trialProgress: 'trialProgress',
} as const;

/**
 * The shared provider limit (decision 70): one workflow per endpoint and API key holds the account's
 * requests and tokens per minute for every worker that calls it. Its id is the prefix and a digest
 * of the endpoint's URL and key; workers reach it by update-with-start.
 */
export const PROVIDER_LIMIT_WORKFLOW_TYPE = 'providerLimit';
export const PROVIDER_LIMIT = {
  workflowIdPrefix: 'got-provider-limit-',
  /** Update: a worker's waiting calls (`{ calls: [{ id, tokens, requests? }], settled? }`), answered once one may go (`{ granted: ids, again? }`). */
  acquire: 'acquire',
  /** Signal: ended calls' booked and used tokens (`{ settled: [booked, used][] }`), refunding or charging the difference. */
  settle: 'settle',
  /** Signal: waiting calls that gave up (`{ ids }`), so their places are not granted to nobody. */
  withdraw: 'withdraw',
  /** Signal: the provider refused a call (`{ retryAfterMs }`): nothing is granted before then. */
  refused: 'refused',
  /** Query: the limits, the buckets' levels, calls waiting and granted (`ProviderLimitState`). */
  state: 'limitState',
} as const;

/** Whose calls a worker's GOT_LLM_RPM / GOT_LLM_TPM hold: every worker's together (the account's limit), or this worker's alone. */
export const LIMIT_SCOPES = ['shared', 'worker'] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];
export const DEFAULT_LIMIT_SCOPE: LimitScope = 'shared';

/**
 * The signal a run sends the child workflows running its parts (decision 71) when a person pauses or
 * resumes it (`true`: hold new LLM calls; `false`: let them go; decision 104).
 */
export const HOLD_CALLS_SIGNAL = 'holdCalls';

/** Update names the Controller accepts. */
export const UPDATE = {
  /** A person's scores for a waiting human Score operation (`HumanScores` → `{ accepted }`). */
  scoreThoughts: 'scoreThoughts',
  /** A person's decisions on the disagreements of a reviewed answer (`ReviewDecisions` → `{ accepted }`). */
  decideDisagreements: 'decideDisagreements',
  /** Steering a running run: pause, resume, a new budget (`SteerRequest` → `SteerOutcome`, decision 100). */
  steer: 'steer',
} as const;

/**
 * Failure types (`ApplicationFailure.type`): what a client can branch on, and what the Controller's
 * retry policies name as non-retryable.
 */
export const FAILURE = {
  /** Bad input: the request, its GoO or problem, or a task that cannot serve it. Never retried. */
  validation: 'ValidationError',
  /** The endpoint refused the request (400, 401, 403, 404, 422). Never retried. */
  llmRequestRejected: 'LlmRequestRejected',
  /** A task could not build one of its prompts. Never retried. */
  prompt: 'PromptError',
  /** The endpoint asked us to slow down (429); retried after its Retry-After. */
  llmRateLimited: 'LlmRateLimited',
  /** The endpoint failed or could not be reached (5xx, reset, timeout, a body that is no completion); retried. */
  llmUnavailable: 'LlmUnavailable',
  /** The run failed in one of its operations (the message names which and why). */
  runFailed: 'RunFailed',
} as const;

/** Failures a retry cannot mend: the LLM steps and local steps give up at once on these. */
export const NON_RETRYABLE_FAILURES: readonly string[] = [FAILURE.llmRequestRejected, FAILURE.validation, FAILURE.prompt];

/** `patched()` ids of the Controller's behaviour changes (docs/decisions.md, 16). */
export const PATCH = {
  /** Checks in the producing LLM step, filters in the same turn, the request checked by the worker. */
  fastSteps: 'fast-steps',
  /** LLM steps ask again when their answers are unusable; a run with no valid final thought says so. */
  reask: 'reask-unusable',
  /** A large problem is kept in the payload store and steps carry its reference instead of it. */
  claimCheck: 'claim-check',
  /** The best answer is reviewed by the engine (document merges: sources, disagreements), and may wait for a person's decisions. */
  answerReview: 'answer-review',
  /** Fan-out perSample: a step's k samples are one call that sends k single-sample requests together. */
  samplesTogether: 'samples-together',
  /** A forEach whose parts may make more LLM calls than one history should hold runs them in child workflows (decision 71). */
  partsInChildren: 'parts-in-children',
  /** An LLM call retries its refused requests itself and is ended by them and its heartbeats, not by a timeout of the attempt (decision 90). */
  patientCalls: 'patient-calls',
  /** A person may pause and resume the run's LLM calls and change its budget while it runs (the `steer` update, decision 100). */
  steering: 'steering',
  /** A run may be a fork of a recorded one: the parent's calls on the same inputs are taken without a call (decision 102). */
  forks: 'forks',
} as const;

/**
 * A batch of a forEach's parts run in a history of its own (decision 71): a child workflow of the
 * run, started when the parts may make more than `children.maxCalls` LLM calls. Its id is the run's
 * id, the forEach's and the batch's first and last part: `<run>.parts.<forEach>.<first>-<last>`.
 */
export const PARTS_WORKFLOW_TYPE = 'graphParts';
/**
 * The LLM calls one child history holds at most (`children.maxCalls`): an LLM call is three to four
 * events, so the default keeps a child near 8,000 of Temporal's 51,200 events a history may hold.
 */
export const DEFAULT_CHILD_MAX_CALLS = 2_000;
/**
 * How long one workflow task of a run or of its children may take (Temporal's default is 10 s). A
 * worker that lost a run's cached state replays its whole history in one task: a child of 2,000
 * calls (~8,000 events) took longer than 10 s on a busy machine, timed out, and was replayed again,
 * forever (decision 72). The server allows at most 120 s.
 */
export const WORKFLOW_TASK_TIMEOUT_SECONDS = 60;
/** The most `children.maxCalls` may say: over ~12,000 calls a child would near the event cap. */
export const MAX_CHILD_MAX_CALLS = 10_000;

/** How long a run waits for a person's decisions on disagreements before the merge stands as written (`review.timeoutSeconds`). */
export const DEFAULT_REVIEW_TIMEOUT_SECONDS = 7 * 24 * 3600;

/** How long a streamed answer may send nothing before it is given up as stalled (`llm.stallSeconds`). */
export const DEFAULT_STALL_SECONDS = 60;

/**
 * How long one request of an LLM call may be refused or fail without a break (429s, 5xx, timeouts)
 * before the call gives up (`llm.giveUpSeconds`): until then each refused request is sent again on
 * its own, inside the call (decision 90). Minutes, since a busy account refuses for seconds at a time.
 */
export const DEFAULT_GIVE_UP_SECONDS = 600;

/**
 * The longest one attempt of an LLM call may run (runs since the `patient-calls` patch): only a
 * safety net, since each request is ended by its own timeout or stall and by `llm.giveUpSeconds`,
 * and a lost worker by the heartbeat timeout. A slow answer that keeps coming is never cut before.
 */
export const CALL_CEILING_SECONDS = 6 * 3600;

/**
 * A run is stuck once its current workflow task has failed or timed out this many times in a row
 * (`--stuck-after`): a worker that dies mid-task costs one timeout, a broken deploy fails every attempt.
 */
export const DEFAULT_STUCK_AFTER = 3;

/** Re-asking an LLM step whose answers are unusable: at most twice, and only when none is usable. */
export const DEFAULT_REASK = { max: 2, belowShare: 0 } as const;

/** The simulated LLM's model name: the default model of a run when no real endpoint is configured. */
export const SIMULATED_MODEL = 'sim-got-1';

/** USD per million tokens when a run names no prices: the paper's gpt-3.5-turbo prices. */
export const DEFAULT_PRICING = { inputPerMTok: 1.5, outputPerMTok: 2.0 } as const;

/**
 * Whether a run asks for answers in the task's JSON shape (`llm.structuredOutput`, decision 65):
 * `auto` sends a prompt's answer schema where the task declares one and the endpoint takes it;
 * `off` asks for the free text the prompts describe, as the paper's runs did.
 */
export const STRUCTURED_OUTPUT_MODES = ['auto', 'off'] as const;
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];
/** Text answers unless asked: runs stay comparable with the paper's and with the evaluations recorded so far. */
export const DEFAULT_STRUCTURED_OUTPUT: StructuredOutputMode = 'off';
