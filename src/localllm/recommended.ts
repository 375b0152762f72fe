import type { BuiltInModel, SchemeRecommendation } from './models';

/** The parameters a built-in model is recommended for one task and scheme, and why each. */
export interface Recommended {
  params: Record<string, string>;
  why: string[];
}

/**
 * What `got run` adds to a run's scheme parameters on a built-in model (decision 89): the model's
 * recommendations for the task and scheme, less any parameter the user gave, which always wins.
 */
export function recommendedParams(
  model: Pick<BuiltInModel, 'recommended'>,
  task: string,
  scheme: string,
  given: Readonly<Record<string, unknown>> = {},
): Recommended {
  const out: Recommended = { params: {}, why: [] };
  for (const r of model.recommended ?? []) {
    if (r.task !== task || (r.schemes && !r.schemes.includes(scheme))) continue;
    const unset = Object.entries(r.params).filter(([name]) => !Object.hasOwn(given, name));
    if (!unset.length) continue;
    Object.assign(out.params, Object.fromEntries(unset));
    out.why.push(`${unset.map(([name, value]) => `--param ${name}=${value}`).join(' ')}: ${r.why}`);
  }
  return out;
}

/** The scheme `got run` uses for a task on a built-in model when the user names none (decision 91), if the model has one. */
export const recommendedScheme = (model: Pick<BuiltInModel, 'recommendedSchemes'>, task: string): SchemeRecommendation | undefined =>
  model.recommendedSchemes?.find((r) => r.task === task);
