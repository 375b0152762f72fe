import { readFileSync } from 'node:fs';
import { ValidationError } from '../goo/validate';
import type { AnyTask, Sample } from '../tasks/task';

const datasets = new Map<string, Sample<unknown>[]>();

/** Parsed once per process: an evaluation picks many samples from the same file. */
function loadDataset(task: AnyTask, path: string): Sample<unknown>[] {
  const key = `${task.id}:${path}`;
  if (!datasets.has(key)) datasets.set(key, task.parseDataset(readFileSync(path, 'utf8')));
  return datasets.get(key)!;
}

export interface ProblemChoice {
  dataset?: string;
  sample: string;
  size?: number;
}

export interface ChosenProblem {
  sampleId: string;
  problem: unknown;
  size: number;
}

/**
 * The problem of a run: row `sample` of a dataset in the reference CSV format, or, without a
 * dataset, a problem generated reproducibly from the sample number (no files needed for a demo).
 */
export function chooseProblem(task: AnyTask, choice: ProblemChoice): ChosenProblem {
  if (choice.dataset) {
    const samples = loadDataset(task, choice.dataset);
    const found = samples.find((s) => s.id === choice.sample);
    if (!found) {
      throw new ValidationError('sample', [{ path: '--sample', message: `no sample with ID "${choice.sample}" in ${choice.dataset} (it has ${samples.length}, IDs ${samples[0]?.id} to ${samples.at(-1)?.id})` }]);
    }
    return { sampleId: found.id, problem: found.problem, size: task.sizeOf(found.problem) };
  }
  const seed = Number(choice.sample);
  if (!Number.isInteger(seed) || seed < 0) {
    throw new ValidationError('sample', [{ path: '--sample', message: `without --dataset the sample is a generator seed: expected a whole number >= 0, got "${choice.sample}"` }]);
  }
  const size = choice.size ?? task.sizes[Math.floor(task.sizes.length / 2)]!;
  return { sampleId: String(seed), problem: task.generateProblem(size, seed), size };
}
