import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Grs } from '../src/grs/types';
import type { HumanScores, PendingHumanScore, PendingReview, Progress, ReviewDecisions } from '../src/run/request';
import { HOLD_CALLS_SIGNAL, QUERY, UPDATE } from '../src/run/wire';
import type { SteerOutcome, SteerRequest } from '../src/steering/types';

/** The `progress` query: operations done and running, calls, tokens and cost so far. */
export const progressQuery = defineQuery<Progress>(QUERY.progress);
/** The `grs` query: the Graph Reasoning State as it stands. */
export const grsQuery = defineQuery<Grs>(QUERY.grs);
/** The `pendingHumanScores` query: human Score operations waiting for a person. */
export const pendingHumanScoresQuery = defineQuery<PendingHumanScore[]>(QUERY.pendingHumanScores);
/** The `scoreThoughts` update: a person's scores for a waiting human Score operation. */
export const scoreThoughtsUpdate = defineUpdate<{ accepted: number }, [HumanScores]>(UPDATE.scoreThoughts);
/** The `pendingReview` query: the disagreements waiting for a person's decisions, or null. */
export const pendingReviewQuery = defineQuery<PendingReview | null>(QUERY.pendingReview);
/** The `decideDisagreements` update: a person's decisions on the disagreements of the reviewed answer. */
export const decideDisagreementsUpdate = defineUpdate<{ accepted: number }, [ReviewDecisions]>(UPDATE.decideDisagreements);
/** The `steer` update: pause or resume the run's LLM calls, or change its budget (decision 100). */
export const steerUpdate = defineUpdate<SteerOutcome, [SteerRequest]>(UPDATE.steer);
/** To a child workflow of parts: hold (true) or let go (false) its new LLM calls, as its run was paused or resumed. */
export const holdCallsSignal = defineSignal<[boolean]>(HOLD_CALLS_SIGNAL);
