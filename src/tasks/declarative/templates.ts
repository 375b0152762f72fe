import type { ThoughtState } from '../../grs/types';

/**
 * Prompt templates of declared tasks: plain text with `{{ placeholder }}`s, and nothing else. A
 * placeholder names a value and may pass it through a fixed set of filters:
 *
 *   {{ documents | tagged:Doc }}    {{ thought }}    {{ thoughts | numbered }}    {{ params.style }}
 *
 * Values:
 *   thought            the input thought's answer (its parsed `output`; the raw text of an answer that
 *                      could not be read; empty at the problem's root)
 *   thought.<f>        a field of the input thought's state (e.g. `thought.output.title`)
 *   thoughts           the answers of all input thoughts, a list (an aggregate sees several)
 *   thoughts.<f>       that field of every input thought, a list
 *   <f>, problem.<f>   a field of the problem, as declared (`{{documents}}` = `{{problem.documents}}`)
 *   params.<p>         a parameter the GoO operation gives (`params` of generate/aggregate/improve)
 *   scale.min/max      the rating scale (LLM judge templates only)
 *
 * Filters (applied left to right):
 *   json               the value as compact JSON
 *   tagged:Tag         a list as `<Tag1>\nitem\n</Tag1>` blocks separated by a blank line; one value as `<Tag>\n…\n</Tag>`
 *   numbered           a list as `1. item` lines
 *   lines              a list, one item per line
 *   join:"sep"         a list joined by sep (a bare word or a JSON string literal, e.g. join:", ")
 *   count              the number of items of a list
 *
 * Rendering: text as is; numbers and booleans as written; a list of texts separated by a blank line;
 * a list of numbers as `[1, 2, 3]`; anything else as JSON; a missing value as empty text (a `params`
 * value a prompt uses is required: runs whose operations lack it are refused before they start).
 * There is no escape, no condition, no loop and no code: `{{` always opens a placeholder, and a
 * template that does not parse, or names a value or filter that does not exist, is refused when
 * the declaration is checked.
 */

export const FILTERS = ['json', 'tagged', 'numbered', 'lines', 'join', 'count'] as const;
export type FilterName = (typeof FILTERS)[number];
export const TEMPLATE_ROOTS = ['thought', 'thoughts', 'problem', 'params', 'scale'] as const;
export type Root = (typeof TEMPLATE_ROOTS)[number];

export interface Filter {
  name: FilterName;
  arg?: string;
}

export interface Placeholder {
  /** The placeholder as written, for messages. */
  source: string;
  /** `problem` for a bare problem field (its name is then the first path segment). */
  root: Root;
  path: string[];
  filters: Filter[];
}

export type Segment = string | Placeholder;

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

const SEGMENT = /^[A-Za-z0-9_]+$/;
const TAG = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const BARE_ARG = /^[^\s"|{}]+$/;

/** Splits a template into text and placeholders; throws a TemplateError naming the first syntax mistake. */
export function parseTemplate(text: string): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{{', at);
    if (open === -1) {
      segments.push(text.slice(at));
      break;
    }
    if (open > at) segments.push(text.slice(at, open));
    const close = text.indexOf('}}', open + 2);
    if (close === -1) throw new TemplateError(`"{{" at character ${open + 1} is never closed by "}}"`);
    segments.push(parsePlaceholder(text.slice(open, close + 2), text.slice(open + 2, close)));
    at = close + 2;
  }
  return segments;
}

function parsePlaceholder(source: string, body: string): Placeholder {
  const [expression = '', ...filterParts] = body.split('|');
  const path = expression.trim().split('.');
  if (path.length === 0 || path.some((s) => !SEGMENT.test(s))) {
    throw new TemplateError(`${source}: expected a value name such as {{thought}}, {{documents}} or {{params.style}}`);
  }
  const [first, ...rest] = path as [string, ...string[]];
  const isRoot = (TEMPLATE_ROOTS as readonly string[]).includes(first);
  const filters = filterParts.map((part) => parseFilter(source, part.trim()));
  return isRoot ? { source, root: first as Root, path: rest, filters } : { source, root: 'problem', path, filters };
}

function parseFilter(source: string, text: string): Filter {
  const colon = text.indexOf(':');
  const name = (colon === -1 ? text : text.slice(0, colon)).trim();
  if (!(FILTERS as readonly string[]).includes(name)) {
    throw new TemplateError(`${source}: unknown filter "${name}"; expected one of: ${FILTERS.join(', ')}`);
  }
  const filter = name as FilterName;
  const needsArg = filter === 'tagged' || filter === 'join';
  if (colon === -1) {
    if (needsArg)
      throw new TemplateError(
        `${source}: the ${filter} filter needs an argument, e.g. ${filter === 'tagged' ? 'tagged:Doc' : 'join:", "'}`,
      );
    return { name: filter };
  }
  if (!needsArg) throw new TemplateError(`${source}: the ${filter} filter takes no argument`);
  const raw = text.slice(colon + 1).trim();
  let arg: string;
  if (raw.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value !== 'string') throw new Error('not a string');
      arg = value;
    } catch {
      throw new TemplateError(`${source}: the argument of ${filter} must be a bare word or a JSON string such as ", "`);
    }
  } else if (BARE_ARG.test(raw)) arg = raw;
  else throw new TemplateError(`${source}: the argument of ${filter} must be a bare word or a JSON string such as ", "`);
  if (filter === 'tagged' && !TAG.test(arg))
    throw new TemplateError(`${source}: a tag name is a letter followed by letters, digits, "_" or "-" (at most 32), got "${arg}"`);
  return { name: filter, arg };
}

