// The worker bundles this file: it must export every workflow and import only deterministic code.

export { grsQuery, pendingHumanScoresQuery, progressQuery, scoreThoughtsUpdate } from './definitions';
export { graphOfThoughts } from './got';
