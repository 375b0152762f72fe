import type { SteerEvent, SteerRequest } from './types';

/** A steer in words, for the Web UI, the HTML page and `got status`: "paused by Ann: checking the fees". */
export function describeSteer(event: SteerRequest | SteerEvent): string {
  const what =
    event.action === 'budget'
      ? `budget set to ${[
          event.budget.maxCostUsd !== undefined ? `$${event.budget.maxCostUsd}` : '',
          event.budget.maxTokens !== undefined ? `${event.budget.maxTokens.toLocaleString('en')} tokens` : '',
        ]
          .filter(Boolean)
          .join(' and ')}`
      : event.action === 'pause'
        ? 'paused: no new LLM call starts until it is resumed'
        : event.action === 'prune'
          ? event.operation !== undefined
            ? `pruned operation ${event.operation}: it does not run`
            : `pruned thought ${event.thought}: no operation starting later reads it`
          : event.action === 'instruct'
            ? `instructions for ${event.operation}: "${event.text.length > 120 ? `${event.text.slice(0, 119)}…` : event.text}"`
            : 'resumed';
  return `${what}${event.by ? ` by ${event.by}` : ''}${event.reason ? ` (${event.reason})` : ''}`;
}
