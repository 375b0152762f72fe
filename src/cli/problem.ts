import { readFileSync } from 'node:fs';
import type { SourceInfo } from '../documents/types';
import { ValidationError } from '../goo/validate';
import type { AnyTask, Sample } from '../tasks/task';
import { type SplitName, splitRows, splitSeed } from '../tune/data-split';

const datasets = new Map<string, Sample<unknown>[]>();

/** Parsed once per process: an evaluation picks many samples from the same file. */
function loadDataset(task: AnyTask, path: string): Sample<unknown>[] {
  const key = `${task.id}:${path}`;
  if (!datasets.has(key)) datasets.set(key, task.parseDataset(readFileSync(path, 'utf8')));
  return datasets.get(key)!;
}

export interface ProblemChoice {
  /** The user's own input files, given to the task as its problem (doc-merge: the documents). */
  files?: string[];
  /** The user's documents already read from their files (PDF, DOCX, ... in `src/documents`). */
  documents?: { path: string; text: string; source?: SourceInfo }[];
  /** A JSON file holding the problem itself, in the task's problem format. */
  problemFile?: string;
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
  if (choice.documents?.length) {
    if (!task.problemFromFiles)
      throw new ValidationError('options', [{ path: '--doc', message: `task "${task.id}" does not take input files` }]);
    const problem = task.problemFromFiles(choice.documents);
    if (choice.problemFile || choice.dataset)
      throw new ValidationError('options', [{ path: '--doc, --docs', message: 'give the problem one way only' }]);
    return { sampleId: 'files', problem, size: task.sizeOf(problem) };
  }
  const sources = [choice.files?.length && '--doc', choice.problemFile && '--problem', choice.dataset && '--dataset'].filter(Boolean);
  if (sources.length > 1) throw new ValidationError('options', [{ path: sources.join(', '), message: 'give the problem one way only' }]);
  if (choice.files?.length) {
    if (!task.problemFromFiles)
      throw new ValidationError('options', [{ path: '--doc', message: `task "${task.id}" does not take input files` }]);
    const problem = task.problemFromFiles(choice.files.map((path) => ({ path, text: readInputFile(path, '--doc') })));
    return { sampleId: 'files', problem, size: task.sizeOf(problem) };
  }
  if (choice.problemFile) {
    let problem: unknown;
    try {
      problem = JSON.parse(readInputFile(choice.problemFile, '--problem'));
    } catch (e) {
      if (e instanceof ValidationError) throw e;
      throw new ValidationError('options', [
        { path: '--problem', message: `${choice.problemFile} is not valid JSON: ${(e as Error).message}` },
      ]);
    }
    return { sampleId: 'file', problem, size: safeSize(task, problem) };
  }
  if (choice.dataset) {
    const samples = loadDataset(task, choice.dataset);
    const found = samples.find((s) => s.id === choice.sample);
    if (!found) {
      throw new ValidationError('sample', [
        {
          path: '--sample',
          message: `no sample with ID "${choice.sample}" in ${choice.dataset} (it has ${samples.length}, IDs ${samples[0]?.id} to ${samples.at(-1)?.id})`,
        },
      ]);
    }
    return { sampleId: found.id, problem: found.problem, size: task.sizeOf(found.problem) };
  }
  const seed = Number(choice.sample);
  if (!Number.isInteger(seed) || seed < 0) {
    throw new ValidationError('sample', [
      {
        path: '--sample',
        message: `without --dataset the sample is a generator seed: expected a whole number >= 0, got "${choice.sample}"`,
      },
    ]);
  }
  const size = choice.size ?? task.sizes[Math.floor(task.sizes.length / 2)]!;
  return { sampleId: String(seed), problem: task.generateProblem(size, seed), size };
}

export interface SplitChoice {
  dataset?: string;
  /** The size of generated problems (a dataset's rows have their own). */
  size: number;
  split: SplitName;
  /** How many problems: generated ones, or the split's first rows of `dataset` (refused if it has fewer). */
  count: number;
  /** With a dataset, the split's every row, however many `count` asks for. */
  allRows?: boolean;
}

/**
 * A split's problems in order: the rows of `dataset` that belong to the split, or, without a
 * dataset, problems generated from the split's seeds. The refusal names `--samples`, since
 * `got tune` is the command that asks a dataset for an exact count.
 */
export function splitProblems(task: AnyTask, choice: SplitChoice): { id: string; problem: unknown }[] {
  const { dataset, size, split, count } = choice;
  if (!dataset)
    return Array.from({ length: count }, (_, i) => {
      const seed = splitSeed(split, i);
      return { id: String(seed), problem: task.generateProblem(size, seed) };
    });
  let rows: Sample<unknown>[];
  try {
    rows = task.parseDataset(readFileSync(dataset, 'utf8'));
  } catch (e) {
    throw new ValidationError('options', [{ path: '--dataset', message: `cannot read ${dataset}: ${(e as Error).message}` }]);
  }
  const { first, end } = splitRows(rows.length, split);
  if (!choice.allRows && end - first < count)
    throw new ValidationError('options', [
      {
        path: '--samples',
        message: `the ${split} split of ${dataset} has ${end - first} samples (rows ${first + 1}-${end} of ${rows.length}), fewer than ${count}`,
      },
    ]);
  return rows.slice(first, choice.allRows ? end : first + count).map((r) => ({ id: r.id, problem: r.problem }));
}

function readInputFile(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ValidationError('options', [
      { path: option, message: `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` },
    ]);
  }
}

/** The size of a problem that has not been validated yet (validation happens with the run request). */
function safeSize(task: AnyTask, problem: unknown): number {
  const parsed = task.problem.safeParse(problem);
  return parsed.success ? task.sizeOf(parsed.data) : 0;
}
