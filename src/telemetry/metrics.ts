import type { LlmFault } from '../llm/errors';
import type { RunStatus } from '../run/search-attributes';
import { FAILURE } from '../run/wire';

/**
 * Our Prometheus metrics, defined once: their names, what they count, their labels and, for the
 * histograms, their buckets. The workers export them beside the Temporal SDK's own (decision 53).
 * It imports only the wire names (and types), so the workflow bundle, the activities, the worker and
 * the tests all read the same names.
 *
 * Labels stay few-valued: a task id, a model name, a kind from a fixed list; never a workflow id, a
 * prompt or an error message. The SDK adds `namespace`, `taskQueue` and `activityType` (activities) or
 * `workflowType` (the workflow) to each.
 */

/** One metric: its Prometheus name, its help line, its own labels. */
export interface MetricDefinition {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
  /** Histograms only: the upper bounds of their buckets. */
  readonly buckets?: readonly number[];
}

/** How a call to an LLM's endpoint ended: `answered` calls are the paid ones. */
export type CallOutcome = 'answered' | 'cached' | 'failed' | 'cancelled';

/**
 * Why an attempt failed: the fault kinds `src/llm/errors.ts` classifies, and `lost` for an attempt
 * that timed out or whose worker died before it could say (counted by the attempt after it).
 */
export type FaultKindLabel = LlmFault['kind'] | 'lost';

/** How a run ended: the final values of its `GotStatus` search attribute. */
export type RunOutcome = Exclude<RunStatus, 'running'>;

/** The failure types a failed run is counted by: those its cause can carry (not the run's own wrapper). */
const CAUSES = Object.values(FAILURE).filter((type) => type !== FAILURE.runFailed);

/**
 * Why a failed run failed: the failure type its cause carries (`FAILURE`), `Timeout` for an LLM
 * step whose every attempt timed out, `Other` otherwise; `none` when it did not fail.
 */
export type RunFailureLabel = 'none' | (typeof CAUSES)[number] | 'Timeout' | 'Other';

/** The failure types a cause may carry to be counted by name. */
export const isCountedFailure = (type: string | undefined): type is (typeof CAUSES)[number] =>
  (CAUSES as readonly (string | undefined)[]).includes(type);

/** Seconds: from a cached answer's few milliseconds to a long generation on a slow endpoint. */
const CALL_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] as const;
/** Seconds: choosing among thoughts takes none, a merge of many sections can take many minutes. */
const OPERATION_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600] as const;

/** Every metric of ours, by role. */
export const METRIC = {
  llmCalls: {
    name: 'got_llm_calls_total',
    help: 'LLM call attempts by outcome: answered (paid), cached (from the response cache, not paid), failed, cancelled.',
    labels: ['task', 'model', 'purpose', 'outcome'],
  },
  llmFaults: {
    name: 'got_llm_faults_total',
    help: 'Failed LLM call attempts by fault kind; every kind but rejected is retried while llm.maxAttempts lasts.',
    labels: ['task', 'model', 'kind'],
  },
  llmTokens: {
    name: 'got_llm_tokens_total',
    help: 'Tokens of answered (paid) LLM calls, by type: prompt or completion.',
    labels: ['task', 'model', 'purpose', 'type'],
  },
  llmCost: {
    name: 'got_llm_cost_microdollars_total',
    help: 'Cost of answered (paid) LLM calls at the prices of their runs, in millionths of a US dollar.',
    labels: ['task', 'model', 'purpose'],
  },
  llmCallDuration: {
    name: 'got_llm_call_duration_seconds',
    help: 'How long answered LLM calls took, as the worker saw them.',
    labels: ['task', 'model', 'purpose'],
    buckets: CALL_SECONDS,
  },
  llmReasks: {
    name: 'got_llm_reasks_total',
    help: 'LLM calls made to ask again for answers that were unusable (llm.reask).',
    labels: ['task', 'purpose'],
  },
  runsStarted: {
    name: 'got_runs_started_total',
    help: 'Runs whose request was checked and which started their operations.',
    labels: ['task'],
  },
  runsFinished: {
    name: 'got_runs_finished_total',
    help: 'Runs that ended, by outcome, failure type and whether their budget was spent.',
    labels: ['task', 'outcome', 'failure', 'budget_exhausted'],
  },
  operationDuration: {
    name: 'got_operation_duration_seconds',
    help: 'How long operations that completed took, by GoO operation type (generate, aggregate, keepBestN...).',
    labels: ['type'],
    buckets: OPERATION_SECONDS,
  },
} as const satisfies Record<string, MetricDefinition>;

/** The histograms' buckets by metric name, as the SDK's Prometheus exporter takes them. */
export function histogramBuckets(): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const m of Object.values(METRIC) as MetricDefinition[]) if (m.buckets) out[m.name] = [...m.buckets];
  return out;
}

/** Millionths of a dollar: counters are integers in the SDK's core. */
export const MICRODOLLARS_PER_USD = 1_000_000;
