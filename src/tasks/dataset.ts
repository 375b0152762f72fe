import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { type Issue, ValidationError } from '../goo/validate';

/** Rows of a CSV with a header line, as records keyed by column name. */
export function readCsv(text: string): Record<string, string>[] {
  return parse(text, { columns: true, skip_empty_lines: true, trim: true, relax_column_count: false }) as Record<string, string>[];
}

/** A cell holding a bracketed list of integers, as the reference datasets write them: `[1, 2, 3]`. */
export const integerListCell = z.string().transform((s, ctx) => {
  try {
    const value: unknown = JSON.parse(s);
    if (Array.isArray(value) && value.every(Number.isInteger)) return value as number[];
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: `expected a list of integers like "[1, 2, 3]", got "${s.slice(0, 40)}"` });
  return z.NEVER;
});

/** Parses every row with a schema; all bad rows are reported at once, by row number (1 = first data row) and column. */
export function parseRows<T>(rows: Record<string, string>[], schema: z.ZodType<T>, subject: string): T[] {
  const issues: Issue[] = [];
  const out: T[] = [];
  rows.forEach((row, i) => {
    const r = schema.safeParse(row);
    if (r.success) out.push(r.data);
    else
      for (const issue of r.error.issues)
        issues.push({ path: `row ${i + 1}${issue.path.length ? ` column ${issue.path.join('.')}` : ''}`, message: issue.message });
  });
  if (issues.length) throw new ValidationError(subject, issues);
  return out;
}
