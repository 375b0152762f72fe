/**
 * Reading the model's answers: the merged NDA between <Merged> tags, and the judge's two ratings.
 */

import { answerSchema, jsonAnswer } from '../answer-schema';
import { isRefusal, unfence } from '../answer-text';
import { EXAMPLE_PARTIES } from './prompts';
import { analyseMerge, clausesOf } from './score';

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

const MARK = '([0-9]+(?:\\.[0-9]+)?)\\s*(?:(?:/|out\\s+of)\\s*10\\s*)?';

/**
 * The last mark of one rating: in its tags; failing that, after an opening tag left unclosed, or on
 * a labelled line ("**Redundancy:** 8/10") that ends with the mark, so the scale the prompt
 * explains ("Redundancy: 10 means ...") is not read as a mark.
 */
function lastMark(text: string, tag: string, label: string): number | undefined {
  const ways = [
    new RegExp(`<${tag}>\\s*${MARK}</${tag}>`, 'gi'),
    new RegExp(`<${tag}>\\s*${MARK}(?=<|$)`, 'gim'),
    new RegExp(`^[\\s*#_-]*(?:${label})[\\s*_]*[:=\\u2013-]?[\\s*_]*${MARK}[\\s*_]*\\.?\\s*$`, 'gim'),
  ];
  for (const way of ways) {
    const match = [...text.matchAll(way)].at(-1);
    if (!match) continue;
    const value = Number(match[1]);
    return value >= 0 && value <= 10 ? value : undefined;
  }
  return undefined;
}

/** The judge's two marks as structured output asks for them (decision 65); strict mode takes no bounds, so 0-10 is checked on reading. */
export const RATINGS_SCHEMA = answerSchema('doc_merge_ratings', { redundancy: { type: 'number' }, retained: { type: 'number' } });

/** The judge's [redundancy, retention] from its answer (JSON, as structured output writes it, or tagged), or undefined unless both are there and within 0-10. */
export function parseRatings(text: string): [number, number] | undefined {
  const json = jsonAnswer(text, ['redundancy', 'retained'])?.value;
  if (json) {
    const marks = [json.redundancy, json.retained].map((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v));
    return marks.every((v) => typeof v === 'number' && v >= 0 && v <= 10) ? (marks as [number, number]) : undefined;
  }
  const redundancy = lastMark(text, 'Redundancy', 'redundancy');
  const retention = lastMark(text, 'Retained', 'retained(?:\\s+information)?|information\\s+retained|retention');
  return redundancy === undefined || retention === undefined ? undefined : [redundancy, retention];
}

/**
 * What reading a merge answer gave: the NDA (and whether it came without tags), or why there is
 * none. `end`: where its closing tag or JSON object closed, when it has one (`ParsedThought.end`).
 */
export type MergedAnswer = { ok: true; merged: string; untagged: boolean; end?: number } | { ok: false; error: string };

const EXPECTED = 'expected the merged NDA between <Merged> and </Merged>';
/** An untagged answer shorter than this is no NDA (a question back, a one-line remark). */
export const MIN_UNTAGGED_CHARS = 100;
// The prompts' own tags: an answer holding them repeats the prompt rather than answering it.
const PROMPT_TAGS = /<\/?(?:Instruction|Examples?\d*|Approach|Doc\d+|Draft\d*|Candidate)>/i;
// An opening line that only announces the NDA, and closing lines that offer more help.
const INTRO = /^[^\n]{0,160}:[ \t]*\n/;
const OUTRO = /\n\s*(?:let me know|I hope|feel free|please note|note:|if you (?:need|would|want))[^\n]*\s*$/i;

/**
 * The merged NDA of an answer, as models write it. Tagged answers as `extractMerged` reads them
 * (a fence inside the tags dropped). An answer without tags is kept as an untagged candidate when
 * it reads as a merge of `sources`: not a refusal, not the prompt repeated, at least
 * MIN_UNTAGGED_CHARS characters and two sentences, and stating at least one piece of information
 * of the sources; its introduction ("Here is the merged NDA:"), closing offer and fence are dropped.
 */
