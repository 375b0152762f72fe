import { type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { UPDATE } from '../run/wire';
import type { SteerOutcome, SteerRequest } from '../steering/types';

/** A steer the run refused, with its reason ("the run is paused already"); nothing was recorded. */
export class SteerRefusedError extends Error {
  override readonly name = 'SteerRefusedError';
}

/** Steers a running run (decision 100): pause, resume or a new budget. Refused steers throw `SteerRefusedError` with the run's reason. */
export async function steerRun(handle: WorkflowHandle, steer: SteerRequest): Promise<SteerOutcome> {
  try {
    return await handle.executeUpdate<SteerOutcome, [SteerRequest]>(UPDATE.steer, { args: [steer] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) throw new SteerRefusedError(error.cause?.message ?? error.message);
    throw error;
  }
}
