import { writeFileSync } from 'node:fs';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { retentionLine } from '../../documents/retention';
import { describeFork } from '../../fork/describe';
import { bestThought, formatScore, operationTimings, thoughtsById, volume } from '../../grs/analysis';
import { toDot, toJson, toMermaid } from '../../grs/export';
import { toHtml } from '../../grs/html';
import type { Grs } from '../../grs/types';
import { inspectRun, runRequestOf } from '../../inspect/rebuild';
import { describeSteer } from '../../steering/describe';
import { resolveTask } from '../../tasks/registry';
import type { AnyTask } from '../../tasks/task';
import { withCliClient } from '../cli-client';

import type { InspectFormat } from './inspect-formats';

export { INSPECT_FORMATS, type InspectFormat } from './inspect-formats';

export interface InspectOptions {
  runId?: string;
  format: InspectFormat;
  out?: string;
}

/** Renders a rebuilt GRS in one of the export formats; `task` knows its answers and score direction. */
export function renderGrs(grs: Grs, format: InspectFormat, title: string, task: AnyTask): string {
  const best = bestThought(grs, task.higherIsBetter);
  switch (format) {
    case 'json':
      return toJson(grs, best?.id);
    case 'dot':
      return toDot(grs, best?.id);
    case 'mermaid':
      return toMermaid(grs, best?.id);
    case 'html':
      return toHtml(grs, {
        title,
        ...(best ? { bestId: best.id } : {}),
        answers: Object.fromEntries(grs.thoughts.map((t) => [t.id, task.answerText(t.state)])),
        higherIsBetter: task.higherIsBetter,
      });
    case 'summary':
      return summary(grs, title, best?.id);
  }
}

function summary(grs: Grs, title: string, bestId: string | undefined): string {
  const index = thoughtsById(grs);
  const best = bestId ? index.get(bestId) : undefined;
  const ops = operationTimings(grs).map(
    (o) => `    ${o.id.padEnd(18)} ${o.type.padEnd(18)} ${o.status.padEnd(8)} ${o.ms === undefined ? '' : `${o.ms} ms`}`,
  );
  return [
    `GRS of ${title} (rebuilt from its event history)`,
    `  task ${grs.task} · ${grs.thoughts.length} thoughts · ${grs.totals.llmCalls} LLM calls · ${grs.totals.promptTokens + grs.totals.completionTokens} tokens · $${grs.totals.costUsd.toFixed(4)}${grs.budgetExhausted ? ' · budget exhausted' : ''}`,
    best
      ? `  best thought ${best.id}: score ${best.score === undefined ? '—' : formatScore(best.score)}${best.solved ? ' (solved)' : ''}, volume ${volume(grs, best.id, index)}`
      : '  no scored final thought',
    ...(grs.fork ? [`  ${describeFork(grs)}`] : []),
    ...(grs.steering ?? []).map((s) => `  steered at ${new Date(s.at).toISOString()}: ${describeSteer(s)}`),
    ...(grs.review
      ? [
          `  review of ${grs.review.thought}: ${grs.review.counts.supported} of ${grs.review.counts.clauses} clauses traced to the sources, ${grs.review.counts.unsupported} unsupported${grs.review.counts.repeated ? `, ${grs.review.counts.repeated} repeating an earlier clause` : ''} · ${grs.review.disagreements.length} disagreement(s)${grs.review.decisions ? ` · ${grs.review.decisions.length} decided by a person` : ''} (--format html shows each clause's sources)`,
          ...(grs.review.retention ? [`  kept of the sources: ${retentionLine(grs.review.retention, grs.review.documents)}`] : []),
        ]
      : []),
    `  operations:`,
    ...ops,
    '',
  ].join('\n');
}

/** `got inspect <workflowId>`: fetches the run's history and rebuilds its GRS from it alone. */
export async function inspectCommand(workflowId: string, o: InspectOptions, log: (line: string) => void): Promise<void> {
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('WARN') });
  await withCliClient(log, async ({ client, dataConverter }) => {
    const { grs, history } = await inspectRun(client, workflowId, o.runId);
    // The task as the run knew it: a built-in id, or a declaration carried by the request.
    const task = resolveTask((await runRequestOf(history, dataConverter)).task);
    const text = renderGrs(grs, o.format, workflowId, task);
    if (o.out) {
      writeFileSync(o.out, text);
      log(`Wrote the ${o.format} of ${workflowId} to ${o.out}`);
    } else process.stdout.write(text);
  });
}
