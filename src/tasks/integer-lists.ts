/** Reading lists of integers out of model answers: shared by the tasks whose answers are lists. */

import { jsonNumbers } from './answer-schema';
import { bracketSpans, type Candidate, labelAt, labelOf, looseJson, noAnswerError, pickAnswer, unfence } from './answer-text';

/** Every bracketed list of integers in a text, in order of appearance. */
export function findIntegerLists(text: string): number[][] {
  const lists: number[][] = [];
  for (const match of text.matchAll(/\[([^[\]]*)\]/g)) {
    const body = match[1]!.trim();
    if (body === '') {
      lists.push([]);
      continue;
    }
    const items = body.split(',').map((s) => s.trim());
    if (items.every((s) => /^-?\d+$/.test(s))) lists.push(items.map(Number));
  }
  return lists;
}

/** The answer's list: the last one in the text, since models tend to restate the inputs before answering. */
export function lastIntegerList(text: string): number[] | undefined {
  return findIntegerLists(text).at(-1);
}

/** The lists of a JSON object answer such as `{"List 1": [..], "List 2": [..]}`, in key order; undefined if there is none. */
export function jsonLists(text: string): number[][] | undefined {
  return jsonListsAt(text)?.lists;
}

/** `jsonLists`, with where the object ends in the text. */
function jsonListsAt(text: string): { lists: number[][]; end: number } | undefined {
  const match = /\{[\s\S]*\}/.exec(text);
  if (!match) return undefined;
  try {
    const value: unknown = JSON.parse(match[0]);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const lists = Object.values(value).filter((v): v is number[] => Array.isArray(v) && v.every(Number.isInteger));
    return lists.length ? { lists, end: match.index + match[0].length } : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- tolerant reading (decision 28)

const INTEGER = /^-?\d+$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** The numbers of a list's body, separated by commas, semicolons or spaces (a trailing comma allowed); undefined if any item is not a number. */
export function numbersIn(body: string, integers = true): number[] | undefined {
  const trimmed = body.trim().replace(/\s*[,;]$/, '');
  if (trimmed === '') return [];
  const items = trimmed.split(/\s*[,;]\s*|\s+/);
  return items.every((s) => (integers ? INTEGER : NUMBER).test(s)) ? items.map(Number) : undefined;
}

const sameList = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

// A line that ends in numbers after a label ("Output: 1, 2, 3", "The shared numbers are 7, 33 and 12.").
const BARE_TAIL =
  /^(.*?(?::|=|\bis|\bare))[\s*_`]*(-?\d+(?:\.\d+)?(?:(?:\s*[,;]\s*(?:and\s+)?|\s+and\s+|\s+)-?\d+(?:\.\d+)?)*)[\s*_`]*\.?\s*$/i;
const BULLET = /^\s*[-*\u2022]\s+(-?\d+(?:\.\d+)?)\s*$/;

/**
 * Every list of numbers a model may have written, in order, labelled by the words before it:
 * `[..]` (also with spaces or a trailing comma), `{..}` set notation, and, after a label that
 * announces the answer, numbers without brackets on the label's line or as a bullet list below it;
 * an answer that is nothing but numbers is one list.
 * Lists that copy one of `echoes` (the input the prompt gave) are marked as such.
 */
export function listCandidates(text: string, echoes: readonly (readonly number[])[] = [], integers = true): Candidate<number[]>[] {
  const found: { value: number[]; start: number; end: number; closed?: boolean }[] = [];
  for (const m of text.matchAll(/\[([^[\]]*)\]|\{([^{}]*)\}/g)) {
    const value = numbersIn(m[1] ?? m[2]!, integers);
    // `{}` is an empty object far more often than an empty set.
    if (value && (m[1] !== undefined || value.length)) found.push({ value, start: m.index, end: m.index + m[0].length, closed: true });
  }
  const lines = text.split('\n');
  let offset = 0;
  for (const [i, line] of lines.entries()) {
    const bare = /[[\]{}]/.test(line) ? null : BARE_TAIL.exec(line);
    if (bare && labelOf(bare[1]!) === 'output') {
      const value = numbersIn(bare[2]!.replace(/\band\b/g, ','), integers);
      if (value) found.push({ value, start: offset + bare[1]!.length, end: offset + line.length });
    } else if (/:[\s*_`]*$/.test(line) && labelOf(line.replace(/[\s*_`]+$/, '')) === 'output') {
      const bullets: number[] = [];
      for (const next of lines.slice(i + 1)) {
        const b = BULLET.exec(next);
        if (!b) break;
        bullets.push(Number(b[1]));
      }
      if (bullets.length) found.push({ value: bullets, start: offset + line.length + 1, end: offset + line.length + 1 });
    }
    offset += line.length + 1;
  }
  // A terse answer that is nothing but the numbers ("0, 1, 2, 4"), also in a fence.
  const whole = unfence(text).trim();
  if (!found.length && /^[-+\d.eE,;\s]+$/.test(whole) && /\d/.test(whole)) {
    const value = numbersIn(whole, integers);
    if (value) found.push({ value, start: text.indexOf(whole), end: text.indexOf(whole) + whole.length });
  }
  found.sort((a, b) => a.start - b.start);
  const candidates: Candidate<number[]>[] = [];
  for (const f of found) {
    const label = labelAt(text, f.start, candidates.at(-1));
    candidates.push({ ...f, label, echo: echoes.some((e) => sameList(e, f.value)) });
  }
  return candidates;
}

