import { patientCalls } from './patient-calls';
import type { RunPath } from './run-path';

/**
 * Since the `steering` patch: a person may pause and resume the run's LLM calls and change its
 * budget while it runs (the `steer` update, decision 100). Runs started before refuse every steer
 * with a reason; nothing else changes.
 */
export const steerable: RunPath = { ...patientCalls, obeysSteering: true };
