// The worker bundles this file: it must export every workflow and import only deterministic code.
export { graphOfThoughts } from './got';
export { grsQuery, pendingHumanScoresQuery, progressQuery, scoreThoughtsUpdate } from './definitions';
