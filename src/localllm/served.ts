/** One line on what a local server did, for `got local-llm`'s last line and `got doctor`. */
import type { LocalLlmStats } from './server';

/** What a local server did: prompt tokens read and taken from the prefix cache, predictions checked. */
export function servedSummary(s: LocalLlmStats): string {
  const read = s.promptTokens - s.cachedPromptTokens;
  const checked = s.predictions.validated + s.predictions.refuted;
  return (
    `Served ${s.completed} request(s): ${s.promptTokens.toLocaleString('en-US')} prompt tokens, ${read.toLocaleString('en-US')} read and ` +
    `${s.cachedPromptTokens.toLocaleString('en-US')} taken from the prefix cache; ${s.completionTokens.toLocaleString('en-US')} completion tokens` +
    (checked > 0 ? `, ${s.predictions.validated} of ${checked} predicted tokens accepted.` : '.')
  );
}
