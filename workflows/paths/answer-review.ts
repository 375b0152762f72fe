import { claimCheck } from './claim-check';
import type { RunPath } from './run-path';

/**
 * Runs started since the `answer-review` patch: as `claim-check`, and a task that reviews its answers
 * (document merges) has the run's best answer reviewed by the engine once the graph is done: each
 * clause's sources, the sources' disagreements, and, when the request asks, a person's decisions on
 * them (docs/decisions.md, 59).
 */
export const answerReview: RunPath = { ...claimCheck, reviewsAnswers: true };
