import { type Issue, ValidationError } from '../goo/graph';

/**
 * What a scheme lets a study tune: named parameters, each a range of whole numbers or a list of
 * choices, with the paper's value as the default. A configuration is a plain object of such values;
 * a scheme given an empty configuration builds the paper's GoO. Pure and free of zod, so the study
 * workflow can use it.
 */

/** Where a study's prompt choices live among its parameters (src/prompts/search.ts): scheme parameters are never named so. */
export const PROMPT_PARAM_PREFIX = 'prompt.';

/** A value a tunable parameter takes. */
export type ParamValue = number | string | boolean;

/** A whole number from `min` to `max` (both included). */
export interface IntParam {
  kind: 'int';
  min: number;
  max: number;
  default: number;
  description: string;
}

/** One of a few values. */
export interface ChoiceParam {
  kind: 'choice';
  values: ParamValue[];
  default: ParamValue;
  description: string;
}

/** One tunable parameter. */
export type ParamSpec = IntParam | ChoiceParam;

/** A scheme's tunable parameters by name (empty: nothing to tune). */
export type SearchSpace = Record<string, ParamSpec>;

/** A configuration: a value per parameter; parameters left out take their default. */
export type Config = Record<string, ParamValue>;

/** An integer parameter (the default must lie in the range). */
export function intParam(min: number, max: number, fallback: number, description: string): IntParam {
  if (!(Number.isInteger(min) && Number.isInteger(max) && min <= fallback && fallback <= max && Number.isInteger(fallback)))
    throw new RangeError(`an int parameter needs whole numbers min <= default <= max, got ${min} <= ${fallback} <= ${max}`);
  return { kind: 'int', min, max, default: fallback, description };
}

/** A parameter with a few possible values (the default must be one of them). */
export function choiceParam(values: ParamValue[], fallback: ParamValue, description: string): ChoiceParam {
  if (!values.includes(fallback)) throw new RangeError(`a choice parameter's default must be one of its values, got ${String(fallback)}`);
  return { kind: 'choice', values: [...values], default: fallback, description };
}

/** The paper's configuration: every parameter at its default. */
export function defaultsOf(space: SearchSpace): Config {
  return Object.fromEntries(Object.entries(space).map(([name, p]) => [name, p.default]));
}

/** What is wrong with a configuration for a space: unknown names, values out of range or not among the choices. */
export function configIssues(space: SearchSpace, config: Config, prefix = 'params'): Issue[] {
  const issues: Issue[] = [];
  for (const [name, value] of Object.entries(config)) {
    const spec = Object.hasOwn(space, name) ? space[name] : undefined;
    const path = `${prefix}.${name}`;
    if (!spec) {
      const known = Object.keys(space);
      issues.push({ path, message: `no tunable parameter "${name}"; this scheme has ${known.length ? known.join(', ') : 'none'}` });
    } else if (spec.kind === 'int') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < spec.min || value > spec.max)
        issues.push({ path, message: `expected a whole number from ${spec.min} to ${spec.max}, got ${JSON.stringify(value)}` });
    } else if (!spec.values.includes(value)) {
      issues.push({
        path,
        message: `expected one of ${spec.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(value)}`,
      });
    }
  }
  return issues;
}

/** The full configuration: the given values over the defaults; throws a ValidationError naming each bad parameter. */
export function resolveConfig(space: SearchSpace, config: Config = {}): Config {
  const issues = configIssues(space, config);
  if (issues.length) throw new ValidationError('configuration', issues);
  return { ...defaultsOf(space), ...config };
}

/** A configuration's values as one stable string (parameters in the space's order): equal configurations, equal keys. */
export function configKey(space: SearchSpace, config: Config): string {
  const full = { ...defaultsOf(space), ...config };
  return JSON.stringify(Object.keys(space).map((name) => full[name]));
}

/** Every value a parameter can take, in order. */
export function valuesOf(spec: ParamSpec): ParamValue[] {
  return spec.kind === 'choice' ? [...spec.values] : Array.from({ length: spec.max - spec.min + 1 }, (_, i) => spec.min + i);
}
