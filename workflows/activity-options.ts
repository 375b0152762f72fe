import { ActivityCancellationType, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { RunRequest } from '../src/run/request';
import { CALL_CEILING_SECONDS, FAILURE, NON_RETRYABLE_FAILURES } from '../src/run/wire';
import type { RunPath } from './paths/run-path';

/** Local steps (checking the request, splits, scores no LLM step made): short, and a bad input is not retried. */
export const LOCAL_STEP_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.validation] },
};

/** How a run's LLM steps are called: its timeouts and retry policy (the run's and its child workflows' alike). */
export function llmOptionsOf({ llm }: Pick<RunRequest, 'llm'>, path: Pick<RunPath, 'callsEndedByProgress'>): ActivityOptions {
  return {
    // A cancelled run ends at once; each running LLM call learns of the cancel at its next heartbeat and aborts its request.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    // Durations in milliseconds: the SDK parses duration strings again for every activity it schedules.
    // Since `patient-calls` a request ends itself (its timeout or stall) and the call is only capped, so a slow answer still coming is not cut.
    startToCloseTimeout: (path.callsEndedByProgress ? CALL_CEILING_SECONDS : llm.timeoutSeconds) * 1000,
    // A worker that dies mid-call is noticed within this, not after the whole call timeout.
    heartbeatTimeout: llm.heartbeatSeconds * 1000,
    retry: {
      initialInterval: 1_000,
      backoffCoefficient: 2,
      maximumInterval: 60_000,
      maximumAttempts: llm.maxAttempts,
      nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURES],
    },
  };
}
