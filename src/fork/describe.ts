import type { Grs } from '../grs/types';

/**
 * A fork in words, for `got inspect`, the GRS page and the Web UI: "fork of <parent> at <point> with
 * instructions for merge[3] by Ann (reason): 2 LLM calls made, 9 taken from it without a call".
 */
export function describeFork(grs: Pick<Grs, 'fork' | 'totals'>): string | undefined {
  const fork = grs.fork;
  if (!fork) return undefined;
  const instructed = fork.instructions?.length ? ` with instructions for ${fork.instructions.map((i) => i.operation).join(', ')}` : '';
  const who = fork.by ? ` by ${fork.by}${fork.reason ? ` (${fork.reason})` : ''}` : fork.reason ? ` (${fork.reason})` : '';
  const carried = fork.carriedDecisions?.length ? `; ${fork.carriedDecisions.length} of its decisions applied again` : '';
  const { llmCalls, inheritedCalls = 0 } = grs.totals;
  return `fork of ${fork.parent.workflowId}${fork.at ? ` at ${fork.at}` : ''}${instructed}${who}: ${llmCalls} LLM call${llmCalls === 1 ? '' : 's'} made, ${inheritedCalls} taken from it without a call${carried}`;
}
