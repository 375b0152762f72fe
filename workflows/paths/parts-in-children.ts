import type { RunPath } from './run-path';
import { samplesTogether } from './samples-together';

/**
 * Runs started since the `parts-in-children` patch: as `samples-together`, and a forEach whose parts
 * may make more LLM calls than one history should hold runs them in child workflows, batches of parts
 * worth at most `children.maxCalls` calls each, so a data room of hundreds of documents is one run
 * across many histories (docs/decisions.md, 71).
 */
export const partsInChildren: RunPath = { ...samplesTogether, runsPartsInChildren: true };
