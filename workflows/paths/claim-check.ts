import { reaskUnusable } from './reask-unusable';
import type { RunPath } from './run-path';

/**
 * Runs started since the `claim-check` patch: as `reask-unusable`, and a problem the worker kept in
 * the payload store (one above the store's threshold, e.g. the documents of a long merge) reaches
 * every step as a reference instead of a copy, so the history holds it once, in the store; and the
 * calls in flight carry at most a workflow task's worth of inline input, so no fan-out makes a
 * workflow task too large to send (docs/decisions.md 32).
 */
export const claimCheck: RunPath = { ...reaskUnusable, problemByReference: true, boundsInlineBytes: true };
