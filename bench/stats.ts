/** The middle value of a sample (the upper one of the two middles for an even count), as every bench reports it. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The p-th percentile by nearest rank (as examples/python/start_many.py's summary reports it). */
export const percentile = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((xs.length * p) / 100) - 1)]!;
