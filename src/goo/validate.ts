import type { z } from 'zod';
import { type AnalyzedGoO, analyzeGoO, DEFAULT_LIMITS, formatPath, type Issue, type Limits, ValidationError } from './graph';
import { GoO, type GoOInput } from './schema';

export { type AnalyzedGoO, analyzeGoO, formatPath, type Issue, type Limits, ValidationError } from './graph';

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
