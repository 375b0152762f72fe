import { type Issue, ValidationError } from '../goo/graph';
import type { GoO } from '../goo/schema';
import { contextTokensOf } from '../llm/context-windows';
import type { AnyTask } from '../tasks/task';
import { configIssues } from '../tune/space';
import type { LlmSettings, NamedScheme } from './request';

/** A named scheme built for one problem: its GoO and the size it was shaped for. */
export interface ExpandedScheme {
  goo: GoO;
  size: number;
}

/**
 * The GoO a request's named scheme stands for: the task's own scheme, built for the (already
 * validated) problem, at the size named or else the problem's own, for the model's context window
 * (`llm.contextTokens`, else the window known for the model), with the tunable values named (checked
 * against the scheme's space first). What is wrong throws a ValidationError naming `scheme.<field>`.
 */
export function expandScheme(
  task: AnyTask,
  scheme: NamedScheme,
  problem: unknown,
  llm: Pick<LlmSettings, 'model' | 'contextTokens'>,
): ExpandedScheme {
  const refuse = (issues: Issue[]) => new ValidationError('run request', issues);
  const build = Object.hasOwn(task.schemes, scheme.name) ? task.schemes[scheme.name] : undefined;
  if (!build)
    throw refuse([
      {
        path: 'scheme.name',
        message: `task "${task.id}" has no scheme "${scheme.name}"; expected one of: ${Object.keys(task.schemes).join(', ')}`,
      },
    ]);
  const size = scheme.size ?? task.sizeOf(problem);
  const params = scheme.params ?? {};
  // Checked here, not only by the scheme: a scheme that does not read its parameters in some shape must not drop them silently.
  const issues = configIssues(task.tunables?.[scheme.name]?.(size) ?? {}, params, 'scheme.params');
  if (issues.length) throw refuse(issues);
  try {
    return { goo: build({ size, problem, contextTokens: contextTokensOf(llm), params }), size };
  } catch (e) {
    // Schemes refuse what they cannot be shaped for (too few documents, a window too small for one section) with a RangeError.
    if (e instanceof RangeError) throw refuse([{ path: 'scheme', message: e.message }]);
    if (e instanceof ValidationError) throw refuse(e.issues.map((i) => ({ ...i, path: `scheme.${i.path}` })));
    throw e;
  }
}
