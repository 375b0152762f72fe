import type { Usage } from '../grs/types';

export interface Prices {
  inputPerMTok: number;
  outputPerMTok: number;
}

export function costOf(usage: Usage, prices: Prices): number {
  return (usage.promptTokens * prices.inputPerMTok + usage.completionTokens * prices.outputPerMTok) / 1_000_000;
}
