import { findIntegerLists } from '../tasks/integer-lists';

/** The list on the last line starting with `label`: a prompt's own input comes after its examples. */
export function lastListAfter(prompt: string, label: string): number[] | undefined {
  const last = [...prompt.matchAll(new RegExp(`^${label}\\s*(\\[[^\\[\\]]*\\])`, 'gm'))].at(-1);
  return last ? findIntegerLists(last[1]!)[0] : undefined;
}