/**
 * What reading one answer gave: the value, or why there is none. `end`: where the structure the
 * value was read from closed in the text, when it has a closing mark (`ParsedThought.end`).
 */
export type Read<T> = { ok: true; value: T; end?: number } | { ok: false; error: string };

/** Where a read candidate closed, when it has a closing mark of its own. */
export const closedEnd = (c: { end: number; closed?: boolean }) => (c.closed ? { end: c.end } : {});

/**
 * The answer's list: the `output` of a JSON answer (structured output, decision 65), else the list
 * the free text gives (see `pickAnswer`), or an error that says what was expected.
 */
export function readList(text: string, echoes: readonly (readonly number[])[] = [], integers = true): Read<number[]> {
  const json = jsonNumbers(text, 'output', integers);
  if (json) return { ok: true, value: json.value, end: json.end };
  const candidates = listCandidates(text, echoes, integers);
  const best = pickAnswer(candidates);
  return best
    ? { ok: true, value: best.value, ...closedEnd(best) }
    : { ok: false, error: noAnswerError(candidates, 'list of numbers', 'a list such as [1, 2, 3]') };
}

function looseJsonLists(text: string): { lists: number[][]; end: number } | undefined {
  for (const { start, end } of bracketSpans(text).reverse()) {
    const value = looseJson(text.slice(start, end));
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const lists = Object.values(value).filter((v): v is number[] => Array.isArray(v) && v.every(Number.isInteger));
    if (lists.length) return { lists, end };
  }
  return undefined;
}

/** Lists written as `List 1: [..]` lines (any markdown around the name), in the order of their numbers. */
function numberedLists(text: string): { lists: number[][]; end: number } | undefined {
  const byNumber = new Map<number, number[]>();
  let end = 0;
  for (const m of text.matchAll(/list\s*(\d+)[\s*_`"'\u201c\u201d]*[:=][\s*_`]*\[([^[\]]*)\]/gi)) {
    const value = numbersIn(m[2]!);
    if (value) byNumber.set(Number(m[1]), value);
    if (value) end = m.index + m[0].length;
  }
  const lists = [...byNumber.keys()].sort((a, b) => a - b).map((n) => byNumber.get(n)!);
  return lists.length ? { lists, end } : undefined;
}

/**
 * The lists of a split answer, at most `parts`: a JSON object of lists (also in a fence, with smart
 * quotes, trailing commas or Python quotes), else `List N: [..]` lines, else the last lists that
 * are neither labelled as nor copies of the input.
 */
export function readSplitLists(text: string, parts: number, echoes: readonly (readonly number[])[] = []): Read<number[][]> {
  const read = jsonListsAt(text) ?? looseJsonLists(text) ?? numberedLists(text) ?? loneLists(text, parts, echoes);
  return read.lists.length
    ? { ok: true, value: read.lists.slice(0, parts), ...(read.end !== undefined ? { end: read.end } : {}) }
    : { ok: false, error: `no lists of numbers in the split answer; expected a JSON object such as {"List 1": [..], "List 2": [..]}` };
}

/** The last `parts` lists that are neither labelled as nor copies of the input; `end` only when the last of them is closed. */
function loneLists(text: string, parts: number, echoes: readonly (readonly number[])[]): { lists: number[][]; end?: number } {
  const chosen = listCandidates(text, echoes)
    .filter((c) => c.label !== 'input' && !c.echo)
    .slice(-parts);
  const last = chosen.at(-1);
  return { lists: chosen.map((c) => c.value), ...(last ? closedEnd(last) : {}) };
}
