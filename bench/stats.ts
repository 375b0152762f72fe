/** The middle value of a sample (the upper one of the two middles for an even count), as every bench reports it. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
