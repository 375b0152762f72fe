import { fmt, SET_INTERSECTION_MARKERS } from '../tasks/set-intersection/prompts';
import { intersect } from '../tasks/set-intersection/score';
import { hashSeed, type Random, randomInt, seededRandom } from '../util/random';
import { lastListAfter, responderFor } from './prompt-input';
import type { Answer } from './responders';
import { poisson, splitListsAnswer } from './sampling';

/**
 * Simulated answers to the set intersection prompts, for testing the machinery (it is not a claim
 * about how real models behave): the correct result with a random number of mistakes (a shared
 * number missed, a number of only one set included, a number written twice), more of them the
 * longer the sets. Checking a short part of set 2 against set 1 is much easier than intersecting
 * two long sets, which is what lets the GoT decomposition pay off, as in the paper.
 *
 * Two kinds of stubbornness keep best-of-k and refinement from fixing everything: part of the
 * mistakes is systematic, the same in every sample of one prompt (the paper's samples miss the same
 * number again and again), a share that grows with the length of set 2; and when asked to improve
 * an attempt, the model notices each wrong number with a chance fixed per problem and number, so
 * some numbers stay blind spots from one refinement level to the next.
 */

/** Mean number of mistakes when intersecting `set1` with a `set2` of these lengths in one go. */
export function intersectLambda(set1Length: number, set2Length: number): number {
  return 0.5 * (set2Length / 16) ** 1.2 * Math.sqrt(set1Length / 32);
}

/** The share of the mistakes that every sample of one prompt repeats. */
export function systematicShare(set2Length: number): number {
  return Math.min(0.6, (0.15 * set2Length) / 16);
}

const COT_FACTOR = 0.8;
const MERGE_MISTAKES_PER_NUMBER = 0.02;
const SPLIT_MISTAKES_PER_16 = 0.05;
/** Improve notices a number's error with a chance spread evenly from 0 to this. */
const IMPROVE_NOTICE_MAX = 0.8;
/** Rewriting the intersection slips in new mistakes, relative to intersecting from scratch. */
const IMPROVE_NEW_MISTAKE_FACTOR = 0.4;

const pick = <T>(items: readonly T[], random: Random): T => items[randomInt(random, items.length)]!;

interface Question {
  set1: readonly number[];
  set2: readonly number[];
  truth: ReadonlySet<number>;
  /** Numbers of only one of the sets: what can be wrongly included. */
  others: readonly number[];
}

function question(set1: readonly number[], set2: readonly number[]): Question {
  const truth = new Set(intersect(set1, set2));
  return { set1, set2, truth, others: [...set1, ...set2].filter((x) => !truth.has(x)) };
}

/** Adds one mistake that costs exactly one error against the truth; does nothing if none is possible. */
function addMistake(answer: number[], q: Question, random: Random): void {
  const once = answer.filter((x) => q.truth.has(x) && answer.indexOf(x) === answer.lastIndexOf(x));
  const wrong = q.others.filter((x) => !answer.includes(x));
  const kinds = [
    once.length > 0 && 'miss',
    once.length > 0 && 'miss',
    wrong.length > 0 && 'include',
    answer.length > 0 && 'duplicate',
  ].filter((k): k is string => !!k);
  if (kinds.length === 0) return;
  switch (pick(kinds, random)) {
    case 'miss':
      answer.splice(answer.indexOf(pick(once, random)), 1);
      return;
    case 'include':
      answer.splice(randomInt(random, answer.length + 1), 0, pick(wrong, random));
      return;
    default: {
      const i = randomInt(random, answer.length);
      answer.splice(i + 1, 0, answer[i]!);
    }
  }
}

/**
 * The samples of one prompt: `base` (the sample's answer before slips), then the prompt's
 * systematic mistakes (replayed from the same stream in every sample), then the sample's own.
 */
function sampler(q: Question, base: (random: Random) => number[], mean: number, prompt: string): (random: Random) => number[] {
  const share = systematicShare(q.set2.length);
  const systematicSeed = hashSeed('set-intersection', prompt);
  const systematic = poisson(seededRandom(systematicSeed), share * mean);
  return (random) => {
    const out = base(random);
    const fixed = seededRandom(systematicSeed + 1);
    for (let n = systematic; n > 0; n--) addMistake(out, q, fixed);
    for (let n = poisson(random, (1 - share) * mean); n > 0; n--) addMistake(out, q, random);
    return out;
  };
}

