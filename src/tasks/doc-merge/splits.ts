import type { ThoughtState } from '../../grs/types';
import { estimateTokens } from '../../llm/context-windows';
import type { Part } from '../task';
import { CHAT_TOKENS, fits, packInOrder, type TokenWindow, taggedTokens } from './budget';
import type { DocMergeProblem } from './dataset';
import {
  aggregateSectionPrompt,
  improveSectionPrompt,
  judgeSectionPrompt,
  mergeSectionCotPrompt,
  mergeSectionPrompt,
  type SectionName,
} from './section-prompts';
import { alignmentOf, type PieceRef, sectionTexts } from './sections';

/**
 * The forEach splits of sectioned merging (decision 36): `sections` makes one part per section (or
 * piece of a long section) and group of documents whose versions fit one prompt; `bySection`
 * groups drafts of one section for the next aggregation; `assemble` joins the sections' drafts
 * into the merged document. Thoughts name their section by index and the source texts stay in the
 * problem, so a thought is a few numbers and its draft.
 */

/** A thought about one section: which one, the documents its draft merges, the window its prompts are planned for. */
export interface SectionState extends ThoughtState, PieceRef, TokenWindow {
  documents: number[];
  title: string;
  merged?: string;
  untagged?: true;
}

/** Where the assembled document has each section's draft: `[start, end)` of `merged`. */
export interface OutlineEntry extends PieceRef {
  start: number;
  end: number;
}

/** The merged document assembled from its sections' drafts. */
export interface AssembledState extends ThoughtState {
  documents: number[];
  merged?: string;
  outline: OutlineEntry[];
}

const positiveInt = (v: unknown) => Number.isInteger(v) && (v as number) > 0;

/** Reads a split's window params, naming the one that is wrong. */
export function windowOf(params: Record<string, unknown>): TokenWindow {
  const { contextTokens, answerTokens } = params;
  if (!Number.isInteger(contextTokens) || (contextTokens as number) <= 0) {
    throw new RangeError(`params.contextTokens: expected a positive whole number of tokens, got ${JSON.stringify(contextTokens)}`);
  }
  if (!Number.isInteger(answerTokens) || (answerTokens as number) <= 0 || (answerTokens as number) >= (contextTokens as number)) {
    throw new RangeError(
      `params.answerTokens: expected a positive whole number of tokens below contextTokens, got ${JSON.stringify(answerTokens)}`,
    );
  }
  return { contextTokens: contextTokens as number, answerTokens: answerTokens as number };
}

/** A section thought's name for prompts: title and piece. */
export const nameOf = (s: Pick<SectionState, 'title' | 'piece' | 'pieces'>): SectionName => ({
  title: s.title,
  ...(s.pieces !== undefined && s.pieces > 1 ? { piece: s.piece ?? 0, pieces: s.pieces } : {}),
});

/** Tokens of the section prompts' templates (all but sources and drafts), the largest of them, in the chat format. */
export function sectionOverhead(name: SectionName): number {
  const templates = [
    mergeSectionPrompt(name, []),
    mergeSectionCotPrompt(name, []),
    improveSectionPrompt(name, [], ''),
    judgeSectionPrompt(name, [], '', 100),
  ];
  return CHAT_TOKENS + Math.max(...templates.map(estimateTokens));
}

/** Tokens of the aggregation prompt's template. */
export const aggregateOverhead = (name: SectionName) => CHAT_TOKENS + estimateTokens(aggregateSectionPrompt(name, []));

/** One merge prompt's worth of work: a section (piece) and the documents whose versions it merges. */
export interface PlannedPart {
  state: SectionState;
  /** Estimated tokens of each document's version, tags included. */
  sizes: number[];
}

/** Into how many pieces a section must be cut so that no document's piece exceeds half the answer reserve. */
function piecesOf(documents: readonly string[], section: number, limit: number): number {
  const longest = Math.max(0, ...sectionTexts(documents, { section }).map((t) => (t ? estimateTokens(t) : 0)));
  if (longest <= limit) return 1;
  // Pieces are cut on paragraph boundaries near equal shares; a little more than the share leaves room for that.
  for (let pieces = Math.ceil((1.25 * longest) / limit); ; pieces++) {
    const largest = Array.from({ length: pieces }, (_, piece) => sectionTexts(documents, { section, piece, pieces }))
      .flat()
      .reduce((max, t) => Math.max(max, t ? estimateTokens(t) : 0), 0);
    if (largest <= limit || pieces >= 4 * Math.ceil(longest / limit)) return pieces;
  }
}

/**
 * The parts of a sectioned merge: per section of the aligned documents (in order), per piece, the
 * documents grouped in order so that each group's merge, improve and judge prompts fit the window;
 * into at least `minGroups` groups where there are as many documents (GoT2 merges subsets first).
 */
