/**
 * The library API: build a GoO, start a run, await it, inspect it. Everything a TypeScript
 * service needs to embed the engine is exported here; deeper paths are internal.
 */
export { GooBuilder, type Ref } from './goo/builder';
export { GoO, Operation, DEFAULT_LIMITS, type GoOInput, type OperationType } from './goo/schema';
export { validateGoO, ValidationError, type AnalyzedGoO, type Issue } from './goo/validate';
export { Grs, Thought, LlmCall, OperationRecord, type ThoughtState, type Usage, type Totals } from './grs/types';
export { GrsRecorder, type GrsFact } from './grs/recorder';
export { ancestors, volume, bestPath, bestThought, finalThoughts, operationTimings } from './grs/analysis';
export { toDot, toMermaid, toJson } from './grs/export';
export { toHtml } from './grs/html';
export { RunRequest, RunResult, Progress, HumanScores, PendingHumanScore, LlmSettings, Budget, type RunRequestInput } from './run/request';
export { WORKFLOW_TYPE, DEFAULT_TASK_QUEUE, QUERY, UPDATE, FAILURE } from './run/wire';
export { checkRun } from './run/check';
export { contractFiles, CONTRACT_VERSION } from './run/contract';
export { GOT_SEARCH_ATTRIBUTES } from './run/search-attributes';
export { TASKS, getTask } from './tasks/registry';
export type { Task, AnyTask, PromptRequest, ParsedThought, ChatMessage, LlmScorer, SchemeOptions, Sample } from './tasks/task';
export { startRun, resultOf, queryProgress, queryGrs, workflowIdFor, webUiLink, type StartOptions } from './client/runs';
export { inspectRun, rebuildGrs } from './inspect/rebuild';
export { LlmClient, type LlmEndpoint } from './llm/client';
export { startSimulatedLlm, type SimulatedLlm, type SimLlmOptions } from './simllm/server';
export { createGotWorker, bundleGotWorkflows, WORKFLOWS_PATH, type GotWorkerOptions } from '../worker/create';
export { createActivities, type GotActivities } from '../activities';
