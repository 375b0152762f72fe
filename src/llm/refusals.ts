/** What a call's refused requests cost: pure, so the CLI's report reads it without loading the LLM client. */

/** What the requests of one call were refused, and how long the call waited for it. */
export interface Refusals {
  /** Requests refused or failed and sent again (or given up on). */
  requests: number;
  /** Per status ("429", "503") or kind ("timeout", "connection", "malformed"). */
  byKind: Record<string, number>;
  /** Time spent waiting before sending again, summed over the requests (they wait side by side). */
  waitedMs: number;
}

export const noRefusals = (): Refusals => ({ requests: 0, byKind: {}, waitedMs: 0 });

/** "37 × 429, 4 × 503": what a call was refused, most frequent first. */
export function describeRefusals(r: Refusals): string {
  return Object.entries(r.byKind)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, count]) => `${count} × ${kind}`)
    .join(', ');
}
