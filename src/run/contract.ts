import { z } from 'zod';
import { ProblemFiles } from '../documents/sent-files';
import { PromptedTaskRef, PromptedTaskSchema } from '../prompts/schema';
import { SteerRequest } from '../steering/types';
import { TASKS } from '../tasks/registry';
import { StudyRequest } from '../tune/request';
import { HumanScores, PendingHumanScore, PendingReview, Progress, ReviewDecisions, RunRequest, RunResult, SchemeField } from './request';
import { GOT_SEARCH_ATTRIBUTES } from './search-attributes';
import { problemSchemaFile, taskCatalogue } from './task-catalogue';
import {
  DEFAULT_TASK_QUEUE,
  FAILURE,
  HOLD_CALLS_SIGNAL,
  PARTS_WORKFLOW_TYPE,
  QUERY,
  STUDY_QUERY,
  STUDY_WORKFLOW_TYPE,
  UPDATE,
  WORKFLOW_TASK_TIMEOUT_SECONDS,
  WORKFLOW_TYPE,
} from './wire';

/**
 * The public contract of the Controller workflow, for clients in any language: its type name, task
 * queue, input and output, queries and update, and the built-in tasks (their problems, prompts and
 * schemes), as JSON Schema generated from the zod schemas the code itself uses. `npm run schema`
 * writes it to schema/ (file names may have a folder: `tasks/...`); a test fails when it is stale.
 */
export const CONTRACT_VERSION = '1.20.0';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output', title: string) => ({
  ...(z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', override: schemeAsNameOrObject }) as Record<
    string,
    unknown
  >),
  title,
});

// zod cannot say what a preprocess accepts: `scheme` is published as the bare name or the object it stands for;
// nor what a guard accepts: a prompt set as its shape.
function schemeAsNameOrObject(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }) {
  if (ctx.zodSchema === PromptedTaskRef) {
    for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
    Object.assign(ctx.jsonSchema, z.toJSONSchema(PromptedTaskSchema, { io: 'input', target: 'draft-2020-12' }));
    delete ctx.jsonSchema.$schema;
    return;
  }
  if (ctx.zodSchema !== SchemeField) return;
  const object = { ...ctx.jsonSchema };
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  ctx.jsonSchema.anyOf = [{ type: 'string', minLength: 1, description: 'a scheme name, short for {"name": ...}' }, object];
}

export function contractFiles(): Record<string, unknown> {
  return {
    'contract.json': {
      version: CONTRACT_VERSION,
      workflowType: WORKFLOW_TYPE,
      defaultTaskQueue: DEFAULT_TASK_QUEUE,
      // Start option a client should give (Temporal's default is 10 s): a worker replaying a long history needs longer.
      workflowTaskTimeoutSeconds: WORKFLOW_TASK_TIMEOUT_SECONDS,
      input: { args: ['run-request.schema.json'] },
      tasks: 'tasks.json',
      output: 'run-result.schema.json',
      queries: {
        progress: 'progress.schema.json',
        grs: 'run-result.schema.json#/properties/grs',
        pendingHumanScores: 'pending-human-scores.schema.json',
        [QUERY.pendingReview]: 'pending-review.schema.json',
      },
      updates: {
        scoreThoughts: { args: ['human-scores.schema.json'], returns: { accepted: 'number of scores accepted' } },
        [UPDATE.decideDisagreements]: { args: ['review-decisions.schema.json'], returns: { accepted: 'number of decisions accepted' } },
        [UPDATE.steer]: {
          args: ['steer-request.schema.json'],
          returns: { paused: 'whether new LLM calls are held', budget: 'the budget now in force, if any' },
          refused:
            'with a reason when it cannot apply (paused already, a budget not above what is spent, an unknown or started operation, a prune that leaves nothing, ...); nothing is recorded',
        },
      },
      // A fork (decision 102): a run request with `fork.parent` naming a recorded run; the worker recalls
      // the parent's calls and takes those on the same inputs without a call. Listed by search attribute.
      forks: {
        request: 'run-request.schema.json#/properties/fork',
        searchAttribute: GOT_SEARCH_ATTRIBUTES.parent.name,
        memo: 'forkOf: { workflowId, runId, at? }',
        inherited: 'grs.calls[].inherited, grs.totals.inheritedCalls, grs.fork',
      },
      // Tasks that take files (tasks.json: takesFiles) accept a problem of files instead: the worker reads them by content.
      problemFiles: 'problem-files.schema.json',
      // Optimisation studies (`got tune`) are workflows too; a client may start one with this input.
      studies: {
        workflowType: STUDY_WORKFLOW_TYPE,
        input: { args: ['study-request.schema.json'] },
        queries: { [STUDY_QUERY.studyProgress]: 'trials done, the best feasible trial so far, cost (docs/tuning.md)' },
      },
      // A run's forEach parts that would outgrow one history run as its child workflows (decision 71); they answer `progress` too.
      children: {
        workflowType: PARTS_WORKFLOW_TYPE,
        workflowId: '<run workflow id>.parts.<forEach>[<first part>-<last part>]',
        queries: { progress: 'progress.schema.json' },
        // Sent by the run when a person pauses or resumes it (decision 104); a client has no need to send it.
        signals: { [HOLD_CALLS_SIGNAL]: 'true: hold new LLM calls (the run was paused); false: let them go (resumed)' },
      },
      failures: {
        [FAILURE.validation]:
          'the request is invalid, a named scheme included (details: issues with the path of each offending field); nothing was spent',
        [FAILURE.runFailed]: 'an operation failed for good (e.g. the API key was rejected); the partial GRS stays inspectable',
      },
    },
    // What a client sends: defaults may be left out.
    'run-request.schema.json': jsonSchema(RunRequest, 'input', 'Graph of Thoughts run request'),
    'run-result.schema.json': jsonSchema(RunResult, 'output', 'Graph of Thoughts run result'),
    'study-request.schema.json': jsonSchema(StudyRequest, 'input', 'Optimisation study request (workflow tuneStudy)'),
    'progress.schema.json': jsonSchema(Progress, 'output', 'Run progress (query "progress")'),
    'pending-human-scores.schema.json': jsonSchema(
      z.array(PendingHumanScore),
      'output',
      'Operations waiting for human scores (query "pendingHumanScores")',
    ),
    'human-scores.schema.json': jsonSchema(HumanScores, 'input', 'Scores from a person (update "scoreThoughts")'),
    'pending-review.schema.json': jsonSchema(
      PendingReview.nullable(),
      'output',
      'Disagreements of the sources waiting for a person\'s decisions (query "pendingReview"; null when none)',
    ),
    'review-decisions.schema.json': jsonSchema(
      ReviewDecisions,
      'input',
      'A person\'s decisions on disagreements (update "decideDisagreements")',
    ),
    'steer-request.schema.json': jsonSchema(SteerRequest, 'input', 'Steering a running run (update "steer", decision 100)'),
    'problem-files.schema.json': jsonSchema(
      ProblemFiles,
      'input',
      'A problem sent as files (PDF, DOCX, HTML, Markdown, text), read by the worker',
    ),
    'tasks.json': taskCatalogue(),
    ...Object.fromEntries(
      Object.values(TASKS).map((task) => [
        problemSchemaFile(task.id),
        jsonSchema(task.problem, 'input', `The problem of task "${task.id}" (${task.title})`),
      ]),
    ),
  };
}

export const renderContractFile = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
