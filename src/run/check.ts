import type { z } from 'zod';
import { operationOfThought, topOf } from '../fork/inherit';
import type { ForkSpec } from '../fork/types';
import { everyOperation } from '../goo/graph';
import type { GoO, Operation } from '../goo/schema';
import { type AnalyzedGoO, formatPath, type Issue, ValidationError, validateGoO, zodIssues } from '../goo/validate';
import { runHistoryIssues } from '../parts/plan';
import { isPromptedTask, PromptedTaskSchema } from '../prompts/schema';
import { TaskDeclaration } from '../tasks/declarative/schema';
import { resolveTask, TASKS, UnknownTaskError } from '../tasks/registry';
import type { AnyTask } from '../tasks/task';
import { footprintIssues, gooWidth } from './footprint';
import { RunRequest, type RunRequestInput, type SentRunRequest } from './request';
import { expandScheme } from './scheme';
import { DEFAULT_CHILD_MAX_CALLS } from './wire';

export interface CheckedRun {
  /** The request as the Controller runs it: defaults filled in, a named scheme expanded to its GoO. */
  request: RunRequest;
  /**
   * The request to start a run with: as sent, defaults filled in, a scheme still named (the worker
   * expands it again, with its own scheme code), the labels a scheme implies added.
   */
  sent: SentRunRequest;
  analyzed: AnalyzedGoO;
  task: AnyTask;
  problem: unknown;
}

/** How the checking side sends payloads: with a payload store, those above its threshold are kept there. */
export interface PayloadRoute {
  /** The store's threshold in bytes; undefined when there is no store (`GOT_STORE=off`). */
  storeThreshold?: number | undefined;
}

/**
 * Everything that can be known wrong before a run spends money: the request's shape, the GoO (sent,
 * or expanded from the named scheme), the task, its problem, and whether the task can serve every
 * operation of the GoO. Clients call it before starting a workflow; the worker's `prepareRun` calls
 * it again (its expansion of a named scheme is the one the run uses, recorded in history).
 */
export function checkRun(input: RunRequestInput | unknown, route: PayloadRoute = {}): CheckedRun {
  const parsed = RunRequest.safeParse(input);
  if (!parsed.success) throw new ValidationError('run request', requestIssues(parsed.error, input));
  const sent = parsed.data;
  // A GoO sent is checked first; a named scheme is expanded once the task and its problem are known good.
  const sentGoO = sent.goo ? validateGoO(sent.goo) : undefined;

  let task: AnyTask;
  try {
    task = resolveTask(sent.task);
  } catch (e) {
    if (e instanceof UnknownTaskError) throw new ValidationError('run request', [{ path: 'task', message: e.message }]);
    if (e instanceof ValidationError) throw new ValidationError('run request', e.issues);
    throw e;
  }

  const issues: Issue[] = [];
  const problem = task.problem.safeParse(sent.problem);
  if (!problem.success) issues.push(...zodIssues(problem.error, 'problem'));
  const { analyzed, labels } = sentGoO
    ? { analyzed: sentGoO, labels: sent.labels }
    : schemeGoO(task, sent, problem.success ? { problem: problem.data } : { issues });
  const { scheme: _named, ...rest } = sent;
  const request: RunRequest = { ...rest, goo: sent.goo ?? analyzed.goo, labels };
  // Operations in forEach bodies run like any other: the task must serve them too.
  everyOperation(request.goo.operations, (op, at) => {
    const path = ['goo', 'operations', ...at];
    issues.push(...taskSupports(task, op, path));
    if (problem.success && 'prompt' in op && task.checkParams) {
      for (const message of task.checkParams(op.prompt, op.params ?? {}, problem.data))
        issues.push({ path: formatPath([...path, 'params']), message });
    }
  });
  if (request.fork) issues.push(...forkIssues(request.fork, request.goo));
  // A run whose payloads cannot fit Temporal's limits would retry its workflow task forever: refuse it now.
  // With a payload store nothing is refused for its size: payloads above the threshold are stored, the
  // problem goes to steps by reference, and the Controller bounds what its calls in flight carry inline.
  if (problem.success && route.storeThreshold === undefined)
    issues.push(...footprintIssues(jsonBytes(request.problem), gooWidth(analyzed, request.llm.fanOut === 'perSample')));
  // Parts that would outgrow one history run in children; a run with too many children for its own history is refused.
  issues.push(
    ...runHistoryIssues(request.goo.operations, {
      perSample: request.llm.fanOut === 'perSample',
      maxCalls: request.children?.maxCalls ?? DEFAULT_CHILD_MAX_CALLS,
    }),
  );
  if (issues.length) throw new ValidationError('run request', issues);
  return { request, sent: { ...sent, labels }, analyzed, task, problem: problem.data };
}

/**
 * Operations a person adds to a running graph (decision 104), checked as a GoO is: the run's GoO with
 * them must be valid, and the task must serve each. Returns them as parsed (defaults filled in).
 */
export function checkAddedOperations(taskRef: RunRequest['task'], goo: GoO, added: unknown[]): Operation[] {
  const task = resolveTask(taskRef);
  const analyzed = validateGoO({ version: 1, operations: [...goo.operations, ...added] });
  const parsed = analyzed.goo.operations.slice(goo.operations.length);
  const issues = parsed.flatMap((op, i) => taskSupports(task, op, ['operations', i]));
  if (issues.length) throw new ValidationError('added operations', issues);
  return parsed;
}

