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
  /** A fork's parent run (its workflow id, decision 102): `GotParent='<id>'` lists a run's forks. */
  parent: defineSearchAttributeKey('GotParent', SearchAttributeType.KEYWORD),
} as const;

/** The lifecycle values of the `GotStatus` search attribute. */
/** `noAnswer`: the run completed but no final thought is valid (see `RunResult.noAnswer`). */
export type RunStatus = 'running' | 'completed' | 'noAnswer' | 'failed' | 'cancelled';

// The CLI's and the operator API's names of the SDK's search attribute types.
const TYPE_NAMES = {
  KEYWORD: 'Keyword',
  DOUBLE: 'Double',
  TEXT: 'Text',
  INT: 'Int',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
} as const;

/** A search attribute type as `temporal operator search-attribute create --type` and the operator API name it. */
export type SearchAttributeTypeName = (typeof TYPE_NAMES)[keyof typeof TYPE_NAMES];

/** GOT_SEARCH_ATTRIBUTES as name → type name, the form in which they are registered on a namespace. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, SearchAttributeTypeName>> = Object.fromEntries(
  Object.values(GOT_SEARCH_ATTRIBUTES).map((key) => [key.name, TYPE_NAMES[key.type]]),
);
