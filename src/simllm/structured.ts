/**
 * The simulator's structured output: when a request asks for a JSON Schema (`response_format`), its
 * usual answer is rewritten into that schema's object, so the engine's JSON reading runs end to end
 * on the simulator (decision 65). The answer's content (and its seeded mistakes) stays the same; an
 * answer that cannot be put into the schema (a malformed one) is sent as the text it was, as an
 * endpoint that ignores the field would.
 */

import { looseJson } from '../tasks/answer-text';
import { findIntegerLists } from '../tasks/integer-lists';

type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[] };

/** The JSON Schema a request asks for, if it asks for one. */
export function requestedSchema(body: { response_format?: unknown }): Schema | undefined {
  const format = body.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  return format?.type === 'json_schema' && format.json_schema?.schema && typeof format.json_schema.schema === 'object'
    ? (format.json_schema.schema as Schema)
    : undefined;
}

/** The last `{...}` of the text without nesting that parses, as an object. */
function lastObject(text: string): Record<string, unknown> | undefined {
  for (const m of [...text.matchAll(/\{[^{}]*\}/g)].reverse()) {
    const value = looseJson(m[0]);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  return undefined;
}

const STEP = /(-?\d+(?:\.\d+)?)\s*([-+*/])\s*(-?\d+(?:\.\d+)?)\s*=\s*(-?\d+(?:\.\d+)?)\s*\(\s*left:\s*([^)]*)\)/;
const mark = (text: string, tag: string) => {
  const m = new RegExp(`<${tag}>\\s*([0-9.]+)\\s*</${tag}>`, 'i').exec(text);
  return m ? Number(m[1]) : undefined;
};

/** One property's value read from the text answer; undefined when the answer does not have it. */
function propertyValue(key: string, schema: Schema, text: string): unknown {
  if (schema.type === 'string' && Array.isArray(schema.enum))
    return [...text.toLowerCase().matchAll(/\b\w+\b/g)]
      .map((m) => m[0])
      .filter((w) => schema.enum!.includes(w))
      .at(-1);
  if (schema.type === 'string') {
    if (key === 'reasoning' || key === 'notes') return text.trim();
    if (key === 'expression') return /answer:\s*(.+)/i.exec(text)?.[1]?.split('=')[0]?.trim();
    const merged = /<Merged>([\s\S]*?)(?:<\/Merged>|$)/i.exec(text);
    return (merged ? merged[1]! : text).trim() || undefined;
  }
  if (schema.type === 'number' || schema.type === 'integer') return mark(text, key === 'retained' ? 'Retained' : 'Redundancy');
  if (schema.type !== 'array') return undefined;
  const item = schema.items ?? {};
  if (item.type === 'integer' || item.type === 'number') return findIntegerLists(text).at(-1);
  if (item.properties && 'country' in item.properties) {
    const counts = lastObject(text);
    return counts && Object.entries(counts).map(([country, count]) => ({ country, count }));
  }
  if (item.properties && 'op' in item.properties) {
    const steps = text.split('\n').flatMap((line) => {
      const m = STEP.exec(line);
      if (!m) return [];
      const left = m[5]!
        .trim()
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number);
      return [{ a: Number(m[1]), op: m[2], b: Number(m[3]), result: Number(m[4]), left }];
    });
    return steps.length ? steps : undefined;
  }
  return undefined;
}

/**
 * The answer as the schema's JSON: a JSON object the answer already holds with exactly the schema's
 * keys (a split), else each property read from the text. Undefined when a property has no value.
 */
export function inSchema(text: string, schema: Schema): string | undefined {
  const keys = Object.keys(schema.properties ?? {});
  const whole = lastObject(text.replace(/\n/g, ' '));
  if (whole && keys.length && keys.every((k) => k in whole)) return JSON.stringify(Object.fromEntries(keys.map((k) => [k, whole[k]])));
  const entries = keys.map((k) => [k, propertyValue(k, schema.properties![k]!, text)] as const);
  return entries.every(([, v]) => v !== undefined) ? JSON.stringify(Object.fromEntries(entries)) : undefined;
}
