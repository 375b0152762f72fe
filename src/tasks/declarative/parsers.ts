import { z } from 'zod';
import { bracketSpans, type Candidate, labelAt, looseJson, pickAnswer } from '../answer-text';
import { listCandidates } from '../integer-lists';
import type { JsonShape, Parser } from './schema';

/**
 * The built-in parsers of declared tasks: each reads one LLM answer into a value (the thought's
 * `output`) or says why it cannot. They never throw on a model's answer: a bad answer becomes an
 * invalid thought with the reason, which the graph can route around.
 */

export type ParseResult = { ok: true; value: unknown } | { ok: false; error: string };

/** What a parser may know besides the answer: the prompt it replies to, whose lists and JSON are the input, not the answer. */
export interface ParseContext {
  prompt?: string;
}

export interface AnswerParser {
  parse(text: string, context?: ParseContext): ParseResult;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The content of the last complete `<tag>…</tag>` block (models sometimes restate a draft first);
 * an answer that opens the tag and runs on without closing it, or closes it without opening it,
 * is forgiven. Undefined when the tag is nowhere.
 */
export function tagContent(text: string, tag: string): string | undefined {
  const t = escapeRegExp(tag);
  const blocks = [...text.matchAll(new RegExp(`<${t}>([\\s\\S]*?)</${t}>`, 'gi'))];
  if (blocks.length) return blocks.at(-1)![1]!;
  const open = new RegExp(`<${t}>`, 'i').exec(text);
  if (open) return text.slice(open.index + open[0].length);
  const close = new RegExp(`</${t}>`, 'i').exec(text);
  return close ? text.slice(0, close.index) : undefined;
}

/** The part of the answer a parser reads: the tag's content when the parser names a tag. */
function body(text: string, tag: string | undefined): ParseResult {
  if (tag === undefined) return { ok: true, value: text };
  const content = tagContent(text, tag);
  return content === undefined ? { ok: false, error: `no <${tag}>…</${tag}> block in the answer` } : { ok: true, value: content };
}

function textParser(spec: Extract<Parser, { kind: 'text' }>): AnswerParser {
  return {
    parse(text) {
      const b = body(text, spec.tag);
      if (!b.ok) return b;
      const value = (b.value as string).trim();
      if (value.length < spec.minLength)
        return {
          ok: false,
          error:
            value.length === 0
              ? 'the answer is empty'
              : `the answer has ${value.length} characters; at least ${spec.minLength} are expected`,
        };
      if (spec.maxLength !== undefined && value.length > spec.maxLength)
        return { ok: false, error: `the answer has ${value.length} characters; at most ${spec.maxLength} are expected` };
      return { ok: true, value };
    },
  };
}

/** A zod schema for a declared JSON shape: objects are strict unless they allow additional properties. */
export function shapeSchema(shape: JsonShape): z.ZodType {
  switch (shape.type) {
    case 'string': {
      if (shape.enum) return z.enum(shape.enum as [string, ...string[]]);
      let s = z.string();
      if (shape.minLength !== undefined) s = s.min(shape.minLength);
      if (shape.maxLength !== undefined) s = s.max(shape.maxLength);
      return s;
    }
    case 'number':
    case 'integer': {
      let n = shape.type === 'integer' ? z.number().int() : z.number();
      if (shape.minimum !== undefined) n = n.min(shape.minimum);
      if (shape.maximum !== undefined) n = n.max(shape.maximum);
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'array': {
      let a = z.array(shapeSchema(shape.items));
      if (shape.minItems !== undefined) a = a.min(shape.minItems);
      if (shape.maxItems !== undefined) a = a.max(shape.maxItems);
      return a;
    }
    case 'object': {
      const required = new Set(shape.required ?? []);
      const properties = Object.fromEntries(
        Object.entries(shape.properties).map(([k, v]) => [k, required.has(k) ? shapeSchema(v) : shapeSchema(v).optional()]),
      );
      return shape.additionalProperties ? z.looseObject(properties) : z.strictObject(properties);
    }
  }
}

/** The nesting depth of a shape (a scalar is 1). */
export function shapeDepth(shape: JsonShape): number {
  if (shape.type === 'array') return 1 + shapeDepth(shape.items);
  if (shape.type === 'object') return 1 + Math.max(0, ...Object.values(shape.properties).map(shapeDepth));
  return 1;
}

/**
 * JSON candidates in an answer (read leniently, see `looseJson`): the whole text, then every
 * outermost `{…}` or `[…]` in it, labelled by the words before it; the same JSON in the prompt
 * (an example) marks a candidate as an echo.
 */
function jsonCandidates(text: string, prompt: string | undefined): Candidate<unknown>[] {
  const out: Candidate<unknown>[] = [];
  for (const { start, end } of bracketSpans(text)) {
    const value = looseJson(text.slice(start, end));
    if (value === undefined) continue;
    const echo = prompt?.includes(text.slice(start, end)) === true;
    out.push({ value, start, end, label: labelAt(text, start, out.at(-1)), echo });
  }
  return out;
}

const pathOf = (path: readonly PropertyKey[]) =>
  path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), 'answer');

