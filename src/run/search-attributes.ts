import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The typed search attributes every run carries, so runs can be filtered in the Web UI and with
 * `temporal workflow list --query "GotTask='sorting' AND GotStatus='completed'"`. They must be
 * registered on the namespace (the dev server setup and the worker's start do that).
 */
export const GOT_SEARCH_ATTRIBUTES = {
  task: defineSearchAttributeKey('GotTask', SearchAttributeType.KEYWORD),
  scheme: defineSearchAttributeKey('GotScheme', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('GotStatus', SearchAttributeType.KEYWORD),
  costUsd: defineSearchAttributeKey('GotCostUsd', SearchAttributeType.DOUBLE),
  bestScore: defineSearchAttributeKey('GotBestScore', SearchAttributeType.DOUBLE),
} as const;

export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled';
