import type { Client } from '@temporalio/client';
import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { sortingTask } from '../src/tasks/sorting';
import { median } from './stats';

/** Where one setting of a comparison runs: the client that starts its runs and its worker's queue. */
export interface Side {
  client: Client;
  taskQueue: string;
}

/** One run's median wall time under two settings, and the second over the first. */
export interface PairedTimes {
  run: string;
  firstMs: number;
  secondMs: number;
  ratio: number;
}

/** The paper-sized runs settings are compared on: the paper's GoT for sorting 64 numbers and merging 4 NDAs. */
const PAPER_SIZED_RUNS: [string, () => RunRequestInput][] = [
  ['sorting got 64', () => sortingRun(64)],
  ['doc-merge got 4', () => docMergeRun(4)],
];

/** How many runs {@link comparePaired} makes: a warm-up and `repeats` measured, per setting and run. */
export const pairedRunCount = (repeats: number) => PAPER_SIZED_RUNS.length * (repeats + 1);

/**
 * Each paper-sized run under two settings, a warm-up and then `repeats` times, each setting going
 * first every other time (whatever the first run of a pair pays is shared); median wall times.
 */
export async function comparePaired(sides: [Side, Side], repeats: number): Promise<PairedTimes[]> {
  const rows: PairedTimes[] = [];
  for (const [run, request] of PAPER_SIZED_RUNS) {
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i <= repeats; i++) {
      for (const k of i % 2 ? [1, 0] : [0, 1]) {
        const started = Date.now();
        await resultOf(await startRun(sides[k]!.client, { ...request(), seed: i }, { taskQueue: sides[k]!.taskQueue }));
        if (i > 0) times[k]!.push(Date.now() - started);
      }
    }
    const [firstMs, secondMs] = times.map(median) as [number, number];
    rows.push({ run, firstMs, secondMs, ratio: Math.round((secondMs / firstMs) * 100) / 100 });
  }
  return rows;
}

function sortingRun(size: number): RunRequestInput {
  const problem = sortingTask.generateProblem(size, 1);
  return { task: 'sorting', problem, goo: sortingTask.schemes.got!({ size, problem }), labels: { scheme: 'got', size } };
}

function docMergeRun(count: number): RunRequestInput {
  const problem = docMergeTask.generateProblem(count, 1);
  return { task: 'doc-merge', problem, goo: docMergeTask.schemes.got!({ size: count, problem }), labels: { scheme: 'got', size: count } };
}
