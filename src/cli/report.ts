import { retentionLine } from '../documents/retention';
import type { Disagreement, ReviewRecord, SourceRetention } from '../documents/types';
import { describeRefusals, noRefusals, type Refusals } from '../llm/refusals';
import { bestReview } from '../run/outcome';
import type { RunResult } from '../run/request';

/** The engine's review of a merge, as the report gives it: counts, the unsupported clauses, the disagreements. */
export interface ReviewSummary {
  clauses: number;
  supported: number;
  unsupported: number;
  /** Clauses saying again what an earlier clause says (absent from reviews made before it was counted). */
  repeated?: number;
  /** The text of each clause no source supports (possibly invented by the model). */
  unsupportedClauses: string[];
  disagreements: Disagreement[];
  /** Per source: its clauses and how many the merge keeps (absent from reviews made before it was measured). */
  retention?: SourceRetention[];
  /** Sources' display names, by document index (what `disagreements` and clauses' sources refer to). */
  documents: string[];
  /** Decisions a person sent (`--review`); absent when the run did not wait for any. */
  decisions?: number;
  decisionsTimedOut?: true;
}

export interface RunReport {
  workflowId: string;
  runId: string;
  webUi: string;
  task: string;
  labels: Record<string, string | number>;
  best?: { id: string; score?: number; solved?: boolean; valid: boolean; answer: string };
  /** `noAnswer` when no final thought is valid (runs recorded before this was reported have none). */
  status?: 'answered' | 'noAnswer';
  /** Where a run with no answer lost its way. */
  noAnswer?: { operation: string; reason: string };
  llmCalls: number;
  promptTokens: number;
  /** Of the prompt tokens, those the endpoint took from its prompt cache (absent when it said of none). */
  cachedPromptTokens?: number;
  completionTokens: number;
  costUsd: number;
  budgetExhausted: boolean;
  wallMs: number;
  /** Document merges: where the merge's clauses came from and where the sources disagree. */
  review?: ReviewSummary;
  /** Sum of the LLM calls' latencies: what a sequential Controller would wait at least. */
  summedLlmLatencyMs: number;
  thoughts: number;
  /** Requests the endpoint refused and that were sent again inside their calls (decision 90); absent when none was. */
  refused?: Refusals;
  /** Samples kept from attempts that were lost, not asked for again. */
  resumedSamples?: number;
}

export function reportOf(
  result: RunResult,
  ids: { workflowId: string; runId: string; webUi: string },
  wallMs: number,
  answerText: (state: Record<string, unknown>) => string,
): RunReport {
  const { grs, best } = result;
  const review = bestReview(result);
  // A person's decisions make the answer: the merge with the values they chose.
  const answer = (state: Record<string, unknown>) => review?.decidedText ?? answerText(state);
  return {
    ...ids,
    task: result.task,
    labels: result.labels,
    ...(best ? { best: { id: best.id, score: best.score, solved: best.solved, valid: best.valid, answer: answer(best.state) } } : {}),
    ...(review ? { review: summaryOf(review, answer(best!.state)) } : {}),
    ...(result.status ? { status: result.status } : {}),
    ...(result.noAnswer ? { noAnswer: result.noAnswer } : {}),
    llmCalls: grs.totals.llmCalls,
    promptTokens: grs.totals.promptTokens,
    ...(grs.totals.cachedPromptTokens ? { cachedPromptTokens: grs.totals.cachedPromptTokens } : {}),
    completionTokens: grs.totals.completionTokens,
    costUsd: grs.totals.costUsd,
    budgetExhausted: grs.budgetExhausted,
    wallMs,
    summedLlmLatencyMs: grs.calls.reduce((sum, c) => sum + c.latencyMs, 0),
    thoughts: grs.thoughts.length,
    ...refusalsOf(grs.calls),
  };
}

