// The worker bundles this file: it must export every workflow and import only deterministic code.

export { grsQuery, pendingHumanScoresQuery, progressQuery, scoreThoughtsUpdate } from './definitions';
export { graphOfThoughts } from './got';
export { providerLimit } from './limits/provider-limit';
export { graphParts } from './parts/child';
export { studyProgressQuery, trialProgressQuery } from './tune/definitions';
export { tuneStudy } from './tune/study';
export { tuneTrial } from './tune/trial';
