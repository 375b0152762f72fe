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

/** `--rows 0-6,8-10`: sample ids in the order given, ranges inclusive, each once; the error names the flag. */
export function parseRows(value: string): string[] {
  const ids: string[] = [];
  for (const item of value.split(',').map((x) => x.trim())) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (!range) throw new Error(`--rows: "${item}" is not a row id or a range like 3-9`);
    const [from, to] = [Number(range[1]), Number(range[2] ?? range[1])];
    if (to < from) throw new Error(`--rows: the range ${item} ends before it starts`);
    if (to - from >= 10_000) throw new Error(`--rows: the range ${item} has more than 10000 rows`);
    for (let id = from; id <= to; id++) if (!ids.includes(String(id))) ids.push(String(id));
  }
  return ids;
}