function chunks(list: readonly number[], size: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** Per sample: the attempt with each error fixed if the model notices it, then new slips. */
export function improveSampler(
  set1: readonly number[],
  set2: readonly number[],
  attempt: readonly number[],
  prompt: string,
): (random: Random) => number[] {
  const q = question(set1, set2);
  const problem = hashSeed(fmt(set1), fmt(set2));
  const noticeChance = (x: number) => IMPROVE_NOTICE_MAX * seededRandom(hashSeed(problem, x))();
  const fix = (random: Random) => {
    const kept: number[] = [];
    for (const x of attempt) {
      const error = !q.truth.has(x) || kept.includes(x);
      if (!error || random() >= noticeChance(x)) kept.push(x);
    }
    for (const x of intersect(set1, set2)) if (!kept.includes(x) && random() < noticeChance(x)) kept.push(x);
    return kept;
  };
  return sampler(q, fix, IMPROVE_NEW_MISTAKE_FACTOR * intersectLambda(set1.length, set2.length), prompt);
}

function intersectSampler(set1: number[], set2: number[], prompt: string, factor = 1): (random: Random) => number[] {
  const truth = intersect(set1, set2);
  return sampler(question(set1, set2), () => [...truth], factor * intersectLambda(set1.length, set2.length), prompt);
}

function intersectAnswer(set1: number[], set2: number[], prompt: string): Answer {
  const output = intersectSampler(set1, set2, prompt);
  return (random) => fmt(output(random));
}

function intersectCotAnswer(set1: number[], set2: number[], prompt: string): Answer {
  const output = intersectSampler(set1, set2, prompt, COT_FACTOR);
  const pieces = chunks(set2, 16);
  return (random) => [`Pieces of Set 2: ${pieces.map(fmt).join(', ')}`, `Output: ${fmt(output(random))}`].join('\n');
}

function improveAnswer(set1: number[], set2: number[], attempt: number[], prompt: string): Answer {
  const output = improveSampler(set1, set2, attempt, prompt);
  return (random) =>
    `Reason: I removed the numbers missing from one of the sets and the repeated ones, and added the shared numbers the attempt lacked.\nOutput: ${fmt(output(random))}`;
}

function splitAnswer(input: number[], parts: number): Answer {
  return splitListsAnswer(input, parts, { mistakesPer16: SPLIT_MISTAKES_PER_16, alter: (x, random) => x + (random() < 0.5 ? -1 : 1), fmt });
}

function mergeAnswer(a: number[], b: number[]): Answer {
  const union = [...new Set([...a, ...b])];
  return (random) => {
    const out = [...union];
    for (let n = poisson(random, MERGE_MISTAKES_PER_NUMBER * out.length); n > 0 && out.length > 0; n--) {
      const i = randomInt(random, out.length);
      if (random() < 0.5) out.splice(i, 1);
      else out.splice(i + 1, 0, out[i]!);
    }
    return fmt(out);
  };
}

type SetIntersectionPrompt = keyof typeof SET_INTERSECTION_MARKERS;

function answerFor(kind: SetIntersectionPrompt, prompt: string): Answer | undefined {
  const set1 = lastListAfter(prompt, 'Set 1:');
  const set2 = lastListAfter(prompt, 'Set 2:');
  switch (kind) {
    case 'intersect':
      return set1 && set2 && intersectAnswer(set1, set2, prompt);
    case 'intersectCot':
      return set1 && set2 && intersectCotAnswer(set1, set2, prompt);
    case 'improve': {
      const attempt = lastListAfter(prompt, 'Attempt:');
      return set1 && set2 && attempt && improveAnswer(set1, set2, attempt, prompt);
    }
    case 'split': {
      const input = lastListAfter(prompt, 'Input:');
      const parts = Number(/into (\d+) lists/.exec(prompt)?.[1]);
      return input && parts > 0 ? splitAnswer(input, parts) : undefined;
    }
    case 'merge': {
      const a = lastListAfter(prompt, 'First set:');
      const b = lastListAfter(prompt, 'Second set:');
      return a && b && mergeAnswer(a, b);
    }
  }
}

/** The set intersection responder: undefined unless the prompt is one of this task's with a readable input. */
export const setIntersectionResponder = responderFor('set-intersection', SET_INTERSECTION_MARKERS, answerFor);