export function planSections(problem: DocMergeProblem, window: TokenWindow, minGroups = 1): PlannedPart[] {
  const { documents } = problem;
  const limit = Math.floor(window.answerTokens / 2);
  const parts: PlannedPart[] = [];
  alignmentOf(documents).sections.forEach((aligned, section) => {
    const pieces = piecesOf(documents, section, limit);
    for (let piece = 0; piece < pieces; piece++) {
      const ref = pieces > 1 ? { section, piece, pieces } : { section };
      const name = nameOf({ title: aligned.title || `Section ${section + 1}`, ...ref });
      const texts = sectionTexts(documents, ref);
      const present = texts.flatMap((t, d) => (t ? [d] : []));
      if (!present.length) continue;
      const sizes = taggedTokens(present.map((d) => texts[d]!));
      const overhead = sectionOverhead(name);
      if (!fits(window, overhead, [Math.min(...sizes)], 1)) {
        throw new RangeError(
          `a context window of ${window.contextTokens} tokens cannot hold one version of ${name.title} with its answer (${window.answerTokens} tokens reserved); use a model with a larger window`,
        );
      }
      const packed = packInOrder(sizes, (g) => fits(window, overhead, g, 1));
      const groups = packed.length >= Math.min(minGroups, sizes.length) ? packed : evenGroups(sizes.length, minGroups);
      for (const group of groups) {
        parts.push({
          state: { documents: group.map((i) => present[i]!), ...ref, title: name.title, ...window },
          sizes: group.map((i) => sizes[i]!),
        });
      }
    }
  });
  return parts;
}

/** Indices 0..n-1 cut in order into `k` groups of equal count (the first ones one larger). */
const evenGroups = (n: number, k: number) =>
  Array.from({ length: k }, (_, g) => Array.from({ length: n }, (_, i) => i).filter((i) => Math.floor((i * k) / n) === g));

const isSection = (s: ThoughtState): s is SectionState => Number.isInteger(s.section) && Array.isArray(s.documents);
const keyOf = (s: PieceRef) => `${s.section}/${s.piece ?? 0}/${s.pieces ?? 1}`;
const order = (a: PieceRef, b: PieceRef) => a.section - b.section || (a.piece ?? 0) - (b.piece ?? 0);

/** The input thoughts with a draft, by section (piece), sections in document order. */
function draftsBySection(inputs: readonly ThoughtState[]): { state: SectionState; indices: number[] }[] {
  const groups = new Map<string, { state: SectionState; indices: number[] }>();
  inputs.forEach((s, i) => {
    if (!isSection(s) || typeof s.merged !== 'string') return;
    const group = groups.get(keyOf(s));
    if (group) group.indices.push(i);
    else groups.set(keyOf(s), { state: s, indices: [i] });
  });
  return [...groups.values()].sort((a, b) => order(a.state, b.state));
}

/** `sections`: one new thought per planned part; the input (the root) only lends the problem. */
function sectionsSplit(_inputs: ThoughtState[], problem: DocMergeProblem, params: Record<string, unknown>): Part[] {
  const { minGroups = 1 } = params;
  if (!positiveInt(minGroups)) throw new RangeError(`params.minGroups: expected a positive whole number, got ${JSON.stringify(minGroups)}`);
  return planSections(problem, windowOf(params), minGroups as number).map(({ state }) => ({ state }));
}

/**
 * `bySection`: a section with one draft keeps it; several drafts are grouped, in order, so that
 * each group fits one aggregation prompt. A section with more groups than one needs another level.
 */
function bySectionSplit(inputs: ThoughtState[], _problem: DocMergeProblem, params: Record<string, unknown>): Part[] {
  const window = windowOf(params);
  return draftsBySection(inputs).flatMap(({ state, indices }) => {
    if (indices.length === 1) return [{ keep: indices }];
    const sizes = taggedTokens(indices.map((i) => (inputs[i] as SectionState).merged!));
    const overhead = aggregateOverhead(nameOf(state));
    return packInOrder(sizes, (g) => fits(window, overhead, g, 0)).map((group): Part => {
      const chosen = group.map((i) => indices[i]!);
      return chosen.length === 1 ? { keep: chosen } : { thoughts: chosen };
    });
  });
}

/** The draft standing for a section at the end: the one merging the most documents (the first of equals). */
function finalDraft(inputs: readonly ThoughtState[], indices: number[]): SectionState {
  return indices.map((i) => inputs[i] as SectionState).reduce((best, s) => (s.documents.length > best.documents.length ? s : best));
}

/** `assemble`: one thought, the sections' drafts joined in section order, over all documents. */
function assembleSplit(inputs: ThoughtState[], problem: DocMergeProblem): Part[] {
  const outline: OutlineEntry[] = [];
  let merged = '';
  for (const { indices } of draftsBySection(inputs)) {
    const draft = finalDraft(inputs, indices);
    if (merged) merged += '\n\n';
    const { section, piece, pieces } = draft;
    outline.push({
      section,
      ...(pieces !== undefined && pieces > 1 ? { piece, pieces } : {}),
      start: merged.length,
      end: merged.length + draft.merged!.length,
    });
    merged += draft.merged!;
  }
  const state: AssembledState = { documents: problem.documents.map((_, i) => i), ...(merged ? { merged } : {}), outline };
  return [{ state }];
}

/** The task's splits by name, as GoOs name them. */
export const docMergeSplits = { sections: sectionsSplit, bySection: bySectionSplit, assemble: assembleSplit };
