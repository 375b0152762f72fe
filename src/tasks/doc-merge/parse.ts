/**
 * Reading the model's answers: the merged NDA between <Merged> tags, and the judge's two ratings.
 */

/**
 * The merged NDA of an answer: the last complete <Merged> block (models sometimes restate a draft
 * first). A missing closing tag (the answer ran on) or a missing opening tag is forgiven when the
 * other tag is there; an answer with neither tag has no NDA.
 */
export function extractMerged(text: string): string | undefined {
  const blocks = [...text.matchAll(/<Merged>([\s\S]*?)<\/Merged>/gi)];
  let body: string | undefined;
  if (blocks.length) body = blocks.at(-1)![1];
  else if (/<Merged>/i.test(text)) body = text.slice(text.search(/<Merged>/i) + '<Merged>'.length);
  else if (/<\/Merged>/i.test(text)) body = text.slice(0, text.search(/<\/Merged>/i));
  const trimmed = body?.trim();
  return trimmed ? trimmed : undefined;
}

function lastTagged(text: string, tag: string): number | undefined {
  const match = [...text.matchAll(new RegExp(`<${tag}>\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(?:/\\s*10\\s*)?</${tag}>`, 'gi'))].at(-1);
  if (!match) return undefined;
  const value = Number(match[1]);
  return value >= 0 && value <= 10 ? value : undefined;
}

/** The judge's [redundancy, retention] from its answer, or undefined unless both are there and within 0-10. */
export function parseRatings(text: string): [number, number] | undefined {
  const redundancy = lastTagged(text, 'Redundancy');
  const retention = lastTagged(text, 'Retained');
  return redundancy === undefined || retention === undefined ? undefined : [redundancy, retention];
}
