import type { RunContext } from './context';

/**
 * Whether the run's budget still allows an LLM call (decision 5: a budget stops scheduling, calls in
 * flight finish). The first time it does not, the GRS records that the budget is exhausted.
 */
export function budgetLeft(ctx: Pick<RunContext, 'request' | 'grs' | 'elsewhere' | 'steering'>): boolean {
  const { grs, elsewhere } = ctx;
  const budget = budgetOf(ctx);
  if (!budget) return true;
  const { costUsd, tokens } = budgetUsed({ grs, elsewhere });
  const left =
    (budget.maxCostUsd === undefined || costUsd < budget.maxCostUsd) && (budget.maxTokens === undefined || tokens < budget.maxTokens);
  if (!left) grs.markBudgetExhausted();
  return left;
}

/** The run's budget: as a person last set it (the `steer` update, decision 100), else the request's. */
export function budgetOf({ request, steering }: Pick<RunContext, 'request' | 'steering'>): RunContext['request']['budget'] {
  return steering ? steering.budget(request) : request.budget;
}

/** What the run's budget counts as used: what its GRS spent, and the shares its child workflows running hold (decision 71). */
export function budgetUsed({ grs, elsewhere }: Pick<RunContext, 'grs' | 'elsewhere'>): { costUsd: number; tokens: number } {
  const { costUsd, promptTokens, completionTokens } = grs.spent;
  return { costUsd: costUsd + elsewhere.costUsd, tokens: promptTokens + completionTokens + elsewhere.tokens };
}
