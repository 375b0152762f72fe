import { type Issue, structureOf } from '../goo/graph';
import type { ForEachOperation } from '../goo/grow';
import type { Operation } from '../goo/schema';
import { widthOf } from '../run/footprint';

/**
 * Which of a forEach's parts run in child workflows, and in which batches (decision 71). Pure: the
 * Controller and the tests read it; the workflow imports it, so it stays free of the schema library.
 */

/**
 * An upper bound on the LLM calls one part of `forEach` makes: every body operation's calls on the
 * most thoughts it can receive, a nested forEach counting each of its parts. Re-asks are left out:
 * they happen on unusable answers only, and a child's event cap is several times its `maxCalls`.
 */
export function callsPerPart(forEach: ForEachOperation, perSample: boolean): number {
  return scopeCalls(forEach.body, perSample).calls;
}

function scopeCalls(ops: readonly Operation[], perSample: boolean): { calls: number; out: number } {
  const { order, sinks } = structureOf(ops);
  const byId = new Map(ops.map((op) => [op.id, op]));
  const thoughts = new Map<string, number>();
  let calls = 0;
  for (const id of order) {
    const op = byId.get(id)!;
    // An operation without inputs starts from its part's thoughts: one (a split's part, or an input thought).
    const inputs = op.inputs.length === 0 ? 1 : op.inputs.reduce((sum, i) => sum + thoughts.get(i)!, 0);
    if (op.type === 'forEach') {
      const parts = op.parts === 'each' ? Math.min(inputs, op.maxParts) : op.maxParts;
      const body = scopeCalls(op.body, perSample);
      calls += parts * body.calls;
      thoughts.set(id, op.body.length ? parts * body.out : parts);
      continue;
    }
    const width = widthOf(op, inputs, perSample);
    calls += width.calls;
    thoughts.set(id, width.out);
  }
  return { calls, out: sinks.reduce((sum, id) => sum + thoughts.get(id)!, 0) };
}

/** A forEach body a person takes part in (a human Score) runs in the run's own history, where the person's scores arrive. */
export function needsThePerson(body: readonly Operation[]): boolean {
  return body.some((op) => (op.type === 'score' && op.scorer.kind === 'human') || (op.type === 'forEach' && needsThePerson(op.body)));
}

/**
 * The batches of parts to run in child workflows, each a list of part indices (in part order) worth at
 * most `maxCalls` calls; none (run them here) when they fit this history beside the `here` calls it
 * already holds, when the body calls no LLM, or when a person takes part. A part worth more than
 * `maxCalls` gets a batch of its own, where a nested forEach splits it further.
 */
export function partBatches(
  forEach: ForEachOperation,
  running: readonly number[],
  o: { perSample: boolean; maxCalls: number; here: number },
): number[][] | undefined {
  const perPart = callsPerPart(forEach, o.perSample);
  if (perPart === 0 || o.here + perPart * running.length <= o.maxCalls || needsThePerson(forEach.body)) return undefined;
  const size = Math.max(1, Math.floor(o.maxCalls / perPart));
  const batches: number[][] = [];
  for (let i = 0; i < running.length; i += size) batches.push(running.slice(i, i + size));
  return batches;
}

/** The budget a child may spend: an even share of what is neither spent nor held by children running, among the batches not yet started. */
export interface BudgetLimits {
  maxCostUsd?: number;
  maxTokens?: number;
}

export function budgetShare(budget: BudgetLimits, used: { costUsd: number; tokens: number }, waiting: number): BudgetLimits {
  const share = (limit: number, spent: number) => Math.max(0, limit - spent) / Math.max(1, waiting);
  return {
    ...(budget.maxCostUsd !== undefined ? { maxCostUsd: share(budget.maxCostUsd, used.costUsd) } : {}),
    ...(budget.maxTokens !== undefined ? { maxTokens: Math.floor(share(budget.maxTokens, used.tokens)) } : {}),
  };
}

/**
 * What one run's own history may hold (decision 71): an LLM call takes about four events there
 * (scheduled, started, completed, and its share of workflow tasks) and a child workflow about seven
 * (initiated, started, completed and the workflow task each wakes). Kept well under Temporal's 51,200.
 */
export const RUN_HISTORY = { maxEvents: 40_000, eventsPerCall: 4, eventsPerChild: 7 } as const;

/**
 * The most events the run's own history may reach, by the rules `partBatches` applies when the run
 * meets each forEach at its largest (`maxParts` parts): calls the run makes itself, and its children.
 */
export function runHistoryEstimate(
  operations: readonly Operation[],
  o: { perSample: boolean; maxCalls: number },
): { events: number; children: number; calls: number; widest?: { forEach: string; children: number } } {
  const { order } = structureOf(operations);
  const byId = new Map(operations.map((op) => [op.id, op]));
  const thoughts = new Map<string, number>();
  let calls = 0;
  let children = 0;
  let widest: { forEach: string; children: number } | undefined;
  for (const id of order) {
    const op = byId.get(id)!;
    const inputs = op.inputs.length === 0 ? 1 : op.inputs.reduce((sum, i) => sum + thoughts.get(i)!, 0);
    if (op.type === 'forEach') {
      const parts = op.parts === 'each' ? Math.min(inputs, op.maxParts) : op.maxParts;
      const perPart = callsPerPart(op, o.perSample);
      const body = scopeCalls(op.body, o.perSample);
      thoughts.set(id, op.body.length ? parts * body.out : parts);
      const running = Array.from({ length: parts }, (_, i) => i);
      const batches = partBatches(op, running, { ...o, here: calls });
      if (batches) {
        children += batches.length;
        if (!widest || batches.length > widest.children) widest = { forEach: id, children: batches.length };
      } else calls += perPart * parts;
      continue;
    }
    const width = widthOf(op, inputs, o.perSample);
    calls += width.calls;
    thoughts.set(id, width.out);
  }
  const events = calls * RUN_HISTORY.eventsPerCall + children * RUN_HISTORY.eventsPerChild;
  return { events, children, calls, ...(widest ? { widest } : {}) };
}

/** A run whose own history could pass {@link RUN_HISTORY}'s bound, refused before it starts: the issue names the forEach and what would help. */
export function runHistoryIssues(operations: readonly Operation[], o: { perSample: boolean; maxCalls: number }): Issue[] {
  const { events, children, calls, widest } = runHistoryEstimate(operations, o);
  if (events <= RUN_HISTORY.maxEvents) return [];
  const where = widest
    ? `forEach "${widest.forEach}" may start ${widest.children} child workflows`
    : `its operations may make ${calls} LLM calls in the run's own history`;
  return [
    {
      path: 'goo.operations',
      message: `the run's own history could reach ${events} events (${calls} LLM calls, ${children} child workflows), over the ${RUN_HISTORY.maxEvents} one history may hold here: ${where}; raise children.maxCalls (now ${o.maxCalls}) so each child holds more parts, or lower maxParts`,
    },
  ];
}
