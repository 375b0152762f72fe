import { type AnswerSchema, answerSchema, type JsonSchema, strictObject } from '../answer-schema';
import { ANSWER_PROPERTY } from './parsers';
import type { JsonShape, Parser } from './schema';

/**
 * The answer schema of a declared prompt (decision 65 for tasks declared as data): derived from the
 * parser that reads its answers, so the declaration says the shape once. Only where the parser reads
 * such an answer as it reads the free text: a `json` parser's object (as declared) or array (as the
 * `answer` property), a `numberList` parser's list (as the `answer` property). None for a `text`
 * parser, for a parser that reads a <tag> block (a JSON answer has no tags), and for shapes OpenAI's
 * strict mode cannot say (optional properties, open objects). Bounds (lengths, items, minimum) are
 * left to the parser, which still checks them: strict mode and the local grammar take none of them.
 */
export function declaredAnswerSchema(taskId: string, prompt: string, parser: Parser): AnswerSchema | undefined {
  if (parser.tag !== undefined) return undefined;
  const name = schemaName(taskId, prompt);
  if (parser.kind === 'numberList')
    return answerSchema(name, { [ANSWER_PROPERTY]: { type: 'array', items: { type: parser.integers ? 'integer' : 'number' } } });
  if (parser.kind !== 'json') return undefined;
  const schema = strictShape(parser.schema);
  if (!schema) return undefined;
  if (parser.schema.type === 'object') return { name, schema };
  return parser.schema.type === 'array' ? answerSchema(name, { [ANSWER_PROPERTY]: schema }) : undefined;
}

/** The shape in strict mode's terms, or undefined where it cannot say it. */
function strictShape(shape: JsonShape): JsonSchema | undefined {
  switch (shape.type) {
    case 'string':
      return shape.enum ? { type: 'string', enum: shape.enum } : { type: 'string' };
    case 'number':
    case 'integer':
    case 'boolean':
      return { type: shape.type };
    case 'array': {
      const items = strictShape(shape.items);
      return items && { type: 'array', items };
    }
    case 'object': {
      const keys = Object.keys(shape.properties);
      const required = new Set(shape.required ?? []);
      if (shape.additionalProperties || keys.length === 0 || keys.some((k) => !required.has(k))) return undefined;
      const properties: Record<string, JsonSchema> = {};
      for (const key of keys) {
        const property = strictShape(shape.properties[key]!);
        if (!property) return undefined;
        properties[key] = property;
      }
      return strictObject(properties);
    }
  }
}

/** `<task>_<prompt>` in the letters OpenAI takes for a schema's name (at most 64). */
function schemaName(taskId: string, prompt: string): string {
  return `${taskId}_${prompt}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
