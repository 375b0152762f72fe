import type { z } from 'zod';
import { analyzeGoO, DEFAULT_LIMITS, formatPath, ValidationError, type AnalyzedGoO, type Issue, type Limits } from './graph';
import { GoO, type GoOInput } from './schema';

export { analyzeGoO, formatPath, ValidationError, type AnalyzedGoO, type Issue, type Limits } from './graph';

export function zodIssues(error: z.ZodError, prefix = ''): Issue[] {
  return error.issues.map((issue) => ({
    path: formatPath([...(prefix ? [prefix] : []), ...issue.path]),
    message: issue.message,
  }));
}

/** Parses with a zod schema and throws a ValidationError naming each offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, subject: string, prefix = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(subject, zodIssues(result.error, prefix));
  return result.data;
}

/** Parses a GoO against the schema, then checks its structure (see `analyzeGoO`). */
export function validateGoO(input: GoOInput | unknown, limits: Limits = DEFAULT_LIMITS, prefix = 'goo'): AnalyzedGoO {
  return analyzeGoO(parseOrThrow(GoO, input, 'GoO', prefix), limits, prefix);
}
