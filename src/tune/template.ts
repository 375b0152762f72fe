import { type Issue, ValidationError } from '../goo/graph';
import { type Config, choiceParam, intParam, type ParamValue, PROMPT_PARAM_PREFIX, resolveConfig, type SearchSpace } from './space';

/**
 * A GoO given as JSON marks what may be tuned in a `tunable` section beside its operations: each
 * parameter names a range (`int: [min, max]`) or its choices (`choice: [...]`) and the places it
 * sets, as JSON Pointers into the GoO document (RFC 6901, e.g. `/operations/2/k`). The value the
 * file holds there is the default, so the file as written is the configuration it starts from.
 *
 * ```json
 * { "version": 1, "operations": [...],
 *   "tunable": { "sortBranches": { "int": [1, 10], "at": ["/operations/2/k", "/operations/5/k"] } } }
 * ```
 */

/** One tunable parameter of a GoO file. */
export interface TunableSpec {
  int?: [number, number];
  choice?: ParamValue[];
  /** JSON Pointers to every place the parameter sets; all must hold the same value in the file. */
  at: string[];
  description?: string;
}

/** A GoO file with its tunables read: the GoO without the section, the search space, and where each parameter goes. */
export interface TunableGoO {
  goo: Record<string, unknown>;
  space: SearchSpace;
  at: Record<string, string[]>;
}

/** The `tunable` section's key in a GoO file. */
export const TUNABLE_KEY = 'tunable';

/** Splits a GoO document into the GoO and its tunables; throws a ValidationError naming each bad entry. */
export function readTunableGoO(document: unknown): TunableGoO {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ValidationError('tunable GoO', [{ path: '', message: 'expected a JSON object (a GoO with a "tunable" section)' }]);
  const { [TUNABLE_KEY]: section = {}, ...goo } = document as Record<string, unknown>;
  const issues: Issue[] = [];
  const space: SearchSpace = {};
  const at: Record<string, string[]> = {};
  if (typeof section !== 'object' || section === null || Array.isArray(section))
    throw new ValidationError('tunable GoO', [{ path: TUNABLE_KEY, message: 'expected an object of parameters by name' }]);
  for (const [name, raw] of Object.entries(section as Record<string, unknown>)) {
    const path = `${TUNABLE_KEY}.${name}`;
    const spec = raw as Partial<TunableSpec> | null;
    if (name.startsWith(PROMPT_PARAM_PREFIX)) {
      issues.push({ path, message: `names starting with "${PROMPT_PARAM_PREFIX}" are a study's prompt choices (promptSearch)` });
      continue;
    }
    if (!spec || typeof spec !== 'object' || !Array.isArray(spec.at) || spec.at.length === 0) {
      issues.push({ path: `${path}.at`, message: 'expected a non-empty list of JSON Pointers (e.g. "/operations/2/k")' });
      continue;
    }
    const values = spec.at.map((pointer) => readPointer(goo, pointer));
    const missing = spec.at.filter((_, i) => values[i] === undefined);
    if (missing.length) {
      issues.push({ path: `${path}.at`, message: `nothing in the GoO at ${missing.join(', ')}` });
      continue;
    }
    if (new Set(values.map((v) => JSON.stringify(v))).size > 1) {
      issues.push({
        path: `${path}.at`,
        message: `the places differ in value (${values.map((v) => JSON.stringify(v)).join(', ')}); a parameter sets them alike`,
      });
      continue;
    }
    const current = values[0] as ParamValue;
    const description = spec.description ?? `sets ${spec.at.join(', ')}`;
    try {
      if (spec.int && !spec.choice) {
        const [min, max] = spec.int;
        space[name] = intParam(min, max, current as number, description);
      } else if (spec.choice && !spec.int) {
        space[name] = choiceParam(spec.choice, current, description);
      } else {
        issues.push({ path, message: 'give either "int": [min, max] or "choice": [values]' });
        continue;
      }
    } catch (e) {
      issues.push({ path, message: `${(e as Error).message} (the default is the value the GoO holds: ${JSON.stringify(current)})` });
      continue;
    }
    at[name] = [...spec.at];
  }
  if (issues.length) throw new ValidationError('tunable GoO', issues);
  return { goo, space, at };
}

/** The GoO with a configuration applied (a copy; parameters left out keep the file's values). */
export function applyConfig(t: TunableGoO, config: Config = {}): Record<string, unknown> {
  const full = resolveConfig(t.space, config);
  const goo = structuredClone(t.goo);
  for (const [name, pointers] of Object.entries(t.at)) for (const pointer of pointers) writePointer(goo, pointer, full[name]);
  return goo;
}

/** A pointer's reference tokens (`~1` is "/", `~0` is "~"). */
function tokens(pointer: string): string[] {
  if (!pointer.startsWith('/')) throw new ValidationError('tunable GoO', [{ path: pointer, message: 'a JSON Pointer starts with "/"' }]);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function readPointer(document: unknown, pointer: string): unknown {
  let at: unknown = document;
  for (const token of tokens(pointer)) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}

function writePointer(document: unknown, pointer: string, value: unknown): void {
  const path = tokens(pointer);
  let at = document as Record<string, unknown>;
  for (const token of path.slice(0, -1)) at = at[token] as Record<string, unknown>;
  at[path.at(-1)!] = value;
}
