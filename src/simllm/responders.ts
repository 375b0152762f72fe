import type { Random } from '../util/random';
import { docMergeResponder } from './doc-merge';
import { game24Responder } from './game-of-24';
import { keywordCountingResponder } from './keyword-counting';
import { setIntersectionResponder } from './set-intersection';
import { sortingResponder } from './sorting';

/** Produces one sampled answer; the server calls it once per choice with that choice's seeded stream. */
export type Answer = (random: Random) => string;

/** A recognised prompt: its kind (for stats) and how to answer it. */
export interface Recognised {
  kind: string;
  answer: Answer;
}

/** Looks at the last user message; undefined when the prompt is not one it knows. */
export type Responder = (prompt: string) => Recognised | undefined;

/** Tried in order; a new task adds its module here. */
export const RESPONDERS: readonly Responder[] = [
  sortingResponder,
  setIntersectionResponder,
  keywordCountingResponder,
  docMergeResponder,
  game24Responder,
];

export function recognise(prompt: string): Recognised | undefined {
  for (const responder of RESPONDERS) {
    const recognised = responder(prompt);
    if (recognised) return recognised;
  }
  return undefined;
}