/** The property a structured answer carries a value that is not an object in (`answer-schemas.ts`). */
export const ANSWER_PROPERTY = 'answer';

/** A structured answer `{"answer": …}` to a shape that is not an object is its value. */
function unwrapped(value: unknown, shape: JsonShape): unknown {
  if (shape.type === 'object' || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === ANSWER_PROPERTY ? (value as Record<string, unknown>)[ANSWER_PROPERTY] : value;
}

function jsonParser(spec: Extract<Parser, { kind: 'json' }>): AnswerParser {
  const schema = shapeSchema(spec.schema);
  const checkedJson = (value: unknown): ParseResult => {
    const checked = schema.safeParse(value);
    if (!checked.success) {
      const issues = checked.error.issues.slice(0, 5).map((i) => `${pathOf(i.path)}: ${i.message}`);
      return { ok: false, error: `the JSON does not match the declared schema: ${issues.join('; ')}` };
    }
    return { ok: true, value: checked.data };
  };
  return {
    parse(text, context) {
      const b = body(text, spec.tag);
      if (!b.ok) return b;
      const answer = (b.value as string).trim();
      const whole = looseJson(answer);
      if (whole !== undefined) return checkedJson(unwrapped(whole, spec.schema));
      const candidates = jsonCandidates(answer, context?.prompt);
      if (!candidates.length) {
        let reason = '';
        try {
          JSON.parse(answer);
        } catch (e) {
          reason = ` (${(e as Error).message})`;
        }
        return { ok: false, error: `the answer holds no readable JSON${reason}; expected JSON matching the declared schema` };
      }
      // The answer is the best candidate that fits the schema; failing that, the best one says why it does not.
      const fitting = candidates.filter((c) => schema.safeParse(c.value).success);
      return checkedJson((pickAnswer(fitting) ?? pickAnswer(candidates) ?? candidates.at(-1)!).value);
    },
  };
}

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

function numbersOf(items: string): number[] | undefined {
  const parts = items.split(',').map((s) => s.trim());
  if (parts.length === 1 && parts[0] === '') return [];
  return parts.every((p) => NUMBER.test(p)) ? parts.map(Number) : undefined;
}

/** The last bracketed list whose items are all numbers; failing that, a body that is only a comma-separated list of numbers. */
export function lastNumberList(text: string): number[] | undefined {
  const lists = [...text.matchAll(/\[([^[\]]*)\]/g)].map((m) => numbersOf(m[1]!)).filter((l): l is number[] => l !== undefined);
  if (lists.length) return lists.at(-1);
  const bare = text.trim();
  return bare && /^[-+\d.eE,\s]+$/.test(bare) ? numbersOf(bare) : undefined;
}

function numberListParser(spec: Extract<Parser, { kind: 'numberList' }>): AnswerParser {
  return {
    parse(text, context) {
      const b = body(text, spec.tag);
      if (!b.ok) return b;
      const answer = b.value as string;
      // The prompt's own lists are the input: an answer that copies them back comes last (see `pickAnswer`).
      const echoes = context?.prompt === undefined ? [] : listCandidates(context.prompt, [], false).map((c) => c.value);
      const candidates = listCandidates(answer, echoes, false);
      const best = pickAnswer(candidates);
      const list = best ? best.value : candidates.length ? undefined : lastNumberList(answer);
      if (list === undefined)
        return {
          ok: false,
          error: candidates.length
            ? 'the answer only restates the input lists; expected a list of numbers such as [1, 2, 3]'
            : 'no list of numbers in the answer; expected a list such as [1, 2, 3]',
        };
      if (list.some((x) => !Number.isFinite(x))) return { ok: false, error: 'the list holds a number out of range' };
      if (spec.integers && !list.every(Number.isInteger))
        return { ok: false, error: `expected whole numbers, got ${JSON.stringify(list.find((x) => !Number.isInteger(x)))}` };
      if (spec.minItems !== undefined && list.length < spec.minItems)
        return { ok: false, error: `the list has ${list.length} numbers; at least ${spec.minItems} are expected` };
      if (spec.maxItems !== undefined && list.length > spec.maxItems)
        return { ok: false, error: `the list has ${list.length} numbers; at most ${spec.maxItems} are expected` };
      return { ok: true, value: list };
    },
  };
}

export function compileParser(spec: Parser): AnswerParser {
  switch (spec.kind) {
    case 'text':
      return textParser(spec);
    case 'json':
      return jsonParser(spec);
    case 'numberList':
      return numberListParser(spec);
  }
}
