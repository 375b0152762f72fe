import { ApplicationFailure } from '@temporalio/workflow';
import { FAILURE } from '../src/run/wire';
import type { OperationFailure } from './scheduler';

/** The innermost message of a failure chain ("Activity task failed" wraps what actually went wrong). */
export function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** The run's failure when one of its operations failed: names the operation and why (decision 6). */
export function runFailed({ operation, error }: OperationFailure): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`run failed in operation ${operation}: ${rootCause(error)}`, FAILURE.runFailed);
}

/** A request the worker refused fails the run as a ValidationError naming the fields, like one refused in the workflow. */
export function asRunFailure(error: unknown): unknown {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === FAILURE.validation)
    return ApplicationFailure.nonRetryable(cause.message, FAILURE.validation, ...((cause.details as unknown[]) ?? []));
  return error;
}
