import type { LocalCheck, PreparedRun } from '../../activities';
import { analyzeGoO, everyOperation } from '../../src/goo/graph';
import type { Operation } from '../../src/goo/schema';
import type { RunRequest } from '../../src/run/request';
import { asRunFailure } from '../failures';
import type { RunPath } from './run-path';

/**
 * Runs started since the `fast-steps` patch (docs/decisions.md, 16): the worker checks the request
 * (the schema library stays out of the workflow, whose modules are evaluated again for every run),
 * LLM steps check the thoughts they make, filters finish in the same turn and a free call slot is
 * taken at once: one workflow activation per dependent step instead of two.
 */
export const fastSteps: RunPath = {
  async prepare(input, { local, markStarted, markEnded }) {
    let prepared: PreparedRun;
    try {
      prepared = await local.prepareRun(input);
    } catch (error) {
      markEnded(error);
      throw asRunFailure(error);
    }
    // The task's reading of the problem where it differs from what was sent; else the problem as sent.
    const problem = 'problem' in prepared ? prepared.problem : input.problem;
    const request = { ...prepared.request!, problem } as RunRequest;
    markStarted(request);
    return { request, analyzed: analyzeGoO(request.goo), prepared };
  },
  checksOf: localChecksOf,
  finishesInTurn: true,
  takesFreeSlotAtOnce: true,
  survivesUnusableAnswers: false,
  sizesTimeoutsByTokens: false,
  problemByReference: false,
  boundsInlineBytes: false,
};

/** The task's local checks a GoO uses, so its LLM steps compute them on each new thought. */
function localChecksOf(operations: readonly Operation[]): LocalCheck[] {
  const used = new Set<LocalCheck>();
  // forEach bodies included: their operations check the thoughts the run's LLM steps make like any other.
  everyOperation(operations, (op) => {
    if (op.type === 'score' && (op.scorer.kind === 'local' || (op.scorer.kind === 'human' && op.scorer.fallback === 'local')))
      used.add('score');
    if (op.type === 'groundTruth') used.add('groundTruth');
    if (op.type === 'validateAndImprove') used.add('validate');
  });
  return [...used];
}