/** A fork's point and instructions must name operations of the graph it runs (their GoO operation, for a part or a thought). */
function forkIssues(fork: ForkSpec, goo: GoO): Issue[] {
  const ids = new Set(goo.operations.map((op) => op.id));
  const known = [...ids].join(', ');
  const issues: Issue[] = [];
  if (fork.at !== undefined) {
    const point = fork.at.includes('/') ? operationOfThought(fork.at) : fork.at;
    if (!point || !ids.has(topOf(point)))
      issues.push({
        path: 'fork.at',
        message: `names no operation of the GoO (${known}): expected an operation, a part (F[3]) or a thought id`,
      });
  }
  fork.instructions?.forEach((i, n) => {
    if (!ids.has(topOf(i.operation)))
      issues.push({ path: `fork.instructions.${n}.operation`, message: `"${i.operation}" is no operation of the GoO (${known})` });
  });
  return issues;
}

/**
 * The GoO of the request's named scheme, checked like a GoO sent, and the labels it implies (the
 * scheme's name and size, as `got run` labels its runs; labels sent win). Needs a valid problem.
 */
function schemeGoO(
  task: AnyTask,
  sent: SentRunRequest,
  problem: { problem: unknown } | { issues: Issue[] },
): { analyzed: AnalyzedGoO; labels: SentRunRequest['labels'] } {
  if ('issues' in problem) throw new ValidationError('run request', problem.issues);
  const scheme = sent.scheme!;
  const expanded = expandScheme(task, scheme, problem.problem, sent.llm);
  let analyzed: AnalyzedGoO;
  try {
    analyzed = validateGoO(expanded.goo);
  } catch (e) {
    if (e instanceof ValidationError) throw new ValidationError(`GoO of scheme "${scheme.name}"`, e.issues);
    throw e;
  }
  return { analyzed, labels: { scheme: scheme.name, size: expanded.size, ...sent.labels } };
}

/**
 * The request's issues by field. A `task` that is neither a task id nor a valid prompt set or
 * declaration fails as a whole in the union; the object's own issues are reported instead, as `task.<field>`.
 */
function requestIssues(error: z.ZodError, input: unknown): Issue[] {
  return error.issues.flatMap((issue): Issue[] => {
    if (issue.code !== 'invalid_union' || issue.path.length !== 1 || issue.path[0] !== 'task')
      return [{ path: formatPath(issue.path), message: issue.message }];
    const task = (input as { task?: unknown } | null)?.task;
    if (task !== null && typeof task === 'object' && !Array.isArray(task)) {
      const declared = (isPromptedTask(task) ? PromptedTaskSchema : TaskDeclaration).safeParse(task);
      if (!declared.success) return zodIssues(declared.error, 'task');
    }
    const known = Object.keys(TASKS).join(', ');
    return [
      {
        path: 'task',
        message:
          task === undefined
            ? `missing: expected a built-in task id (${known}), one with a prompt set, or a task declaration`
            : `expected a built-in task id (${known}), one with a prompt set ({id, prompts}), or a task declaration (an object)`,
      },
    ];
  });
}

/** What an operation needs of its task (a prompt, a scorer, a validator) and the task lacks, by field. */
export function taskSupports(task: AnyTask, op: RunRequest['goo']['operations'][number], at: (string | number)[]): Issue[] {
  const path = (field: string) => formatPath([...at, field]);
  const missing = (what: string) => [
    { path: path('type'), message: `task "${task.id}" has no ${what}, which a ${op.type} operation needs` },
  ];
  switch (op.type) {
    case 'generate':
    case 'aggregate':
    case 'improve':
    case 'validateAndImprove':
      if (!task.prompts.includes(op.prompt)) {
        return [
          { path: path('prompt'), message: `task "${task.id}" has no prompt "${op.prompt}"; expected one of: ${task.prompts.join(', ')}` },
        ];
      }
      return op.type === 'validateAndImprove' && !task.validate ? missing('local validator') : [];
    case 'score':
      if (op.scorer.kind === 'local') return task.score ? [] : missing('local scoring function');
      if (op.scorer.kind === 'human')
        return op.scorer.fallback === 'local' && !task.score ? missing("local scoring function (the human scorer's fallback)") : [];
      if (task.llmScorers?.[op.scorer.prompt]) return [];
      return [
        {
          path: path('scorer'),
          message: `task "${task.id}" has no LLM scorer "${op.scorer.prompt}"; expected one of: ${Object.keys(task.llmScorers ?? {}).join(', ') || '(none)'}`,
        },
      ];
    case 'groundTruth':
      return task.groundTruth ? [] : missing('ground truth check');
    case 'forEach': {
      if (op.parts === 'each') return [];
      const splits = Object.keys(task.splits ?? {});
      if (splits.includes(op.parts.split)) return [];
      return [
        {
          path: path('parts.split'),
          message: `task "${task.id}" has no split "${op.parts.split}"; expected one of: ${splits.join(', ') || '(none)'}`,
        },
      ];
    }
    default:
      return [];
  }
}

/** The problem's size as it travels: UTF-8 JSON. */
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
