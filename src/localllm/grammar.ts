/**
 * Structured output enforced while generating: a request's `response_format` becomes a llama.cpp
 * grammar that masks every token the format does not allow, so the answer is JSON of the asked shape
 * by construction, not by luck. `json_object` uses node-llama-cpp's JSON grammar; a `json_schema` is
 * turned into one by `llama.createGrammarForJsonSchema`.
 *
 * node-llama-cpp reads a subset of JSON Schema and silently drops the rest (an unknown keyword is
 * ignored, `anyOf` or a type-less node becomes `null`), which would let answers break the schema.
 * So every schema is checked first: what the grammar cannot enforce is refused with a 400 naming the
 * place and the reason, and the engine's client falls back to text for that model.
 */
import type { GbnfJsonSchema, Llama, LlamaGrammar } from 'node-llama-cpp';
import { OpenAiError, type ResponseFormat } from './request';

/** Words that describe a schema without constraining it. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  '$schema',
  '$id',
  '$comment',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const isAnnotation = (key: string) => ANNOTATIONS.has(key) || key.startsWith('x-');

/** The keywords node-llama-cpp enforces beside each `type`. */
const KEYWORDS_BY_TYPE: Record<string, ReadonlySet<string>> = {
  string: new Set(['minLength', 'maxLength', 'format']),
  number: new Set(),
  integer: new Set(),
  boolean: new Set(),
  null: new Set(),
  object: new Set(['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', '$defs']),
  array: new Set(['items', 'prefixItems', 'minItems', 'maxItems', '$defs']),
};
const KNOWN = new Set([
  'type',
  '$ref',
  '$defs',
  'oneOf',
  'anyOf',
  'const',
  'enum',
  ...Object.values(KEYWORDS_BY_TYPE).flatMap((k) => [...k]),
]);
const STRING_FORMATS = new Set(['date-time', 'time', 'date']);
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const DEFS_REF = /^#\/\$defs\/(.+)$/;

/** Why a schema cannot become a grammar, and where. */
class SchemaRefused extends Error {
  override readonly name = 'SchemaRefused';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isLiteral = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

/**
 * The schema in the form node-llama-cpp reads, or a {@link SchemaRefused} for the first part of it
 * the grammar could not enforce. `anyOf` is read as `oneOf`: generating one alternative satisfies both.
 */
export function toGrammarSchema(schema: Json, path = 'schema'): GbnfJsonSchema {
  return convert(schema, path, new Set()) as GbnfJsonSchema;
}

function convert(node: unknown, path: string, defsInScope: ReadonlySet<string>): Json {
  if (!isObject(node)) throw new SchemaRefused(path, 'a schema must be an object here');
  const keys = Object.keys(node).filter((k) => !isAnnotation(k));
  const defs = node.$defs;
  if (defs !== undefined && !isObject(defs)) throw new SchemaRefused(`${path}.$defs`, '$defs must be an object of schemas');
  if ('definitions' in node) throw new SchemaRefused(`${path}.definitions`, 'node-llama-cpp reads definitions only from "$defs"');
  const unknown = keys.find((k) => !KNOWN.has(k));
  if (unknown) throw new SchemaRefused(path, `node-llama-cpp's grammar cannot enforce "${unknown}"`);
  const scope = defs ? new Set([...defsInScope, ...Object.keys(defs)]) : defsInScope;
  const out: Json = {};
  if (defs) out.$defs = Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, convert(v, `${path}.$defs.${k}`, scope)]));
  const only = (allowed: readonly string[], what: string, remedy = 'leave it out') => {
    const extra = keys.find((k) => !allowed.includes(k));
    if (extra) throw new SchemaRefused(path, `node-llama-cpp's grammar ignores "${extra}" beside ${what}; ${remedy}`);
  };

  if ('$ref' in node) {
    only(['$ref', '$defs'], '"$ref"');
    const name = typeof node.$ref === 'string' ? DEFS_REF.exec(node.$ref)?.[1] : undefined;
    if (name === undefined) throw new SchemaRefused(`${path}.$ref`, 'only references of the form "#/$defs/<name>" are supported');
    if (!scope.has(name)) throw new SchemaRefused(`${path}.$ref`, `"${name}" is not defined in an enclosing "$defs"`);
    return { ...out, $ref: node.$ref };
  }
  for (const union of ['oneOf', 'anyOf'] as const) {
    if (!(union in node)) continue;
    only([union, '$defs'], `"${union}"`, 'move it into each alternative');
    const alternatives = node[union];
    if (!Array.isArray(alternatives) || alternatives.length === 0)
      throw new SchemaRefused(`${path}.${union}`, 'must be a non-empty list of schemas');
    return { ...out, oneOf: alternatives.map((a, i) => convert(a, `${path}.${union}[${i}]`, scope)) };
  }
  if ('const' in node) {
    only(['const', 'type'], '"const"');
    if (!isLiteral(node.const)) throw new SchemaRefused(`${path}.const`, 'only a string, number, boolean or null constant is supported');
    return { ...out, const: node.const };
  }
  if ('enum' in node) {
    only(['enum', 'type'], '"enum"');
    if (!Array.isArray(node.enum) || node.enum.length === 0 || !node.enum.every(isLiteral))
      throw new SchemaRefused(`${path}.enum`, 'only a non-empty list of strings, numbers, booleans and null is supported');
    return { ...out, enum: node.enum };
  }

  const type = node.type;
  if (Array.isArray(type)) {
    only(['type'], 'a list of types');
    if (type.length === 0 || !type.every((t) => SCALAR_TYPES.has(t as string)))
      throw new SchemaRefused(
        `${path}.type`,
        'a list of types may name only string, number, integer, boolean and null; write objects and arrays as anyOf',
      );
    return { ...out, type };
  }
  if (typeof type !== 'string' || !(type in KEYWORDS_BY_TYPE)) {
    throw new SchemaRefused(
      path,
      type === undefined
        ? 'a schema needs a "type" (or const, enum, anyOf, oneOf, $ref): node-llama-cpp cannot generate "any value"'
        : `unknown type ${JSON.stringify(type)}`,
    );
  }
  const allowed = KEYWORDS_BY_TYPE[type]!;
  const unenforced = keys.find((k) => k !== 'type' && !allowed.has(k));
  if (unenforced)
    throw new SchemaRefused(
      path,
      `node-llama-cpp's grammar cannot enforce "${unenforced}" on ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`,
    );
  for (const k of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'])
    if (k in node && !isCount(node[k])) throw new SchemaRefused(`${path}.${k}`, 'must be a whole number, 0 or more');

  if (type === 'string') {
    if (node.format === undefined) return { ...out, type, ...pick(node, ['minLength', 'maxLength']) };
    if (typeof node.format !== 'string' || !STRING_FORMATS.has(node.format))
      throw new SchemaRefused(`${path}.format`, `only the formats ${[...STRING_FORMATS].join(', ')} are supported`);
    if ('minLength' in node || 'maxLength' in node) throw new SchemaRefused(path, 'a "format" with a length limit is not supported');
    return { ...out, type, format: node.format };
  }
  if (type === 'object') {
    const properties = node.properties ?? {};
    if (!isObject(properties)) throw new SchemaRefused(`${path}.properties`, 'must be an object of schemas');
    const additional = node.additionalProperties;
    // The grammar writes every listed property; a required one it does not list could only come from additionalProperties.
    const required = node.required ?? [];
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string'))
      throw new SchemaRefused(`${path}.required`, 'must be a list of names');
    const undefinedRequired = required.find((r) => !(r in properties));
    if (undefinedRequired !== undefined)
      throw new SchemaRefused(`${path}.required`, `requires "${undefinedRequired}", which "properties" does not define`);
    return {
      ...out,
      type,
      properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, convert(v, `${path}.properties.${k}`, scope)])),
      ...(additional !== undefined && {
        additionalProperties: typeof additional === 'boolean' ? additional : convert(additional, `${path}.additionalProperties`, scope),
      }),
      ...pick(node, ['minProperties', 'maxProperties']),
    };
  }
  if (type === 'array') {
    const prefixItems = node.prefixItems;
    if (prefixItems !== undefined && !Array.isArray(prefixItems))
      throw new SchemaRefused(`${path}.prefixItems`, 'must be a list of schemas');
    return {
      ...out,
      type,
      ...(node.items !== undefined && { items: convert(node.items, `${path}.items`, scope) }),
      ...(prefixItems && { prefixItems: prefixItems.map((p, i) => convert(p, `${path}.prefixItems[${i}]`, scope)) }),
      ...pick(node, ['minItems', 'maxItems']),
    };
  }
  return { ...out, type };
}

