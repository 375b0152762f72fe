/**
 * The library API: build a GoO, start a run, await it, inspect it. Everything a TypeScript
 * service needs to embed the engine is exported here; deeper paths are internal.
 */

export { createActivities, type GotActivities } from '../activities';
export { bundleGotWorkflows, createGotWorker, type GotWorkerOptions, WORKFLOWS_PATH } from '../worker/create';
export { type RunHealth, RunStuckError, resultUnlessStuck, runHealth, type StuckRun } from './client/health';
export { queryGrs, queryProgress, resultOf, type StartOptions, startRun, webUiLink, workflowIdFor } from './client/runs';
export { queryStudyProgress, startStudy, studyResultOf } from './client/studies';
export { GooBuilder, type Ref } from './goo/builder';
export { DEFAULT_LIMITS, GoO, type GoOInput, Operation, type OperationType } from './goo/schema';
export { type AnalyzedGoO, type Issue, ValidationError, validateGoO } from './goo/validate';
export { ancestors, bestPath, bestThought, finalThoughts, operationTimings, volume } from './grs/analysis';
export { toDot, toJson, toMermaid } from './grs/export';
export { toHtml } from './grs/html';
export { type GrsFact, GrsRecorder } from './grs/recorder';
export { Grs, LlmCall, OperationRecord, Thought, type ThoughtState, type Totals, type Usage } from './grs/types';
export { inspectRun, rebuildGrs } from './inspect/rebuild';
export { LlmClient, type LlmEndpoint } from './llm/client';
export { checkRun } from './run/check';
export { CONTRACT_VERSION, contractFiles } from './run/contract';
export {
  Budget,
  HumanScores,
  LlmSettings,
  NamedScheme,
  PendingHumanScore,
  Progress,
  RunRequest,
  type RunRequestInput,
  RunResult,
  type SentRunRequest,
} from './run/request';
export { type ExpandedScheme, expandScheme } from './run/scheme';
export { GOT_SEARCH_ATTRIBUTES } from './run/search-attributes';
export { type CatalogueTask, taskCatalogue } from './run/task-catalogue';
export {
  DEFAULT_TASK_QUEUE,
  FAILURE,
  QUERY,
  STUDY_QUERY,
  STUDY_WORKFLOW_TYPE,
  TRIAL_WORKFLOW_TYPE,
  UPDATE,
  WORKFLOW_TYPE,
} from './run/wire';
export { type SimLlmOptions, type SimulatedLlm, startSimulatedLlm } from './simllm/server';
export { getTask, TASKS } from './tasks/registry';
export type { AnyTask, ChatMessage, LlmScorer, ParsedThought, Part, PromptRequest, Sample, SchemeOptions, Split, Task } from './tasks/task';
export { type GooSource, gooFor, spaceOf } from './tune/configure';
export { checkStudy, type PreparedStudy, StudyRequest, type StudyRequestInput } from './tune/request';
export type { SampleOutcome, StudyProgress, StudyResult, TrialProgress, TrialResult } from './tune/results';
export type { Config, ParamSpec, SearchSpace } from './tune/space';
