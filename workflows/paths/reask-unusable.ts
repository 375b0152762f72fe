import { fastSteps } from './fast-steps';
import type { RunPath } from './run-path';

/**
 * Runs started since the `reask-unusable` patch: as `fast-steps`, and an LLM step whose answers are
 * unusable (none parses, or fewer than `llm.reaskBelowShare`) asks again for the missing samples with
 * a new seed, up to `llm.reask` times; a run that ends with no valid final thought says so
 * (`status: noAnswer`) instead of completing as if it had answered (docs/decisions.md, 21).
 */
export const reaskUnusable: RunPath = { ...fastSteps, survivesUnusableAnswers: true };
