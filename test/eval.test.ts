import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { figureSpec, renderFigure } from '../src/eval/figure';
import { jobKey, parseRows } from '../src/eval/plan';
import type { EvalRow } from '../src/eval/results';
import { type EvalOptions, planEvaluation, runEvaluation } from '../src/eval/run-eval';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { parseDocMergeCsv } from '../src/tasks/doc-merge/dataset';
import { parseKeywordCountingCsv } from '../src/tasks/keyword-counting/dataset';
import { keywordCountingTask } from '../src/tasks/keyword-counting/index';
import { readSharedData, SHARED_DATA_DIR } from './support/tasks';

let llm: SimulatedLlm;
let options: EvalOptions;

beforeAll(async () => {
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('ERROR') });
  llm = await startSimulatedLlm();
  // The evaluation reaches the test server and this simulated LLM the way a user points it at real ones.
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  process.env.OPENAI_BASE_URL = llm.baseURL;
  options = {
    task: 'sorting',
    schemes: ['io', 'got'],
    sizes: [32],
    samples: 3,
    out: mkdtempSync(join(tmpdir(), 'got-eval-')),
    concurrency: 4,
    seed: 0,
    latency: 0,
    taskQueue: `eval-${randomUUID()}`,
    worker: true,
    progress: false,
  };
});
afterAll(async () => {
  delete process.env.OPENAI_BASE_URL;
  await llm?.close();
});

const quiet = () => undefined;

describe('the evaluation harness', () => {
  it('runs every scheme x sample, writes the table, the summary and a readable figure', async () => {
    const outcome = await runEvaluation(options, quiet);
    expect(outcome.ran).toBe(6);
    expect(outcome.rows.map((r) => `${r.scheme}/${r.sample}`).sort()).toEqual(['got/0', 'got/1', 'got/2', 'io/0', 'io/1', 'io/2']);
    for (const row of outcome.rows) {
      expect(row.status).toBe('completed');
      expect(row.score).toBeTypeOf('number');
      expect(row.costUsd).toBeGreaterThan(0);
      // GoT-32: split, two part sorts, one merge, the final improve.
      expect(row.llmCalls).toBe(row.scheme === 'io' ? 1 : 5);
    }

    const csv = readFileSync(outcome.files.csv, 'utf8').trim().split('\n');
    expect(csv[0]).toBe(
      'task,scheme,size,sample,score,solved,llmCalls,promptTokens,completionTokens,costUsd,wallMs,workflowId,status,error,kept,repeated,unsupported,undecided,cachedPromptTokens',
    );
    expect(csv).toHaveLength(7);
    expect(JSON.parse(readFileSync(outcome.files.json, 'utf8'))).toEqual(outcome.rows);
    // Sorting has no review, so no share of its sources kept.
    expect(outcome.rows.every((r) => r.kept === undefined)).toBe(true);
    expect(readFileSync(outcome.files.summary, 'utf8')).toMatch(/\| 32 \| got \| 3 \|/);

    const png = readFileSync(outcome.files.png);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.length).toBeGreaterThan(10_000);
    const svg = readFileSync(outcome.files.svg, 'utf8');
    for (const label of ['io', 'got', 'total cost of the runs (USD)', 'size 32']) expect(svg).toContain(label);

    // The figure plots exactly the table's scores and costs.
    const plotted = (
      figureSpec(outcome.rows, { task: 'sorting', schemes: options.schemes, higherIsBetter: false }).data as {
        values: { scheme: string; score: number; cost: number }[];
      }
    ).values;
    expect(plotted.map((v) => [v.scheme, v.score, v.cost])).toEqual(outcome.rows.map((r) => [r.scheme, r.score, r.costUsd]));
  });

  it('resumes: finished runs are not run again, and interrupted ones are read back instead of paid again', async () => {
    const again = await runEvaluation(options, quiet);
    expect(again.ran).toBe(0);
    expect(again.reused).toBe(6);

    // Forget two finished runs, as if the evaluation had been killed before recording them.
    const journal = join(options.out, 'runs.jsonl');
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    writeFileSync(journal, `${lines.slice(0, 4).join('\n')}\n`);
    llm.resetStats();
    const resumed = await runEvaluation(options, quiet);
    expect(resumed.ran).toBe(2);
    expect(llm.stats().requests).toBe(0);
    expect(resumed.rows).toEqual(again.rows.map((r) => ({ ...r })));
  });

  it('refuses a scheme the task does not have before starting anything', async () => {
    await expect(runEvaluation({ ...options, schemes: ['io', 'magic'] }, quiet)).rejects.toThrow(/--scheme.*magic/s);
  });
});

describe('the figure of runs that cost nothing', () => {
  it('shows their total tokens beside the scores instead of a cost of 0', () => {
    const row = (scheme: string, sample: string, tokens: number): EvalRow => ({
      task: 'sorting',
      scheme,
      size: 8,
      sample,
      score: 3,
      solved: false,
      llmCalls: 2,
      promptTokens: tokens,
      completionTokens: tokens,
      costUsd: 0,
      wallMs: 1000,
      workflowId: `w-${scheme}-${sample}`,
      status: 'completed',
    });
    const spec = JSON.stringify(
      figureSpec([row('io', '0', 500), row('got', '0', 4000)], { task: 'Sorting', schemes: ['io', 'got'], higherIsBetter: false }),
    );
    expect(spec).toContain('total tokens of the runs (thousands)');
    expect(spec).not.toContain('(USD)');
    expect(spec).toContain('"kiloTokens":8');
  });
});

