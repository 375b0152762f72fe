import type { GoO } from '../goo/schema';
import { ValidationError } from '../goo/validate';
import type { AnyTask } from '../tasks/task';
import { type Config, resolveConfig, type SearchSpace } from './space';
import { applyConfig, readTunableGoO } from './template';

/** What a study tunes: a scheme of the task, or a GoO document with a `tunable` section (see `template.ts`). */
export type GooSource = { scheme: string } | { tunableGoo: Record<string, unknown> };

/** The source's search space for a problem size. */
export function spaceOf(task: AnyTask, source: GooSource, size: number): SearchSpace {
  if ('tunableGoo' in source) return readTunableGoO(source.tunableGoo).space;
  schemeOf(task, source.scheme);
  return task.tunables?.[source.scheme]?.(size) ?? {};
}

/** The GoO a configuration makes for one problem (checked against the space first; the GoO itself is checked with the run). */
export function gooFor(task: AnyTask, source: GooSource, o: { size: number; problem: unknown; params?: Config }): GoO {
  if ('tunableGoo' in source) return applyConfig(readTunableGoO(source.tunableGoo), o.params) as unknown as GoO;
  const scheme = schemeOf(task, source.scheme);
  const params = resolveConfig(spaceOf(task, source, o.size), o.params ?? {});
  return scheme({ size: o.size, problem: o.problem, params });
}

function schemeOf(task: AnyTask, name: string) {
  const scheme = Object.hasOwn(task.schemes, name) ? task.schemes[name] : undefined;
  if (!scheme)
    throw new ValidationError('options', [
      { path: '--scheme', message: `task "${task.id}" has no scheme "${name}"; expected one of: ${Object.keys(task.schemes).join(', ')}` },
    ]);
  return scheme;
}
