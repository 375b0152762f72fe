import { fmt, SORTING_MARKERS } from '../tasks/sorting/prompts';
import { type Random, randomInt } from '../util/random';
import { lastListAfter, responderFor } from './prompt-input';
import type { Answer } from './responders';
import { poisson, splitListsAnswer } from './sampling';

/**
 * Simulated answers to the sorting prompts: correct results with a random number of mistakes
 * that grows faster than the list, like a real model's.
 */

/** Mean number of mistakes when sorting a list of `length` numbers in one go. */
export function sortingLambda(length: number): number {
  return 0.6 * (length / 16) ** 1.4;
}

const COT_FACTOR = 0.8;
// Merging two sorted lists is mechanical: far fewer slips than sorting the same numbers from scratch.
const MERGE_FACTOR = 0.35;
const SPLIT_MISTAKES_PER_16 = 0.05;
const IMPROVE_NEW_MISTAKE_FACTOR = 0.4;

/** Spotting a mistake gets harder as the list grows: a 16-element list is fixed far more reliably than a 128. */
export function improveFixProbability(length: number): number {
  return Math.min(0.85, 0.75 * Math.sqrt(16 / Math.max(length, 1)));
}

const ascending = (list: readonly number[]) => [...list].sort((a, b) => a - b);

function counts(list: readonly number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function neighbour(x: number, random: Random): number {
  if (x <= 0) return x + 1;
  if (x >= 9) return x - 1;
  return random() < 0.5 ? x - 1 : x + 1;
}

/** Mistakes a model makes when writing out a sorted list; each costs about one error. */
function addMistake(list: number[], random: Random): void {
  if (list.length === 0) return;
  const i = randomInt(random, list.length);
  switch (randomInt(random, 4)) {
    case 0:
      list.splice(i, 1);
      return;
    case 1:
      list.splice(i, 0, list[i]!);
      return;
    case 2:
      list[i] = neighbour(list[i]!, random);
      return;
    default: {
      // Swap the next strictly ascending pair so that the swap really creates a descent.
      for (let k = 0; k < list.length - 1; k++) {
        const j = (i + k) % (list.length - 1);
        if (list[j]! < list[j + 1]!) {
          [list[j], list[j + 1]] = [list[j + 1]!, list[j]!];
          return;
        }
      }
      list.splice(i, 0, list[i]!);
    }
  }
}

function withMistakes(list: readonly number[], mean: number, random: Random): number[] {
  const out = [...list];
  for (let n = poisson(random, mean); n > 0; n--) addMistake(out, random);
  return out;
}

function chunks(list: readonly number[], size: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function sortAnswer(input: number[]): Answer {
  return (random) => fmt(withMistakes(ascending(input), sortingLambda(input.length), random));
}

function sortCotAnswer(input: number[]): Answer {
  return (random) => {
    const sublists = chunks(input, 16);
    const output = withMistakes(ascending(input), COT_FACTOR * sortingLambda(input.length), random);
    return [
      `Sublists: ${sublists.map(fmt).join(', ')}`,
      `Sorted sublists: ${sublists.map((s) => fmt(ascending(s))).join(', ')}`,
      `Output: ${fmt(output)}`,
    ].join('\n');
  };
}

function splitAnswer(input: number[], parts: number): Answer {
  return splitListsAnswer(input, parts, { mistakesPer16: SPLIT_MISTAKES_PER_16, alter: neighbour, fmt });
}

function mergeAnswer(a: number[], b: number[]): Answer {
  const merged = ascending([...a, ...b]);
  return (random) => fmt(withMistakes(merged, MERGE_FACTOR * sortingLambda(merged.length), random));
}

/** Ascending runs of a list: joining two adjacent runs in sorted order removes exactly one descent. */
function ascendingRuns(list: readonly number[]): number[][] {
  const runs: number[][] = [];
  list.forEach((x, i) => {
    if (i === 0 || list[i - 1]! > x) runs.push([x]);
    else runs.at(-1)!.push(x);
  });
  return runs;
}

/** Fixes each descent and each surplus or missing copy with some probability, then slips a little. */
export function improveAttempt(original: readonly number[], attempt: readonly number[], random: Random): number[] {
  const fix = improveFixProbability(original.length);
  const runs: number[][] = [];
  for (const run of ascendingRuns(attempt)) {
    if (runs.length > 0 && random() < fix) runs.push(ascending([...runs.pop()!, ...run]));
    else runs.push(run);
  }
  const list = runs.flat();
  const want = counts(original);
  const got = counts(list);
  for (const value of ascending([...new Set([...want.keys(), ...got.keys()])])) {
    const diff = (want.get(value) ?? 0) - (got.get(value) ?? 0);
    for (let k = 0; k < Math.abs(diff); k++) {
      if (random() >= fix) continue;
      if (diff < 0) list.splice(list.indexOf(value), 1);
      else {
        // Before the first larger number: never creates a descent.
        const at = list.findIndex((x) => x > value);
        list.splice(at === -1 ? list.length : at, 0, value);
      }
    }
  }
  return withMistakes(list, IMPROVE_NEW_MISTAKE_FACTOR * sortingLambda(original.length), random);
}

function improveAnswer(original: number[], attempt: number[]): Answer {
  return (random) =>
    `Reason: I counted every digit in the original and in the attempt, fixed the counts that differ and put the numbers back in ascending order.\nOutput: ${fmt(improveAttempt(original, attempt, random))}`;
}

type SortingPrompt = keyof typeof SORTING_MARKERS;

function answerFor(kind: SortingPrompt, prompt: string): Answer | undefined {
  const input = lastListAfter(prompt, 'Input:');
  switch (kind) {
    case 'sort':
      return input && sortAnswer(input);
    case 'sortCot':
      return input && sortCotAnswer(input);
    case 'split': {
      const parts = Number(/into (\d+) lists/.exec(prompt)?.[1]);
      return input && parts > 0 ? splitAnswer(input, parts) : undefined;
    }
    case 'merge': {
      const a = lastListAfter(prompt, 'List A:');
      const b = lastListAfter(prompt, 'List B:');
      return a && b && mergeAnswer(a, b);
    }
    case 'improve': {
      const original = lastListAfter(prompt, 'Original:');
      const attempt = lastListAfter(prompt, 'Attempt:');
      return original && attempt && improveAnswer(original, attempt);
    }
  }
}

/** The sorting responder: undefined unless the prompt is a sorting prompt with a readable input. */
export const sortingResponder = responderFor('sorting', SORTING_MARKERS, answerFor);
