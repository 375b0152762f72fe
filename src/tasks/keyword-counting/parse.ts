import type { Counts } from './score';

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
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start !== -1 && end > start) {
    const value = parseObject(text.slice(start, end + 1));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const passages = Object.values(value);
      if (passages.length && passages.every((p) => typeof p === 'string')) return passages as string[];
    }
  }
  // A truncated or otherwise broken object: take the entries that are complete.
  const entries = [...text.matchAll(/"[^"]*\d+"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => parseObject(`"${m[1]!}"`));
  return entries.length && entries.every((e) => typeof e === 'string') ? (entries as string[]) : undefined;
}

/** `n` runs of consecutive sentences of about equal size, each joined into one passage (fewer when there are fewer sentences). */
export function groupSentences(sentences: readonly string[], n: number): string[] {
  const groups = Math.max(1, Math.min(n, sentences.length));
  return Array.from({ length: groups }, (_, g) =>
    sentences.slice(Math.floor((g * sentences.length) / groups), Math.floor(((g + 1) * sentences.length) / groups)).join(' '),
  );
}
