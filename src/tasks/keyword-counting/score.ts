/** Score of an answer without a readable tally (as in the paper's runs). */
export const UNPARSEABLE_SCORE = 100;

/** How often each country is named: country -> count; absent means 0. */
export type Counts = Record<string, number>;

/** Tallies a list of occurrences (the dataset's ground truth) into counts. */
export function tally(occurrences: readonly string[]): Counts {
  const counts: Counts = {};
  for (const name of occurrences) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const patterns = new Map<string, RegExp>();

function mentionPattern(names: readonly string[]): RegExp {
  // Longest names first, so "Papua New Guinea" is one mention and not also one of "Guinea".
  const sorted = [...new Set(names)].filter((n) => n !== '').sort((a, b) => b.length - a.length || a.localeCompare(b));
  const key = sorted.join('\u0000');
  let pattern = patterns.get(key);
  if (!pattern) {
    pattern = sorted.length ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${sorted.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, 'gu') : /(?!)/gu;
    patterns.set(key, pattern);
  }
  return pattern;
}

/** How often each of `names` is mentioned in `text`: whole words only, case-sensitive, each mention counted once. */
export function countMentions(text: string, names: readonly string[]): Counts {
  return tally([...text.matchAll(mentionPattern(names))].map((m) => m[0]));
}

export function addCounts(a: Counts, b: Counts): Counts {
  const sum: Counts = { ...a };
  for (const [name, n] of Object.entries(b)) sum[name] = (sum[name] ?? 0) + n;
  return sum;
}

/** The paper's error: summed over every country in either tally, |counted - true|. 0 means correct. */
export function countError(truth: Counts, answer: Counts): number {
  let error = 0;
  for (const name of new Set([...Object.keys(truth), ...Object.keys(answer)])) error += Math.abs((truth[name] ?? 0) - (answer[name] ?? 0));
  return error;
}

/** Equal tallies, where a country listed with 0 is the same as one left out. */
export const sameCounts = (a: Counts, b: Counts) => countError(a, b) === 0;
