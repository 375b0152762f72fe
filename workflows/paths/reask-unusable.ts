import { fastSteps } from './fast-steps';
import type { RunPath } from './run-path';

/**
 * Runs started since the `reask-unusable` patch: as `fast-steps`, and an LLM step whose answers are
 * unusable (none parses, or fewer than `llm.reaskBelowShare`) asks again for the missing samples with
 * a new seed, up to `llm.reask` times; a run that ends with no valid final thought says so
 * (`status: noAnswer`) instead of completing as if it had answered; a call's timeout grows with the
 * tokens it may generate, so a slow endpoint is not cut for a long answer (docs/decisions.md, 25, 29).
 */
export const reaskUnusable: RunPath = { ...fastSteps, survivesUnusableAnswers: true, sizesTimeoutsByTokens: true };