describe('the figure as drawn', () => {
  it('is cut to what it draws: a long title does not leave half of a one-size figure blank', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'got-figure-'));
    const schemes = ['io', 'cot', 'tot', 'got'];
    const rows: EvalRow[] = schemes.flatMap((scheme) =>
      [4, 7, 10].map((score, i) => ({
        task: 'sorting',
        scheme,
        size: 32,
        sample: String(i),
        score,
        solved: false,
        llmCalls: 1,
        promptTokens: 100,
        completionTokens: 100,
        costUsd: 0.001,
        wallMs: 1000,
        workflowId: `w-${scheme}-${i}`,
        status: 'completed' as const,
      })),
    );
    const spec = figureSpec(rows, {
      task: 'A task with a title long enough for an estimate of its width to go wrong',
      schemes,
      higherIsBetter: false,
    });
    await renderFigure(spec, join(dir, 'f.svg'), join(dir, 'f.png'));
    const svg = readFileSync(join(dir, 'f.svg'), 'utf8');
    const [x, y, w, h] = /viewBox="(-?[\d.]+) (-?[\d.]+) ([\d.]+) ([\d.]+)"/.exec(svg)!.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
    ];
    // Measured again without its background, what is drawn fills the figure but for the margin.
    const drawn = new Resvg(svg.replace(/<rect x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" fill="white"\/>/, ''), {
      font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    }).getBBox()!;
    for (const gap of [drawn.x - x, x + w - (drawn.x + drawn.width), drawn.y - y, y + h - (drawn.y + drawn.height)]) {
      expect(gap).toBeGreaterThanOrEqual(7);
      expect(gap).toBeLessThanOrEqual(10);
    }
    // Vega alone, estimating the title's width, made the figure wider than what it draws.
    const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
    const untrimmed = Number(/width="([\d.]+)"/.exec(await view.toSVG())![1]);
    view.finalize();
    expect(w).toBeLessThan(untrimmed - 50);
  });
});

describe('an evaluation of document merges', () => {
  it("records the share of the sources' clauses each best merge keeps, from the engine's review", async () => {
    const outcome = await runEvaluation(
      { ...options, task: 'doc-merge', schemes: ['io'], sizes: [3], samples: 2, out: mkdtempSync(join(tmpdir(), 'got-eval-')) },
      quiet,
    );
    expect(outcome.rows).toHaveLength(2);
    for (const row of outcome.rows) {
      expect(row.status, row.error).toBe('completed');
      expect(row.kept).toBeGreaterThan(0);
      expect(row.kept).toBeLessThanOrEqual(1);
      expect(row.repeated).toBeGreaterThanOrEqual(0);
      expect(row.unsupported).toBeGreaterThanOrEqual(0);
      expect(row.unsupported).toBeLessThanOrEqual(1);
      expect(row.undecided).toBeGreaterThanOrEqual(0);
    }
    expect(readFileSync(outcome.files.csv, 'utf8').split('\n')[0]).toMatch(/,kept,repeated,unsupported,undecided,cachedPromptTokens$/);
  });
});

describe('the evaluation on the reference datasets', () => {
  const dir = SHARED_DATA_DIR;
  const plan = (task: string, sizes: number[]) =>
    planEvaluation({
      ...options,
      task,
      schemes: ['io'],
      sizes,
      samples: 2,
      datasetDir: dir,
      out: mkdtempSync(join(tmpdir(), 'got-eval-')),
    });

  it('takes the rows asked for, in their order, the first --samples of them', () => {
    expect(parseRows('0-2,8,5-6,2')).toEqual(['0', '1', '2', '8', '5', '6']);
    expect(() => parseRows('3-x')).toThrow(/--rows: "3-x"/);
    const { jobs } = planEvaluation({
      ...options,
      task: 'doc-merge',
      schemes: ['io'],
      sizes: [4],
      samples: 3,
      rows: parseRows('4-6,8-10'),
      datasetDir: dir,
      out: mkdtempSync(join(tmpdir(), 'got-eval-')),
    });
    expect(jobs.map((j) => j.sample)).toEqual(['4', '5', '6']);
  });

  it("merges the paper's NDAs, not generated contracts", () => {
    const { jobs, requests } = plan('doc-merge', [4]);
    const rows = parseDocMergeCsv(readSharedData('documents.csv'));
    expect(jobs.map((j) => j.size)).toEqual([4, 4]);
    jobs.forEach((job, i) => {
      expect(requests.get(jobKey(job))!.problem).toEqual(rows.find((r) => r.id === String(i))!.problem);
    });
  });

  it("counts keywords in the paper's texts, each run at its text's own size, a text once whatever sizes are asked", () => {
    const { jobs, requests } = plan('keyword-counting', [8, 12, 16]);
    const rows = parseKeywordCountingCsv(readSharedData('countries.csv'));
    expect(jobs.map((j) => j.sample)).toEqual(['0', '1']);
    jobs.forEach((job) => {
      const row = rows.find((r) => r.id === job.sample)!;
      expect(requests.get(jobKey(job))!.problem).toEqual(row.problem);
      expect(job.size).toBe(keywordCountingTask.sizeOf(row.problem));
    });
  });
});
