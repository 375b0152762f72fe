import { callsLlm } from '../src/goo/graph';
import type { Operation } from '../src/goo/schema';
import type { Grs, Thought } from '../src/grs/types';

/** Where a run that ended without a valid final thought lost its way, in words a person can act on. */
export interface NoAnswer {
  operation: string;
  reason: string;
}

/**
 * Undefined when a final thought is valid. Otherwise the first operation (in the GoO's order, LLM
 * steps before filters) that had input thoughts yet made no valid one, with the reason its thoughts
 * give and the start of what the model said.
 */
export function noAnswerOf(graph: Grs, final: Thought[], order: readonly Operation[]): NoAnswer | undefined {
  if (final.some((t) => t.valid)) return undefined;
  const thoughts = new Map(graph.thoughts.map((t) => [t.id, t]));
  const records = new Map(graph.operations.map((o) => [o.id, o]));
  const yieldedNothing = (op: Operation) => {
    const record = records.get(op.id);
    return (
      !!record &&
      record.status !== 'pending' &&
      record.inputThoughts.length > 0 &&
      !record.outputThoughts.some((id) => thoughts.get(id)?.valid)
    );
  };
  const culprit = order.find((op) => callsLlm(op) && yieldedNothing(op)) ?? order.find(yieldedNothing) ?? order.at(-1);
  if (!culprit) return { operation: '(none)', reason: 'the GoO has no operation' };
  const record = records.get(culprit.id)!;
  const outputs = record.outputThoughts.map((id) => thoughts.get(id)!).filter(Boolean);
  if (graph.budgetExhausted && !outputs.length)
    return { operation: culprit.id, reason: 'the budget was spent before it could ask the model' };
  if (!outputs.length) return { operation: culprit.id, reason: `it produced no thoughts${record.note ? ` (${record.note})` : ''}` };
  const example = outputs.find((t) => t.error) ?? outputs[0]!;
  const text = example.said ?? (typeof example.state.answer === 'string' ? example.state.answer : '');
  const said = text.replace(/\s+/g, ' ').trim();
  const quote = said ? `; the model said: "${said.length > 160 ? `${said.slice(0, 159)}…` : said}"` : '';
  return {
    operation: culprit.id,
    reason: `${outputs.length} thought${outputs.length === 1 ? '' : 's'}, none valid: ${example.error ?? 'invalid'}${quote}`,
  };
}
