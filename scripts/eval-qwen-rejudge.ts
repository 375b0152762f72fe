/**
 * The clause comparison's merges judged afresh (decision 99): one new judge call (the paper's
 * prompt, `SAMPLES` samples, the evaluation's temperature) on each run's final merge, written to the
 * cell's `rejudged.jsonl`. Why: a GoT or ToT run's own score is the judge's score of the thought it
 * kept *because* the judge scored it highest among many, so noise in the judge lifts it (the best of
 * several noisy draws); a merge judged once, as the clause scheme's joined merge is, gets no such
 * lift. A fresh call on every scheme's final merge compares them alike. Resumable: runs judged
 * already are skipped.
 *
 * Run (a local model served, e.g. `got local-llm --local-model qwen2.5-coder-1.5b --port 8011`, and
 * the dev server holding the runs):
 *   OPENAI_BASE_URL=http://127.0.0.1:8011/v1 npx tsx scripts/eval-qwen-rejudge.ts <cell folder>...
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { withCliClient } from '../src/cli/cli-client';
import { ResultJournal } from '../src/eval/results';
import type { RunResult } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge/index';
import { linesByRun, ndaProblems } from './eval-qwen-runs';

export const REJUDGED_FILE = 'rejudged.jsonl';
const SAMPLES = Number(process.env.SAMPLES ?? 3);
const TEMPERATURE = Number(process.env.TEMPERATURE ?? 1.0);
/** As the evaluation's merge cells allow (scripts/eval-qwen.sh): a judge that writes its reasons first needs the room. */
const MAX_TOKENS = Number(process.env.MAX_TOKENS ?? 1536);

export interface Rejudged {
  workflowId: string;
  /** The judge's combined score of the final merge (the paper's: each rating averaged, then their harmonic mean). */
  score: number;
  /** [redundancy, retention] per sample; null for a sample it could not read. */
  ratings: (number[] | null)[];
}

/** A cell's fresh judge scores by workflow id. */
export const rejudged = (folder: string): Map<string, Rejudged> => linesByRun<Rejudged>(folder, REJUDGED_FILE);

async function main(): Promise<void> {
  const folders = process.argv.slice(2);
  if (!folders.length) throw new Error('usage: eval-qwen-rejudge.ts <cell folder>...');
  const { problems } = ndaProblems();
  const llm = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'local' });
  const model = (await llm.models.list()).data[0]!.id;
  const judge = docMergeTask.llmScorers!.judge!;
  await withCliClient(console.log, async ({ client }) => {
    for (const folder of folders) {
      const done = rejudged(folder);
      for (const run of new ResultJournal(join(folder, 'runs.jsonl')).read().filter((r) => r.status === 'completed')) {
        if (done.has(run.workflowId)) continue;
        const problem = problems.get(run.sample)!;
        const result = (await client.workflow.getHandle(run.workflowId).result()) as RunResult;
        const merged = result.best?.state.merged;
        if (typeof merged !== 'string') continue;
        // Every document: the final merge is the merge of all of them.
        const state = { documents: problem.documents.map((_, i) => i), merged };
        const answer = await llm.chat.completions.create({
          model,
          messages: judge.buildPrompt(state, problem) as OpenAI.ChatCompletionMessageParam[],
          n: SAMPLES,
          temperature: TEMPERATURE,
          max_tokens: MAX_TOKENS,
        });
        const ratings = answer.choices.map((c) => judge.parseRatings(c.message.content ?? '') ?? null);
        const read = ratings.filter((r): r is number[] => r !== null);
        const score = read.length ? judge.combine(read, { state, problem }) : judge.unparseableScore;
        const line: Rejudged = { workflowId: run.workflowId, score, ratings };
        appendFileSync(join(folder, REJUDGED_FILE), `${JSON.stringify(line)}\n`);
        console.log(
          `${folder} ${run.scheme}/${run.sample}: own score ${run.score?.toFixed(2)}, fresh ${score.toFixed(2)} ${JSON.stringify(ratings)}`,
        );
      }
    }
  });
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
