import type { SteerRequest } from './types';

/** What a steer is checked against: the run as it stands when the update arrives. */
export interface SteerableRun {
  /** The run started on a generation of the Controller that obeys steering (the `steering` patch). */
  steerable: boolean;
  /** The request was checked and the graph is running (not still being prepared). */
  started: boolean;
  /** The graph is done: the run is reviewing its answer or finishing. */
  graphDone: boolean;
  paused: boolean;
  budget?: { maxCostUsd?: number; maxTokens?: number };
  spent: { costUsd: number; tokens: number };
  /** The budget was found spent: operations it starved do not run again. */
  budgetExhausted: boolean;
}

const usd = (x: number) => `$${x.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')}`;

/**
 * Why a steer cannot apply to the run as it stands, in a sentence for the person who asked; undefined
 * when it can. The `steer` update's validator: a refused steer is never written to history.
 */
export function steeringRefusal(run: SteerableRun, steer: SteerRequest): string | undefined {
  if (!run.steerable) return 'this run started on a worker without steering (before decision 100); fork it or start it again to steer it';
  if (!run.started) return 'the run is still checking its request; steer it once it runs';
  if (run.graphDone) return 'the run has made all its LLM calls; nothing is left to steer';
  switch (steer.action) {
    case 'pause':
      return run.paused ? 'the run is paused already' : undefined;
    case 'resume':
      return run.paused ? undefined : 'the run is not paused';
    case 'budget': {
      if (run.budgetExhausted)
        return 'the budget was spent already and the operations it stopped do not run again; fork the run with a larger budget instead';
      const { maxCostUsd, maxTokens } = steer.budget;
      if (maxCostUsd !== undefined && maxCostUsd <= run.spent.costUsd)
        return `budget.maxCostUsd ${usd(maxCostUsd)} is not above what the run has spent (${usd(run.spent.costUsd)})`;
      if (maxTokens !== undefined && maxTokens <= run.spent.tokens)
        return `budget.maxTokens ${maxTokens} is not above the tokens the run has used (${run.spent.tokens})`;
      return undefined;
    }
  }
}
