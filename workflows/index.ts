// The worker bundles this file: it must export every workflow and import only deterministic code.
export { graphOfThoughts, progressQuery, grsQuery } from './got';
export { scoreThoughtsUpdate, pendingHumanScoresQuery } from './human-scores';
