/**
 * Answers in the task's shape (decision 65): the JSON Schema a prompt's answer should follow, written
 * so that OpenAI's strict structured outputs accept it, and the reading of such an answer. Shared by
 * every task; each task says which schema each of its prompts expects.
 */

import { bracketSpans, looseJson, unfence } from './answer-text';

/** A JSON Schema, as sent to an endpoint. */
export type JsonSchema = Record<string, unknown>;

/** The schema of one prompt's answer: a name (letters, digits, `_` and `-`, as OpenAI wants it) and the schema. */
export interface AnswerSchema {
  name: string;
  schema: JsonSchema;
}

export const integerList: JsonSchema = { type: 'array', items: { type: 'integer' } };

/**
 * A list of whole numbers whose length the task knows (decision 85): `exactly` n items (a sorted list,
 * a split's part), or `atMost` n (an intersection). A grammar that enforces it cannot lose or add an
 * item, nor run on past the end (SmolLM2 never closed an unbounded list); an endpoint that refuses
 * the bounds is asked again without them (`LlmClient`).
 */
export function integerListOf(length: { exactly: number } | { atMost: number }): JsonSchema {
  const bounds = 'exactly' in length ? { minItems: length.exactly, maxItems: length.exactly } : { maxItems: length.atMost };
  return { ...integerList, ...bounds };
}

/** Keywords that bound a list's length, which an endpoint may refuse though it takes the rest of a schema. */
export const LENGTH_BOUNDS = ['minItems', 'maxItems'] as const;

/** The schema without its length bounds: what is sent to an endpoint that refused them. */
export function withoutLengthBounds(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((LENGTH_BOUNDS as readonly string[]).includes(key)) continue;
    if (key === 'properties' && value && typeof value === 'object')
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, withoutLengthBounds(v)]));
    else if (key === 'items' && value && typeof value === 'object') out[key] = withoutLengthBounds(value as JsonSchema);
    else out[key] = value;
  }
  return out;
}

/** Whether a schema bounds a list's length anywhere. */
export const hasLengthBounds = (schema: JsonSchema): boolean => JSON.stringify(withoutLengthBounds(schema)) !== JSON.stringify(schema);
export const numberList: JsonSchema = { type: 'array', items: { type: 'number' } };
export const stringField: JsonSchema = { type: 'string' };

/** An object of exactly these properties, all required, nothing else: what strict mode asks of every object. */
export function strictObject(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * An answer schema whose root object has these properties in this order. A chain-of-thought prompt
 * puts its `reasoning` first: a model writes the properties in order, so it thinks before it answers.
 */
export function answerSchema(name: string, properties: Record<string, JsonSchema>): AnswerSchema {
  return { name, schema: strictObject(properties) };
}

/** `{"List 1": [..], ..., "List n": [..]}`: what the split prompts ask for, one key per part (`item` may differ per part). */
export function splitSchema(name: string, parts: number, item: JsonSchema | ((part: number) => JsonSchema), key = 'List'): AnswerSchema {
  const count = Math.max(1, Math.floor(parts));
  const itemOf = typeof item === 'function' ? item : () => item;
  return answerSchema(name, Object.fromEntries(Array.from({ length: count }, (_, i) => [`${key} ${i + 1}`, itemOf(i)])));
}

/**
 * Where a schema breaks the rules of OpenAI's strict mode (root an object; every object lists all of
 * its properties as required and forbids others; keywords strict mode does not take left out);
 * empty when it follows them. Each problem names its path.
 */
export function strictProblems(schema: JsonSchema, path = '$'): string[] {
  const problems: string[] = [];
  if (path === '$' && schema.type !== 'object') problems.push(`${path}: the root must be an object`);
  // minItems and maxItems are taken (OpenAI's strict mode lists them); an endpoint that refuses them is asked without.
  for (const unsupported of ['minLength', 'maxLength', 'pattern', 'format', 'oneOf', 'allOf', 'not'])
    if (unsupported in schema) problems.push(`${path}: strict mode does not take "${unsupported}"`);
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
    const keys = Object.keys(properties);
    if (keys.length === 0) problems.push(`${path}: an object needs properties`);
    for (const key of keys) if (!required.includes(key)) problems.push(`${path}.${key}: every property must be required`);
    for (const key of required) if (!keys.includes(key)) problems.push(`${path}: requires "${key}", which it does not define`);
    for (const key of keys) problems.push(...strictProblems(properties[key]!, `${path}.${key}`));
  } else if (schema.type === 'array') {
    if (!schema.items || typeof schema.items !== 'object') problems.push(`${path}: an array needs items`);
    else problems.push(...strictProblems(schema.items as JsonSchema, `${path}[]`));
  } else if (!['string', 'integer', 'number', 'boolean'].includes(String(schema.type)))
    problems.push(`${path}: unknown type ${JSON.stringify(schema.type)}`);
  return problems;
}

/** A JSON object answer and where it ends in the text (just past its closing brace). */
export interface JsonAnswer {
  value: Record<string, unknown>;
  end: number;
}

/**
 * The answer as a JSON object with all of `keys`, as structured output writes it (also in a fence,
 * or after a few words): the last such object in the text. Undefined when there is none, so the
 * caller reads the answer as free text.
 */
export function jsonAnswer(answer: string, keys: readonly string[]): JsonAnswer | undefined {
  const body = unfence(answer);
  const offset = body === answer ? 0 : answer.indexOf(body);
  for (const { start, end } of bracketSpans(body).reverse()) {
    if (body[start] !== '{') continue;
    const value = looseJson(body.slice(start, end));
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    if (keys.every((k) => Object.hasOwn(value, k))) return { value: value as Record<string, unknown>, end: offset + end };
  }
  return undefined;
}

/** The `output` array of a JSON answer, when every item is a (whole, with `integers`) number. */
export function jsonNumbers(answer: string, key = 'output', integers = true): { value: number[]; end: number } | undefined {
  const json = jsonAnswer(answer, [key]);
  const value = json?.value[key];
  if (!json || !Array.isArray(value)) return undefined;
  const ok = value.every((v) => typeof v === 'number' && (integers ? Number.isInteger(v) : Number.isFinite(v)));
  return ok ? { value: value as number[], end: json.end } : undefined;
}

/** A read's `end` (where its structure closed) as a `ParsedThought` field; nothing when it has none. */
export const endOf = (read: { end?: number }) => (read.end === undefined ? {} : { end: read.end });
