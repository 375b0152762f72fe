/** One run of an evaluation: a scheme on one sample of one size. */
export interface EvalJob {
  task: string;
  scheme: string;
  size: number;
  sample: string;
}

export const jobKey = (j: EvalJob) => `${j.task}/${j.scheme}/${j.size}/${j.sample}`;

/** Every (size, sample, scheme) combination; samples vary slowest within a size so early results cover every scheme. */
export function planJobs(task: string, schemes: string[], sizes: number[], samples: string[]): EvalJob[] {
  return sizes.flatMap((size) => samples.flatMap((sample) => schemes.map((scheme) => ({ task, scheme, size, sample }))));
}