/** What a template may name where it is used. */
export interface TemplateScope {
  roots: readonly Root[];
  problemFields: readonly string[];
}

/** Everything wrong with a template in its scope (syntax, unknown values), as messages; empty when it is fine. */
export function templateProblems(text: string, scope: TemplateScope): string[] {
  let segments: Segment[];
  try {
    segments = parseTemplate(text);
  } catch (e) {
    return [(e as Error).message];
  }
  const problems: string[] = [];
  for (const p of segments) {
    if (typeof p === 'string') continue;
    if (!scope.roots.includes(p.root)) {
      problems.push(`${p.source}: ${p.root} is not available here; this template may use ${describeScope(scope)}`);
      continue;
    }
    if (p.root === 'problem') {
      const field = p.path[0];
      if (field === undefined) problems.push(`${p.source}: name a problem field, e.g. {{problem.${scope.problemFields[0] ?? 'text'}}}`);
      else if (!scope.problemFields.includes(field)) {
        problems.push(
          `${p.source}: the problem has no field "${field}"; its fields are ${scope.problemFields.join(', ')} (other values: ${scope.roots.filter((r) => r !== 'problem').join(', ')})`,
        );
      }
    } else if (p.root === 'params' && p.path.length === 0) problems.push(`${p.source}: name a parameter, e.g. {{params.style}}`);
    else if (p.root === 'scale' && (p.path.length !== 1 || (p.path[0] !== 'min' && p.path[0] !== 'max')))
      problems.push(`${p.source}: expected {{scale.min}} or {{scale.max}}`);
  }
  return problems;
}

function describeScope(scope: TemplateScope): string {
  const roots: string[] = scope.roots.filter((r) => r !== 'problem');
  return [...roots, 'the problem fields'].join(', ');
}

/** The `params` a template reads (first path segment), so runs that lack them are refused up front. */
export function paramsUsed(text: string): string[] {
  let segments: Segment[];
  try {
    segments = parseTemplate(text);
  } catch {
    return [];
  }
  const names = segments.flatMap((s) => (typeof s !== 'string' && s.root === 'params' && s.path[0] ? [s.path[0]] : []));
  return [...new Set(names)];
}

/** The values a template is rendered with; each is optional because each prompt kind sees only some. */
export interface TemplateValues {
  thoughts?: readonly ThoughtState[];
  problem?: unknown;
  params?: Record<string, unknown>;
  scale?: { min: number; max: number };
}

/** A compiled template: parsed once, rendered per prompt. */
export interface Template {
  source: string;
  render(values: TemplateValues): string;
}

export function compileTemplate(source: string): Template {
  const segments = parseTemplate(source);
  return {
    source,
    render: (values) => segments.map((s) => (typeof s === 'string' ? s : renderPlaceholder(s, values))).join(''),
  };
}

/** A thought's answer: the parsed output, else the raw text of an unreadable answer, else nothing (the root). */
export function thoughtAnswer(state: ThoughtState | undefined): unknown {
  if (!state) return undefined;
  if (Object.hasOwn(state, 'output')) return state.output;
  return Object.hasOwn(state, 'answer') ? state.answer : undefined;
}

/** Own properties only: a template must never reach `constructor`, `__proto__` or anything inherited. */
function lookup(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function placeholderValue(p: Placeholder, v: TemplateValues): unknown {
  switch (p.root) {
    case 'thought': {
      const state = v.thoughts?.[0];
      return p.path.length ? lookup(state, p.path) : thoughtAnswer(state);
    }
    case 'thoughts':
      return (v.thoughts ?? []).map((t) => (p.path.length ? lookup(t, p.path) : thoughtAnswer(t)));
    case 'problem':
      return lookup(v.problem, p.path);
    case 'params': {
      const value = lookup(v.params, p.path);
      if (value === undefined) throw new TemplateError(`${p.source}: the operation gives no params.${p.path.join('.')}`);
      return value;
    }
    case 'scale':
      return lookup(v.scale, p.path);
  }
}

function renderPlaceholder(p: Placeholder, values: TemplateValues): string {
  let value = placeholderValue(p, values);
  for (const f of p.filters) value = applyFilter(f, value);
  return asText(value);
}

const items = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);

function applyFilter(f: Filter, value: unknown): unknown {
  switch (f.name) {
    case 'json':
      return value === undefined ? '' : JSON.stringify(value);
    case 'tagged':
      if (!Array.isArray(value)) return `<${f.arg}>\n${asText(value)}\n</${f.arg}>`;
      return value.map((item, i) => `<${f.arg}${i + 1}>\n${asText(item)}\n</${f.arg}${i + 1}>`).join('\n\n');
    case 'numbered':
      return items(value)
        .map((item, i) => `${i + 1}. ${asText(item)}`)
        .join('\n');
    case 'lines':
      return items(value).map(asText).join('\n');
    case 'join':
      return items(value).map(asText).join(f.arg);
    case 'count':
      return items(value).length;
  }
}

/** How a value reads in a prompt (see the module comment). */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.every((x) => typeof x === 'string')) return value.join('\n\n');
    if (value.every((x) => typeof x === 'number')) return `[${value.join(', ')}]`;
  }
  return JSON.stringify(value);
}
