/**
 * The clause-by-clause merge on a data room (issue 38): one generated room of 30 contracts of 200,000
 * characters (`generateDataRoom`, seed 1), merged on the simulator by `clauses`, io `sections=always`,
 * got and tot, one after another on one private server and worker (`npm run bench:clause-room`).
 * Per scheme, from the engine's review of the run's best merge: the share of the sources' clauses
 * kept, clauses said twice, the share no source supports, disagreements left undecided (no value or
 * several); the run's score (the simulator's judge, a proxy), LLM calls, tokens and wall time.
 * `--docs N --chars C` measures another room; `--schemes a,b` some schemes; `--with FILE` puts the rows an
 * earlier invocation printed on stderr first; `--no-write` prints only.
 */
import { readFileSync } from 'node:fs';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { retentionTotals } from '../src/documents/retention';
import { bestReview } from '../src/run/outcome';
import type { RunRequestInput } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { replaceSection } from './sections';
import { startBenchEnv } from './support';

const CONTEXT_TOKENS = 32_000;

interface Case {
  scheme: string;
  params?: Record<string, string>;
}

const CASES: Case[] = [{ scheme: 'clauses' }, { scheme: 'io', params: { sections: 'always' } }, { scheme: 'got' }, { scheme: 'tot' }];

interface Row {
  scheme: string;
  kept: number;
  repeated: number;
  unsupported: number;
  undecided: number;
  disagreements: number;
  score: string;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  wallS: number;
}

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

function requestFor(c: Case, problem: ReturnType<typeof generateDataRoom>): RunRequestInput {
  const size = problem.documents.length;
  const goo = docMergeTask.schemes[c.scheme]!({ size, problem, contextTokens: CONTEXT_TOKENS, ...(c.params ? { params: c.params } : {}) });
  return { task: 'doc-merge', problem, goo, llm: { contextTokens: CONTEXT_TOKENS }, labels: { scheme: c.scheme, size } };
}

async function measure(cases: Case[], count: number, chars: number): Promise<Row[]> {
  const problem = generateDataRoom(count, chars, 1);
  const env = await startBenchEnv({ latencyMs: 0 }, dataConverterFromEnv(process.env));
  const { taskQueue, stop } = await env.worker();
  const rows: Row[] = [];
  try {
    for (const c of cases) {
      const label = c.params ? `${c.scheme} ${Object.entries(c.params).map(([k, v]) => `${k}=${v}`)}` : c.scheme;
      const started = Date.now();
      const result = await resultOf(await startRun(env.client, requestFor(c, problem), { taskQueue }));
      const wallS = Math.round((Date.now() - started) / 100) / 10;
      const review = bestReview(result);
      if (!review) throw new Error(`${label}: the run has no reviewed merge`);
      const { clauses, kept } = retentionTotals(review.retention ?? []);
      const { totals } = result.grs;
      const row: Row = {
        scheme: label,
        kept: clauses ? kept / clauses : 0,
        repeated: review.counts.repeated ?? 0,
        unsupported: review.counts.clauses ? review.counts.unsupported / review.counts.clauses : 0,
        undecided: review.disagreements.filter((d) => new Set(d.kept.map((k) => k.normalized)).size !== 1).length,
        disagreements: review.disagreements.length,
        score: result.best?.score?.toFixed(2) ?? '-',
        llmCalls: totals.llmCalls,
        promptTokens: totals.promptTokens,
        completionTokens: totals.completionTokens,
        wallS,
      };
      console.error(JSON.stringify(row));
      rows.push(row);
    }
  } finally {
    await stop();
    await env.close();
  }
  return rows;
}

const TITLE = 'Clause-by-clause merge of a data room';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function section(rows: Row[], count: number, chars: number): string {
  return [
    `## ${TITLE}`,
    '',
    `\`npm run bench:clause-room\` on ${new Date().toISOString().slice(0, 10)} (2 cores, shared): one generated room of ${count} contracts of ${chars.toLocaleString('en')} characters, the simulated LLM (no latency), a ${CONTEXT_TOKENS / 1000}K window; the engine's review of each run's best merge. The score is the simulated judge's where the scheme's judge prompts fit the window (io, got and tot judge section by section), else the engine's (clauses: the review's retention and repeats, its judge's prompt would hold the whole room).`,
    '',
    '| scheme | sources kept | repeated clauses | unsupported | undecided / disagreements | score (simulated judge) | LLM calls | tokens (in / out) | wall |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r: Row) =>
        `| ${r.scheme} | ${pct(r.kept)} | ${r.repeated} | ${pct(r.unsupported)} | ${r.undecided} / ${r.disagreements} | ${r.score} | ${r.llmCalls} | ${r.promptTokens.toLocaleString('en')} / ${r.completionTokens.toLocaleString('en')} | ${r.wallS} s |`,
    ),
  ].join('\n');
}

const count = Number(arg('--docs') ?? 30);
const chars = Number(arg('--chars') ?? 200_000);
const only = arg('--schemes')?.split(',');
// Rows an earlier invocation printed on stderr (one JSON object a line), measured on the same room, first.
const earlier = arg('--with');
const before: Row[] = earlier
  ? readFileSync(earlier, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Row)
  : [];
const measured = await measure(only ? CASES.filter((c) => only.includes(c.scheme)) : CASES, count, chars);
const rows = [...before, ...measured];
const text = section(rows, count, chars);
console.log(text);
if (!process.argv.includes('--no-write')) replaceSection(TITLE, text);
process.exit(0);
