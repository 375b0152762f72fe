import type { SteerEvent, SteerRequest } from './types';

/** What a steer did, without who asked. */
function whatItDid(event: SteerRequest | SteerEvent): string {
  switch (event.action) {
    case 'pause':
      return 'paused: no new LLM call starts until it is resumed';
    case 'resume':
      return 'resumed';
    case 'budget': {
      const { maxCostUsd, maxTokens } = event.budget;
      const limits = [
        maxCostUsd !== undefined ? `$${maxCostUsd}` : '',
        maxTokens !== undefined ? `${maxTokens.toLocaleString('en')} tokens` : '',
      ];
      return `budget set to ${limits.filter(Boolean).join(' and ')}`;
    }
    case 'prune':
      return event.operation !== undefined
        ? `pruned operation ${event.operation}: it does not run`
        : `pruned thought ${event.thought}: no operation starting later reads it`;
    case 'instruct':
      return `instructions for ${event.operation}: "${event.text.length > 120 ? `${event.text.slice(0, 119)}…` : event.text}"`;
    case 'add':
      return `added operation${event.operations.length === 1 ? '' : 's'} ${event.operations.map((o) => `${o.id} (${o.type})`).join(', ')}`;
  }
}

/** A steer in words, for the Web UI, the HTML page and `got status`: "paused … by Ann (checking the fees)". */
export function describeSteer(event: SteerRequest | SteerEvent): string {
  return `${whatItDid(event)}${event.by ? ` by ${event.by}` : ''}${event.reason ? ` (${event.reason})` : ''}`;
}
