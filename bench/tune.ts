import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStudy, studyResultOf } from '../src/client/studies';
import { renderFigure } from '../src/eval/figure';
import { sortingTask } from '../src/tasks/sorting';
import { paretoSpec } from '../src/tune/figure';
import type { StudyRequestInput } from '../src/tune/request';
import { isCompleted, type StudyResult } from '../src/tune/results';
import { configText, trialsTable } from '../src/tune/table';
import { cpuCheckMs } from './calibration';
import { replaceSection } from './sections';
import { startBenchEnv } from './support';

/**
 * `npm run bench:tune`: a study of GoT sorting-64 on the simulated LLM, as `got tune --task sorting
 * --scheme got --size 64 --samples 10 --trials 20` runs it, twice over: with the cost limit of 0.05
 * USD per sample, and with the paper's own cost as the limit (Framework of Thoughts' protocol: no
 * better score bought with more compute). Then the first study again on the warm response cache.
 * Writes the section "Tuning a scheme" of BENCHMARKS.md and the figure and table under docs/tuning/.
 */

const TRIALS = 20;
const SAMPLES = 10;
const SIZE = 64;
const LATENCY_MS = 50;
const log = (line: string) => console.error(line);
const DOCS = fileURLToPath(new URL('../docs/tuning/', import.meta.url));

const request = (maxCostPerSample: number): StudyRequestInput => ({
  task: 'sorting',
  source: { scheme: 'got' },
  size: SIZE,
  samples: Array.from({ length: SAMPLES }, (_, i) => ({ id: String(i), problem: sortingTask.generateProblem(SIZE, i) })),
  trials: TRIALS,
  maxCostPerSample,
  seed: 0,
});

const cpuBefore = cpuCheckMs();
const env = await startBenchEnv({ latencyMs: LATENCY_MS });
const cacheDir = mkdtempSync(join(tmpdir(), 'got-bench-tune-'));
const worker = await env.worker({ cacheDir });

async function study(maxCost: number, id: string): Promise<{ result: StudyResult; wallMs: number; requests: number }> {
  const before = await env.llm.requests();
  const started = Date.now();
  const handle = await startStudy(env.client, request(maxCost), {
    taskQueue: worker.taskQueue,
    workflowId: `bench-tune-${id}-${Date.now()}`,
  });
  const result = await studyResultOf(handle);
  const wallMs = Date.now() - started;
  log(`  ${id}: ${(wallMs / 1000).toFixed(1)} s, best trial ${result.best}, $${result.paidUsd.toFixed(4)} paid`);
  return { result, wallMs, requests: (await env.llm.requests()) - before };
}

try {
  log('study with a limit of $0.05 per sample…');
  const loose = await study(0.05, 'loose');
  const baseline = loose.result.trials.find((t) => t.baseline)!;
  if (!isCompleted(baseline)) throw new Error('the baseline trial did not complete');
  // Studies share the cache: the second study replays the calls the first made, at their recorded cost.
  log(`study with the paper's cost as the limit ($${baseline.cost.mean.toFixed(4)})…`);
  const strict = await study(baseline.cost.mean, 'paper-cost');
  log('the first study again, every answer in the response cache…');
  const repeat = await study(0.05, 'repeat');

  mkdirSync(DOCS, { recursive: true });
  const title = (limit: string) => `Tuning GoT on sorting ${SIZE} (simulated LLM), cost limit ${limit}`;
  await docsFigure(loose.result, 'pareto', title('$0.05/sample'));
  await docsFigure(strict.result, 'pareto-paper-cost', title(`the paper's cost, $${baseline.cost.mean.toFixed(4)}/sample`));
  replaceSection('Tuning a scheme', section(loose, strict, repeat, baseline.cost.mean, cpuBefore, cpuCheckMs()));
} finally {
  await worker.stop();
  await env.close();
  rmSync(cacheDir, { recursive: true, force: true });
}

