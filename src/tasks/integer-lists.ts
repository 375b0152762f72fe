/** Reading lists of integers out of model answers: shared by the tasks whose answers are lists. */

/** Every bracketed list of integers in a text, in order of appearance. */
export function findIntegerLists(text: string): number[][] {
  const lists: number[][] = [];
  for (const match of text.matchAll(/\[([^[\]]*)\]/g)) {
    const body = match[1]!.trim();
    if (body === '') {
      lists.push([]);
      continue;
    }
    const items = body.split(',').map((s) => s.trim());
    if (items.every((s) => /^-?\d+$/.test(s))) lists.push(items.map(Number));
  }
  return lists;
}

/** The answer's list: the last one in the text, since models tend to restate the inputs before answering. */
export function lastIntegerList(text: string): number[] | undefined {
  return findIntegerLists(text).at(-1);
}

/** The lists of a JSON object answer such as `{"List 1": [..], "List 2": [..]}`, in key order; undefined if there is none. */
export function jsonLists(text: string): number[][] | undefined {
  const match = /\{[\s\S]*\}/.exec(text);
  if (!match) return undefined;
  try {
    const value: unknown = JSON.parse(match[0]);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const lists = Object.values(value).filter((v): v is number[] => Array.isArray(v) && v.every(Number.isInteger));
    return lists.length ? lists : undefined;
  } catch {
    return undefined;
  }
}
