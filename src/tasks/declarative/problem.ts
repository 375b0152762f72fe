import { z } from 'zod';

/**
 * The problem of a declared task: a flat object of declared fields, each a text, a number, or a
 * list of either. This turns the declared shape into the zod schema a run's problem is checked by.
 */

export const FIELD_TYPES = ['string', 'string[]', 'number', 'number[]'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Per text, unless the declaration says otherwise: problems travel in every activity input. */
export const DEFAULT_MAX_LENGTH = 100_000;
/** Per list, unless the declaration says otherwise. */
export const DEFAULT_MAX_ITEMS = 10_000;

export interface FieldSpec {
  type: FieldType;
  description?: string | undefined;
  optional: boolean;
  minLength?: number | undefined;
  maxLength?: number | undefined;
  minItems?: number | undefined;
  maxItems?: number | undefined;
  integer?: boolean | undefined;
  min?: number | undefined;
  max?: number | undefined;
}

function text(f: FieldSpec) {
  const max = f.maxLength ?? DEFAULT_MAX_LENGTH;
  let s = z.string().max(max, `at most ${max} characters are allowed`);
  if (f.minLength !== undefined && f.minLength > 0)
    s = s.min(f.minLength, f.minLength === 1 ? 'must not be empty' : `at least ${f.minLength} characters are needed`);
  return s;
}

function number(f: FieldSpec) {
  let n = f.integer ? z.number().int('expected a whole number') : z.number();
  if (f.min !== undefined) n = n.min(f.min, `must be at least ${f.min}`);
  if (f.max !== undefined) n = n.max(f.max, `must be at most ${f.max}`);
  return n;
}

function list<T extends z.ZodType>(item: T, f: FieldSpec) {
  const max = f.maxItems ?? DEFAULT_MAX_ITEMS;
  let a = z.array(item).max(max, `at most ${max} items are allowed`);
  if (f.minItems !== undefined && f.minItems > 0)
    a = a.min(f.minItems, `at least ${f.minItems} item${f.minItems === 1 ? ' is' : 's are'} needed`);
  return a;
}

export function fieldSchema(f: FieldSpec): z.ZodType {
  const schema = (() => {
    switch (f.type) {
      case 'string':
        return text(f);
      case 'string[]':
        return list(text(f), f);
      case 'number':
        return number(f);
      case 'number[]':
        return list(number(f), f);
    }
  })();
  return f.optional ? schema.optional() : schema;
}

export function problemSchema(fields: Record<string, FieldSpec>): z.ZodType<Record<string, unknown>> {
  return z.strictObject(Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, fieldSchema(f)]))) as z.ZodType<
    Record<string, unknown>
  >;
}
