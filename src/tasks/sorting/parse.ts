/** Every bracketed list of integers in a text, in order of appearance. */
export function findIntegerLists(text: string): number[][] {
  const lists: number[][] = [];
  for (const match of text.matchAll(/\[([^\[\]]*)\]/g)) {
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

/** The answer's list: the last one in the text, since models tend to restate the input before answering. */
export function lastIntegerList(text: string): number[] | undefined {
  return findIntegerLists(text).at(-1);
}