/** The figure of a study under docs/tuning/ (SVG and PNG). */
async function docsFigure(result: StudyResult, name: string, title: string): Promise<void> {
  await renderFigure(paretoSpec(result, title), join(DOCS, `${name}.svg`), join(DOCS, `${name}.png`));
}

function section(
  loose: Awaited<ReturnType<typeof study>>,
  strict: Awaited<ReturnType<typeof study>>,
  repeat: Awaited<ReturnType<typeof study>>,
  paperCost: number,
  cpuStart: number,
  cpuEnd: number,
): string {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
  const line = (name: string, s: Awaited<ReturnType<typeof study>>) => {
    const r = s.result;
    const best = r.best !== undefined ? r.trials[r.best]! : undefined;
    const base = r.trials.find((t) => t.baseline)!;
    const runs = r.trials.reduce((a, t) => a + t.samples.length, 0);
    const fmt = (t: typeof best) =>
      t?.score && t.cost ? `${t.score.mean.toFixed(2)} ± ${t.score.halfWidth.toFixed(2)} at $${t.cost.mean.toFixed(4)}` : '–';
    return `| ${name} | ${r.trials.filter((t) => t.feasible).length}/${r.trials.length} | ${runs} | ${fmt(base)} | ${fmt(best)} | ${best ? configText(r, best.config) : '–'} | ${s.requests} | $${r.costUsd.toFixed(3)} / $${r.paidUsd.toFixed(3)} | ${(s.wallMs / 1000).toFixed(0)} s |`;
  };
  return `## Tuning a scheme

Measured by \`npm run bench:tune\` on ${new Date().toISOString().slice(0, 10)}, ${machine}, CPU check ${cpuStart} ms at the start, ${cpuEnd} ms at the end.
Studies of GoT sorting-${SIZE} (\`got tune --task sorting --scheme got --size ${SIZE} --samples ${SAMPLES} --trials ${TRIALS}\`) on a
private dev server with one worker and the simulated LLM (${LATENCY_MS} ms per call), the same ${SAMPLES} generated problems for
every trial, trial 0 the paper's configuration, the rest proposed by the seeded TPE (\`src/tune/sampler.ts\`). A trial stops
after 5 samples when its score's 95% t-interval is within ±10% of the mean (the simulator solves most
sorting-64 problems outright, so many trials score 0 on 5 samples and stop there), or when its cost is clearly over the limit.
The second study limits the cost to the paper's own ($${paperCost.toFixed(4)} per sample), as Framework of Thoughts did, and runs
on the first study's response cache; the third repeats the first on a warm cache. \`score\` is the mean error count with its
95% interval and the mean cost per sample; \`requests\` are the calls that reached the LLM; \`recorded / paid\` is what the runs
cost at recorded prices against what was paid (the rest replayed from the cache, \`llm.cacheCosts: "recorded"\`).

| study | feasible | runs | paper's configuration | best feasible | its parameters | requests | recorded / paid | wall |
|---|---|---|---|---|---|---|---|---|
${line('limit $0.05/sample', loose)}
${line(`limit $${paperCost.toFixed(4)} (the paper's cost)`, strict)}
${line('the first again (warm cache)', repeat)}

The first study's trials (figure: [docs/tuning/pareto.png](docs/tuning/pareto.png), score against cost, the Pareto front joined):

${trialsTable(loose.result)}

The second study's (figure: [docs/tuning/pareto-paper-cost.png](docs/tuning/pareto-paper-cost.png)):

${trialsTable(strict.result)}

Durability (\`test/tune.crash.test.ts\`, real dev servers, sorting-32, 3 trials of up to 4 samples at 250 ms per call): the
worker process SIGKILLed with one trial done and 4 calls in flight; a new worker finished the study with the uninterrupted
study's configurations, scores and costs, and the LLM received 36 requests against the uninterrupted 32: the 4 in flight,
nothing finished paid twice. With the server SIGKILLed instead (one trial done, 2 calls in flight) and restarted on its
SQLite file, the worker reconnected by itself and the study ended the same, with 32 requests: the calls in flight completed.
`;
}
