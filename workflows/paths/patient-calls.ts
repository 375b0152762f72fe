import { partsInChildren } from './parts-in-children';
import type { RunPath } from './run-path';

/**
 * Runs started since the `patient-calls` patch: as `parts-in-children`, and an LLM call is no longer
 * cut by a timeout of its whole attempt: the worker retries each refused request inside the call and
 * ends a request by its own timeout or stall, so a slow answer that keeps coming is never killed for
 * being slow, and a busy provider's refusals never use up the call's attempts (docs/decisions.md, 90).
 */
export const patientCalls: RunPath = { ...partsInChildren, callsEndedByProgress: true };
