import { answerReview } from './answer-review';
import type { RunPath } from './run-path';

/**
 * Runs started since the `samples-together` patch: as `answer-review`, and with fan-out perSample a
 * step's k samples are one activity that sends k single-sample requests at once, instead of k
 * activities: the endpoint still serves every branch as its own request, and the run schedules,
 * records and awaits a fifth of the activities on Framework of Thoughts' graph (docs/decisions.md, 69).
 */
export const samplesTogether: RunPath = { ...answerReview, samplesInOneCall: true };
