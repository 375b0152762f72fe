/**
 * What a steer may add to a running graph (decision 104), in a module without the schema library:
 * the workflow's check and the contract's schema read the same numbers.
 */

/** At most this many operations join a run in one steer. */
export const MAX_ADDED_OPERATIONS = 50;

/** Operation types a steer may add: those that need nothing the run set up at its start (no forEach, selector or person). */
export const ADDABLE_TYPES = [
  'generate',
  'aggregate',
  'improve',
  'validateAndImprove',
  'score',
  'keepBestN',
  'keepValidOnly',
  'groundTruth',
] as const;
