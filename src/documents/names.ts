/** A source's display name: its given name (a file name), else "document N", counted from 1 as people count. */
export const documentName = (names: readonly (string | undefined)[], document: number): string =>
  names[document] ?? `document ${document + 1}`;
