import type { RunContext } from './context';

/**
 * Whether the run's budget still allows an LLM call (decision 5: a budget stops scheduling, calls in
 * flight finish). The first time it does not, the GRS records that the budget is exhausted.
 */
export function budgetLeft({ request, grs }: Pick<RunContext, 'request' | 'grs'>): boolean {
  const budget = request.budget;
  if (!budget) return true;
  const { costUsd, promptTokens, completionTokens } = grs.spent;
  const left =
    (budget.maxCostUsd === undefined || costUsd < budget.maxCostUsd) &&
    (budget.maxTokens === undefined || promptTokens + completionTokens < budget.maxTokens);
  if (!left) grs.markBudgetExhausted();
  return left;
}
