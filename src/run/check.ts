import { validateGoO, ValidationError, zodIssues, formatPath, type AnalyzedGoO, type Issue } from '../goo/validate';
import { getTask, UnknownTaskError } from '../tasks/registry';
import type { AnyTask } from '../tasks/task';
import { RunRequest, type RunRequestInput } from './request';

export interface CheckedRun {
  request: RunRequest;
  analyzed: AnalyzedGoO;
  task: AnyTask;
  problem: unknown;
}

/**
 * Everything that can be known wrong before a run spends money: the request's shape, the GoO,
 * the task, its problem, and whether the task can serve every operation of the GoO. Clients call
 * it before starting a workflow; the workflow's first step calls it again for clients that did not.
 */
export function checkRun(input: RunRequestInput | unknown): CheckedRun {
  const parsed = RunRequest.safeParse(input);
  if (!parsed.success) throw new ValidationError('run request', zodIssues(parsed.error));
  const request = parsed.data;
  const analyzed = validateGoO(request.goo);

  let task: AnyTask;
  try {
    task = getTask(request.task);
  } catch (e) {
    if (e instanceof UnknownTaskError) throw new ValidationError('run request', [{ path: 'task', message: e.message }]);
    throw e;
  }

  const issues: Issue[] = [];
  const problem = task.problem.safeParse(request.problem);
  if (!problem.success) issues.push(...zodIssues(problem.error, 'problem'));
  request.goo.operations.forEach((op, i) => {
    issues.push(...taskSupports(task, op, i));
    if (problem.success && 'prompt' in op && op.params && task.checkParams) {
      for (const message of task.checkParams(op.prompt, op.params, problem.data)) issues.push({ path: formatPath(['goo', 'operations', i, 'params']), message });
    }
  });
  if (issues.length) throw new ValidationError('run request', issues);
  return { request, analyzed, task, problem: problem.data };
}

function taskSupports(task: AnyTask, op: RunRequest['goo']['operations'][number], i: number): Issue[] {
  const path = (field: string) => formatPath(['goo', 'operations', i, field]);
  const missing = (what: string) => [{ path: path('type'), message: `task "${task.id}" has no ${what}, which a ${op.type} operation needs` }];
  switch (op.type) {
    case 'generate':
    case 'aggregate':
    case 'improve':
    case 'validateAndImprove':
      if (!task.prompts.includes(op.prompt)) {
        return [{ path: path('prompt'), message: `task "${task.id}" has no prompt "${op.prompt}"; expected one of: ${task.prompts.join(', ')}` }];
      }
      return op.type === 'validateAndImprove' && !task.validate ? missing('local validator') : [];
    case 'score':
      if (op.scorer.kind === 'local') return task.score ? [] : missing('local scoring function');
      if (op.scorer.kind === 'human') return op.scorer.fallback === 'local' && !task.score ? missing('local scoring function (the human scorer\'s fallback)') : [];
      if (task.llmScorers?.[op.scorer.prompt]) return [];
      return [{ path: path('scorer'), message: `task "${task.id}" has no LLM scorer "${op.scorer.prompt}"; expected one of: ${Object.keys(task.llmScorers ?? {}).join(', ') || '(none)'}` }];
    case 'groundTruth':
      return task.groundTruth ? [] : missing('ground truth check');
    default:
      return [];
  }
}
