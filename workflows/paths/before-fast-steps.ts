import { ApplicationFailure } from '@temporalio/workflow';
import type { AnalyzedGoO } from '../../src/goo/graph';
import { ValidationError } from '../../src/goo/graph';
import type { RunRequest } from '../../src/run/request';
import { FAILURE } from '../../src/run/wire';
import type { RunPath } from './run-path';

/**
 * Runs recorded before the `fast-steps` patch replay on this path, as they ran: the request is
 * parsed here (the schema library loaded for them only), then checked again by the worker; local
 * checks are local activities, filters settle a turn later, every call waits a turn for its slot.
 * Delete this file once no such run can still be running (docs/decisions.md, 16).
 */
export const beforeFastSteps: RunPath = {
  async prepare(input, { local, humans, markStarted, markEnded }) {
    // webpack keeps an eager dynamic import in the bundle, evaluated on first use only.
    const [{ RunRequest, HumanScores }, { parseOrThrow, validateGoO }] = await Promise.all([
      import(/* webpackMode: "eager" */ '../../src/run/request'),
      import(/* webpackMode: "eager" */ '../../src/goo/validate'),
    ]);
    humans.useSchema(HumanScores);
    let request: RunRequest;
    let analyzed: AnalyzedGoO;
    try {
      const sent = parseOrThrow(RunRequest, input, 'run request');
      // This generation never expanded named schemes: a request without a GoO is refused here.
      analyzed = validateGoO(sent.goo);
      request = sent as RunRequest;
    } catch (e) {
      // A thrown plain Error would retry the workflow task forever; a bad request must fail the run at once.
      if (e instanceof ValidationError) throw ApplicationFailure.nonRetryable(e.message, FAILURE.validation, e.issues);
      throw e;
    }
    markStarted(request);
    try {
      return { request, analyzed, prepared: await local.prepareRun(request) };
    } catch (error) {
      markEnded(error);
      throw error;
    }
  },
  checksOf: () => [],
  finishesInTurn: false,
  takesFreeSlotAtOnce: false,
  survivesUnusableAnswers: false,
  sizesTimeoutsByTokens: false,
  problemByReference: false,
  boundsInlineBytes: false,
};
