import { type Random, randomInt } from '../util/random';
import type { Answer } from './responders';

/** A Poisson draw: how many independent mistakes an answer gets. */
export function poisson(random: Random, mean: number): number {
  if (mean <= 0) return 0;
  if (mean > 30) {
    // Knuth's product underflows for large means; the normal approximation is close enough there.
    const gauss = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * gauss));
  }
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k++;
  return k;
}

/**
 * An answer to a list task's split prompt: the input cut into `parts` numbered lists, each with a
 * few mistakes (an element dropped, or changed by `alter`), about `mistakesPer16` per 16 elements.
 */
export function splitListsAnswer(
  input: readonly number[],
  parts: number,
  o: { mistakesPer16: number; alter: (x: number, random: Random) => number; fmt: (list: number[]) => string },
): Answer {
  const size = Math.ceil(input.length / parts);
  return (random) => {
    const lists = Array.from({ length: parts }, (_, p) => {
      const part = input.slice(p * size, (p + 1) * size);
      for (let n = poisson(random, (o.mistakesPer16 * part.length) / 16); n > 0 && part.length > 0; n--) {
        const i = randomInt(random, part.length);
        if (random() < 0.5) part.splice(i, 1);
        else part[i] = o.alter(part[i]!, random);
      }
      return `"List ${p + 1}": ${o.fmt(part)}`;
    });
    return `{${lists.join(', ')}}`;
  };
}

export const MALFORMED_PROBABILITY = 0.01;

// No brackets or braces, so parsers find nothing to read.
const MALFORMED_ANSWERS = [
  'I am sorry, but I cannot help with that request.',
  'Sure! Here is the answer you asked for.',
  'The numbers are already in the right order, so nothing needs to change.',
  'Output: see above',
];

/** Real models now and then answer without the requested content; so does the simulator. */
export function sometimesMalformed(answer: Answer): Answer {
  return (random, context) =>
    random() < MALFORMED_PROBABILITY ? MALFORMED_ANSWERS[randomInt(random, MALFORMED_ANSWERS.length)]! : answer(random, context);
}