function pick(node: Json, keys: readonly string[]): Json {
  return Object.fromEntries(keys.filter((k) => node[k] !== undefined).map((k) => [k, node[k]]));
}

/** The grammar of each response format, made once per distinct schema (by its JSON text) and kept. */
export class Grammars {
  private readonly made = new Map<string, Promise<LlamaGrammar>>();

  constructor(
    private readonly llama: Llama,
    /** Distinct schemas kept; the least recently used goes first. */
    private readonly limit = 64,
  ) {}

  /** The grammar to generate under, or undefined for free text; a schema it cannot enforce is a 400 on `response_format`. */
  async for(format: ResponseFormat): Promise<LlamaGrammar | undefined> {
    if (format.type === 'text') return undefined;
    const key = format.type === 'json_object' ? 'json_object' : JSON.stringify(format.schema);
    let grammar = this.made.get(key);
    if (grammar)
      this.made.delete(key); // re-inserted below: most recently used last
    else grammar = this.make(format);
    this.made.set(key, grammar);
    if (this.made.size > this.limit) this.made.delete(this.made.keys().next().value!);
    return grammar;
  }

  private async make(format: Exclude<ResponseFormat, { type: 'text' }>): Promise<LlamaGrammar> {
    if (format.type === 'json_object') return this.llama.getGrammarFor('json');
    let schema: GbnfJsonSchema;
    try {
      schema = toGrammarSchema(format.schema, 'response_format.json_schema.schema');
    } catch (error) {
      if (error instanceof SchemaRefused)
        throw new OpenAiError(
          400,
          `Invalid schema for response_format '${format.name}': ${error.message}.`,
          'response_format',
          'invalid_json_schema',
        );
      throw error;
    }
    try {
      return await this.llama.createGrammarForJsonSchema<GbnfJsonSchema>(schema);
    } catch (error) {
      throw new OpenAiError(
        400,
        `Invalid schema for response_format '${format.name}': node-llama-cpp could not make a grammar of it (${error instanceof Error ? error.message : String(error)}).`,
        'response_format',
        'invalid_json_schema',
      );
    }
  }
}