/** What the endpoint refused over the run's calls, and the samples kept from lost attempts. */
function refusalsOf(calls: RunResult['grs']['calls']): Pick<RunReport, 'refused' | 'resumedSamples'> {
  const refused = noRefusals();
  let resumed = 0;
  for (const c of calls) {
    resumed += c.resumed ?? 0;
    if (!c.refused) continue;
    refused.requests += c.refused.requests;
    refused.waitedMs += c.refused.waitedMs;
    for (const [kind, n] of Object.entries(c.refused.byKind)) refused.byKind[kind] = (refused.byKind[kind] ?? 0) + n;
  }
  return { ...(refused.requests ? { refused } : {}), ...(resumed ? { resumedSamples: resumed } : {}) };
}

/** The provider's refusals in a line: how many, of what, and the waiting they cost. */
function providerLine(r: RunReport): string {
  const parts = [
    ...(r.refused
      ? [
          `${r.refused.requests} request(s) refused and sent again (${describeRefusals(r.refused)}), ${(r.refused.waitedMs / 1000).toFixed(1)} s of waits`,
        ]
      : []),
    ...(r.resumedSamples ? [`${r.resumedSamples} sample(s) kept from lost attempts`] : []),
  ];
  return parts.join(' · ');
}

function summaryOf(review: ReviewRecord, text: string): ReviewSummary {
  return {
    ...review.counts,
    unsupportedClauses: review.clauses.filter((c) => !c.supported).map((c) => text.slice(c.start, c.end)),
    disagreements: review.disagreements,
    documents: review.documents,
    ...(review.retention ? { retention: review.retention } : {}),
    ...(review.decisions ? { decisions: review.decisions.length } : {}),
    ...(review.decisionsTimedOut ? { decisionsTimedOut: true as const } : {}),
  };
}

/** The review in a line: clauses traced, unsupported, disagreements and what became of them. */
function reviewLine(r: ReviewSummary): string {
  const decided =
    r.decisions !== undefined ? ` (${r.decisions} decided by a person)` : r.decisionsTimedOut ? ' (no decision came in time)' : '';
  const repeated = r.repeated ? `, ${r.repeated} repeating an earlier clause` : '';
  return `${r.clauses} clauses: ${r.supported} traced to the sources, ${r.unsupported} unsupported (possibly invented)${repeated} · ${r.disagreements.length} disagreement(s) between the sources${decided}`;
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function formatReport(r: RunReport): string {
  const labels = Object.entries(r.labels)
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
  const best = r.best
    ? `${r.best.id}  score ${r.best.score === undefined ? 'n/a' : Math.round(r.best.score * 1000) / 1000}${r.best.solved === undefined ? '' : r.best.solved ? '  (solved)' : '  (not solved)'}`
    : 'none (no final thought was scored)';
  const answer = r.best ? truncate(r.best.answer.replace(/\s+/g, ' '), 160) : '';
  const speedup = r.wallMs > 0 ? r.summedLlmLatencyMs / r.wallMs : 0;
  return [
    `run ${r.workflowId}`,
    `  task ${r.task}${labels ? ` · ${labels}` : ''}`,
    ...(r.noAnswer ? [`  NO ANSWER     ${r.noAnswer.operation}: ${truncate(r.noAnswer.reason, 300)}`] : []),
    `  best thought  ${best}`,
    ...(answer ? [`  answer        ${answer}`] : []),
    ...(r.review ? [`  sources       ${reviewLine(r.review)}`] : []),
    ...(r.review?.retention ? [`  kept          ${retentionLine(r.review.retention, r.review.documents)}`] : []),
    `  LLM           ${r.llmCalls} calls · ${r.promptTokens.toLocaleString('en')} prompt${r.cachedPromptTokens ? ` (${r.cachedPromptTokens.toLocaleString('en')} from the cache)` : ''} + ${r.completionTokens.toLocaleString('en')} completion tokens · $${r.costUsd.toFixed(4)}${r.budgetExhausted ? ' · budget exhausted' : ''}`,
    ...(r.refused || r.resumedSamples ? [`  provider      ${providerLine(r)}`] : []),
    `  graph         ${r.thoughts} thoughts`,
    `  time          ${(r.wallMs / 1000).toFixed(2)} s wall · ${(r.summedLlmLatencyMs / 1000).toFixed(2)} s of LLM calls${speedup > 1 ? ` (${speedup.toFixed(1)}x from running branches in parallel)` : ''}`,
    `  Web UI        ${r.webUi}`,
  ].join('\n');
}