export function readMerged(text: string, sources: readonly string[]): MergedAnswer {
  // Structured output (decision 65): `{"merged": "..."}`, with the working notes first for CoT.
  const json = jsonAnswer(text, ['merged']);
  if (json && typeof json.value.merged === 'string') {
    const body = unfence(json.value.merged).trim();
    return body ? checked(body, sources, { end: json.end }) : { ok: false, error: `the merged NDA is empty; ${EXPECTED}` };
  }
  if (/<\/?Merged>/i.test(text)) {
    const merged = extractMerged(text);
    const body = merged === undefined ? undefined : unfence(merged).trim();
    const closing = [...text.matchAll(/<\/Merged>/gi)].at(-1);
    // The block read closed at the last closing tag; a block left open has no end (a cut may have shortened it).
    const end = closing && !/<Merged>/i.test(text.slice(closing.index)) ? { end: closing.index + closing[0].length } : {};
    return body ? checked(body, sources, end) : { ok: false, error: `the <Merged> block is empty; ${EXPECTED}` };
  }
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: `the answer is empty; ${EXPECTED}` };
  if (isRefusal(trimmed)) return { ok: false, error: `the model declined to merge ("${trimmed.slice(0, 80)}"); ${EXPECTED}` };
  if (PROMPT_TAGS.test(trimmed)) return { ok: false, error: `the answer repeats the prompt's documents or instructions; ${EXPECTED}` };
  const body = unfence(unfence(trimmed).replace(INTRO, '').replace(OUTRO, '').trim()).trim();
  if (body.length < MIN_UNTAGGED_CHARS || clausesOf(body).length < 2)
    return { ok: false, error: `no <Merged> tags, and the answer is too short to be an NDA; ${EXPECTED}` };
  if (!analyseMerge(sources, body).coverage.some((c) => c > 0))
    return { ok: false, error: `no <Merged> tags, and the answer states nothing of the source NDAs; ${EXPECTED}` };
  return checked(body, sources, {}, true);
}

/** One tagged pair around the whole text (`<Doc1>…</Doc1>`), as a small model wraps its one merge. */
const WRAPPED = /^<(Doc\d+|Draft\d*|Candidate)>\s*([\s\S]*?)\s*<\/\1>$/i;

/**
 * A merge's text as far as the answer's form can tell, or why it is none (seen from
 * Qwen2.5-Coder-1.5B on the paper's NDAs): the prompt's example copied (its parties, which no
 * source names), or the source documents given back in their tags instead of merged.
 */
function checked(body: string, sources: readonly string[], end: { end?: number }, untagged = false): MergedAnswer {
  const unwrapped = WRAPPED.exec(body)?.[2]?.trim() || body;
  const borrowed = EXAMPLE_PARTIES.find((name) => unwrapped.includes(name) && !sources.some((s) => s.includes(name)));
  if (borrowed)
    return {
      ok: false,
      error: `the merge names ${borrowed}, a party of the prompt's example that no source names: it copies the example; ${EXPECTED}`,
    };
  if (PROMPT_TAGS.test(unwrapped))
    return {
      ok: false,
      error: `the merge gives back the prompt's documents in their tags (${unwrapped.match(PROMPT_TAGS)![0]}) instead of one merged NDA; ${EXPECTED}`,
    };
  const merged = withoutStrayTags(unwrapped, sources);
  if (!merged) return { ok: false, error: `the merge holds nothing but tags; ${EXPECTED}` };
  return { ok: true, merged, untagged, ...end };
}

/** A line that is only a tag (`<Purpose>`, `</Purpose>`, `< merged >`, `<_merged>`), as small models leave in a merge. */
const TAG_LINE = /^[ \t]*<\s*\/?\s*[A-Za-z_][\w -]{0,40}>[ \t]*$/;

/**
 * The merge without the lines that are only a tag no source has: markup of the model's own (seen
 * from Qwen2.5-Coder-1.5B merging section by section), which would stand in the merged contract as
 * text. A tag line a source has is the sources' own text and stays.
 */
export function withoutStrayTags(body: string, sources: readonly string[]): string {
  const lines = body.split('\n');
  const kept = lines.filter((line) => !TAG_LINE.test(line) || sources.some((s) => s.includes(line.trim())));
  return kept.length === lines.length
    ? body
    : kept
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
}
