/**
 * The clause comparison's merges measured anew (decision 99): when the review's measures change, the
 * runs already made are measured again from their histories on the local dev server (kept 30 days),
 * not run again. For each cell folder, each finished run's best merge is read from its result and
 * reviewed by the current code; the measures go to the cell's `remeasured.jsonl` (one line per run,
 * the measure's decision number with it), which the report prefers to the journal's own. Resumable: a
 * run measured under the current decision is skipped.
 *
 * `--rejoin` (clause-scheme cells only): the merge is joined anew from the group clauses the run's
 * join received (`joinGroups` of the current code), so the same model answers are measured as the
 * current join would have put them together; such lines say `rejoined`.
 *
 * Run: `npx tsx scripts/eval-qwen-remeasure.ts [--rejoin] <cell folder>...` (the dev server running).
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { withCliClient } from '../src/cli/cli-client';
import { reviewMerge } from '../src/documents/review';
import { ResultJournal } from '../src/eval/results';
import { type ReviewMeasures, reviewMeasuresOf } from '../src/eval/review-measures';
import type { Thought } from '../src/grs/types';
import type { RunResult } from '../src/run/request';
import { joinGroups } from '../src/tasks/doc-merge/clause-groups/scheme';
import { isGroupState } from '../src/tasks/doc-merge/clause-groups/task';
import { linesByRun, ndaProblems } from './eval-qwen-runs';

/** The decision whose measures these are: a line of another is measured again. */
export const MEASURES = 99;
export const REMEASURED_FILE = 'remeasured.jsonl';

export interface Remeasured extends ReviewMeasures {
  workflowId: string;
  measures: number;
  rejoined?: true;
}

/** A cell's measured-anew lines by workflow id (the latest per run). */
export const remeasured = (folder: string): Map<string, Remeasured> => linesByRun<Remeasured>(folder, REMEASURED_FILE);

/** The merge the run's join would give now: its group clauses joined by the current code. */
function rejoined(result: RunResult, problem: { documents: string[] }): string | undefined {
  const thoughts = new Map(result.grs.thoughts.map((t) => [t.id, t]));
  const join = result.best && thoughts.get(result.best.id);
  if (join?.state.joined !== true) return undefined;
  const states = join.parents.map((p) => thoughts.get(p)?.state).filter((s): s is Thought['state'] => s !== undefined && isGroupState(s));
  return joinGroups(states as never, problem);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rejoin = args.includes('--rejoin');
  const folders = args.filter((a) => !a.startsWith('--'));
  if (!folders.length) throw new Error('usage: eval-qwen-remeasure.ts [--rejoin] <cell folder>...');
  const { file: dataset, problems } = ndaProblems();
  await withCliClient(console.log, async ({ client }) => {
    for (const folder of folders) {
      const done = remeasured(folder);
      const runs = new ResultJournal(join(folder, 'runs.jsonl')).read().filter((r) => r.status === 'completed');
      for (const run of runs) {
        if (done.get(run.workflowId)?.measures === MEASURES) continue;
        const problem = problems.get(run.sample);
        if (!problem) throw new Error(`${folder}: no NDA row ${run.sample} in ${dataset}`);
        const result = (await client.workflow.getHandle(run.workflowId).result()) as RunResult;
        const again = rejoin ? rejoined(result, problem) : undefined;
        const merged = again ?? (result.best?.state.merged as string | undefined);
        if (typeof merged !== 'string') continue;
        const line: Remeasured = { workflowId: run.workflowId, measures: MEASURES, ...reviewMeasuresOf(reviewMerge(problem, merged)) };
        if (again !== undefined) line.rejoined = true;
        appendFileSync(join(folder, REMEASURED_FILE), `${JSON.stringify(line)}\n`);
        console.log(
          `${folder} ${run.scheme}/${run.sample}: kept ${run.kept} -> ${line.kept}, unsupported ${run.unsupported} -> ${line.unsupported}, repeated ${run.repeated} -> ${line.repeated}`,
        );
      }
    }
  });
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
