import { defineQuery } from '@temporalio/workflow';
import { STUDY_QUERY } from '../../src/run/wire';
import type { StudyProgress, TrialProgress } from '../../src/tune/results';

/** The `studyProgress` query: trials done, the best feasible so far, how many are feasible, what was spent. */
export const studyProgressQuery = defineQuery<StudyProgress>(STUDY_QUERY.studyProgress);
/** The `trialProgress` query: samples done and running, the mean score and cost so far. */
export const trialProgressQuery = defineQuery<TrialProgress>(STUDY_QUERY.trialProgress);
