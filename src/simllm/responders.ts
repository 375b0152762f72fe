import type { Random } from '../util/random';
import { docMergeResponder } from './doc-merge';
import { game24Responder } from './game-of-24';
import { keywordCountingResponder } from './keyword-counting';
import { setIntersectionResponder } from './set-intersection';
import { sortingResponder } from './sorting';

/** Knobs of the simulated model that change what it writes (not how the endpoint behaves: see `./faults`). */
export interface SimSettings {
  /** Document merging: chance per merged paragraph of one added sentence that no source has (default 0). */
  inventShare?: number;
}

/** What an answer may use beside its own stream: the settings, and a second stream for them. */
export interface AnswerContext {
  settings: SimSettings;
  /** Seeded per choice like the answer's own stream but apart from it, so a knob at 0 leaves every answer as it was. */
  side: Random;
}

/** Produces one sampled answer; the server calls it once per choice with that choice's seeded stream. */
export type Answer = (random: Random, context?: AnswerContext) => string;

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
