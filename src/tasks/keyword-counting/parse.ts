import { jsonAnswer } from '../answer-schema';
import { type Candidate, labelAt, looseJson, noAnswerError, pickAnswer } from '../answer-text';
import type { Read } from '../integer-lists';
import { type Counts, sameCounts } from './score';

/**
 * The sentences of a text: split after . ! or ? followed by a space, or directly followed by a
 * capital letter (the reference texts sometimes lack the space, e.g. "heritage.Thomas").
 */
export function splitSentences(text: string): string[] {
  return text
    .trim()
    .split(/(?<=[.!?])\s+|(?<=\p{Ll}[.!?])(?=\p{Lu})/u)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function asCounts(value: unknown): Counts | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const counts: Counts = {};
  for (const [name, raw] of Object.entries(value)) {
    const n = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || name.trim() === '') return undefined;
    counts[name.trim()] = n;
  }
  return counts;
}

/**
 * A tally as structured output writes it (`[{"country": "Peru", "count": 2}]`, the shape strict mode
 * allows for a map; a name given twice is added up), or as an object of counts; undefined otherwise.
 */
function entryCounts(value: unknown): Counts | undefined {
  if (!Array.isArray(value)) return asCounts(value);
  const counts: Counts = {};
  for (const entry of value) {
    const { country, count } = (entry ?? {}) as { country?: unknown; count?: unknown };
    if (typeof country !== 'string' || country.trim() === '' || !Number.isInteger(count) || (count as number) < 0) return undefined;
    counts[country.trim()] = (counts[country.trim()] ?? 0) + (count as number);
  }
  return counts;
}

function parseObject(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    // Models sometimes write Python dicts: {'Peru': 2}.
    try {
      return JSON.parse(body.replace(/'/g, '"'));
    } catch {
      return undefined;
    }
  }
}

/**
 * The answer's tally: the last `{...}` in the text whose entries are all country -> non-negative
 * integer, since models restate inputs and intermediate tallies before the final one.
 */
export function parseCounts(text: string): Counts | undefined {
  const blocks = [...text.matchAll(/\{[^{}]*\}/g)].map((m) => m[0]);
  for (let i = blocks.length - 1; i >= 0; i--) {
    const counts = asCounts(parseObject(blocks[i]!));
    if (counts) return counts;
  }
  return undefined;
}

/** The passages of a split answer, in order: a JSON object of strings, or failing that its `"Passage N": "..."` entries. */
export function parsePassages(text: string): string[] | undefined {
  return readPassages(text)?.passages;
}

/** `parsePassages`, with where the JSON object closed (absent when only the complete entries of a broken one were read). */
export function readPassages(text: string): { passages: string[]; end?: number } | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start !== -1 && end > start) {
    const value = looseJson(text.slice(start, end + 1));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const passages = Object.values(value);
      if (passages.length && passages.every((p) => typeof p === 'string')) return { passages: passages as string[], end: end + 1 };
    }
  }
  // A truncated or otherwise broken object: take the entries that are complete.
  const entries = [...text.matchAll(/"[^"]*\d+"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => parseObject(`"${m[1]!}"`));
  return entries.length && entries.every((e) => typeof e === 'string') ? { passages: entries as string[] } : undefined;
}

/** `n` runs of consecutive sentences of about equal size, each joined into one passage (fewer when there are fewer sentences). */
export function groupSentences(sentences: readonly string[], n: number): string[] {
  const groups = Math.max(1, Math.min(n, sentences.length));
  return Array.from({ length: groups }, (_, g) =>
    sentences.slice(Math.floor((g * sentences.length) / groups), Math.floor(((g + 1) * sentences.length) / groups)).join(' '),
  );
}

// A line of a markdown list or table that gives one country's count ("- **Peru**: 2", "| Peru | 2 |").
const COUNT_LINE =
  /^\s*(?:[-*\u2022]\s+|\d+[.)]\s+|\|\s*)?[*_]*(\p{Lu}[\p{L} .'\u2019-]*?)[*_]*\s*(?:[:=\u2013|]|-\s)\s*[*_]*(\d+)[*_]*\s*(?:(?:mentions?|times?)\.?\s*)?\|?\s*$/u;
// Names in such lines that are headings or totals, not countries.
const NOT_A_COUNTRY =
  /^(?:total|sum|count|country|countries|mentions?|output|answer|result|step|passage|tally|note|example|sentence|line|part)\b/i;

/** The last block of consecutive count lines, as a tally; undefined without one. */
function countLines(text: string): Counts | undefined {
  let last: Counts | undefined;
  let block: Counts | undefined;
  for (const line of text.split('\n')) {
    const m = COUNT_LINE.exec(line);
    if (m && !NOT_A_COUNTRY.test(m[1]!.trim())) {
      block ??= {};
      block[m[1]!.trim()] = Number(m[2]);
      last = block;
    } else if (!/^\s*\|?[\s:|-]*$/.test(line) || line.trim() === '') {
      // A table's header separator (|---|---|) does not end the block; anything else does.
      block = undefined;
    }
  }
  return last;
}

/**
 * The answer's tally, as models write it: JSON objects (also in fences, with smart quotes, trailing
 * commas, Python quotes or bare keys) labelled and compared with `echoes` (the tallies the prompt
 * gave) as lists are (`pickAnswer`); failing any, a markdown list or table of counts.
 */
export function readCounts(text: string, echoes: readonly Counts[] = []): Read<Counts> {
  const json = jsonAnswer(text, ['output']);
  const structured = json && entryCounts(json.value.output);
  if (json && structured) return { ok: true, value: structured, end: json.end };
  const candidates: Candidate<Counts>[] = [];
  for (const m of text.matchAll(/\{[^{}]*\}/g)) {
    const counts = asCounts(looseJson(m[0]));
    if (!counts) continue;
    const label = labelAt(text, m.index, candidates.at(-1));
    const echo = echoes.some((e) => sameCounts(e, counts));
    candidates.push({ value: counts, start: m.index, end: m.index + m[0].length, label, echo, closed: true });
  }
  const best = pickAnswer(candidates);
  if (best) return { ok: true, value: best.value, end: best.end };
  const listed = candidates.length ? undefined : countLines(text);
  if (listed) return { ok: true, value: listed };
  return { ok: false, error: noAnswerError(candidates, 'tally of countries', 'a JSON object of counts such as {"Peru": 2}') };
}
