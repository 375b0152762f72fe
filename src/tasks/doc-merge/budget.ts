import { estimateChatTokens, estimateTokens } from '../../llm/context-windows';

/**
 * Token arithmetic of document merging prompts: what a merge's answer is expected to take, and
 * whether a prompt with its answer fits the model's context window (decision 36). Every size is an
 * estimate from above (`estimateTokens`), so a prompt planned to fit does fit.
 */

/** The most a section's answer is planned to take: a quarter of the window, and at most this. */
export const MAX_ANSWER_TOKENS = 8_192;
/** What a judge's answer (its reasons and two marks) is given. */
export const JUDGE_ANSWER_TOKENS = 512;
/** The chat format's own tokens around one user message. */
export const CHAT_TOKENS = estimateChatTokens([{ role: 'user', content: '' }]);
/** What one text costs inside a prompt besides itself: its numbered tags and the blank line after them. */
export const TAG_TOKENS = estimateTokens('<Draft100>\n\n</Draft100>\n\n');

/** The window a scheme plans for, as a split's params carry it. */
export interface TokenWindow {
  /** The model's context window: prompt and answer together. */
  contextTokens: number;
  /** The most a section's merged answer is planned to take. */
  answerTokens: number;
}

/** The answer reserve of a window: a quarter of it, at most MAX_ANSWER_TOKENS. */
export function answerTokensFor(contextTokens: number): number {
  return Math.min(Math.floor(contextTokens / 4), MAX_ANSWER_TOKENS);
}

/**
 * The tokens a merge of overlapping texts of these sizes is expected to take: about twice the
 * longest at most (versions of one text mostly say the same), never more than all of them, and
 * never more than the window's answer reserve.
 */
export function expectedMergeTokens(sizes: readonly number[], answerTokens: number): number {
  const sum = sizes.reduce((a, b) => a + b, 0);
  return Math.min(answerTokens, sum, 2 * Math.max(0, ...sizes));
}

/** Estimated tokens of each text as a prompt carries it (tags included). */
export const taggedTokens = (texts: readonly string[]) => texts.map((t) => estimateTokens(t) + TAG_TOKENS);

/**
 * What a prompt over these sources keeps free for an answer: the expected merge, and at least
 * what a judge's answer needs (a judge rates a candidate as long as that merge).
 */
export function answerReserve(sources: readonly number[], window: TokenWindow): number {
  return Math.max(expectedMergeTokens(sources, window.answerTokens), Math.min(JUDGE_ANSWER_TOKENS, window.answerTokens));
}

/**
 * Whether sources fit one prompt whose template (everything but the sources and drafts) takes
 * `overhead` tokens, with the answer reserve free and `drafts` drafts as long as it besides: 0 for
 * a merge, 1 for an improvement or a judge (its candidate).
 */
export function fits(window: TokenWindow, overhead: number, sources: readonly number[], drafts: number): boolean {
  const sum = sources.reduce((a, b) => a + b, 0);
  return overhead + sum + (drafts + 1) * answerReserve(sources, window) <= window.contextTokens;
}

/** Cuts sizes, in order, into as few consecutive groups that one prompt `holds` as greedy packing finds, then evens their sizes out. */
export function packInOrder(sizes: readonly number[], holds: (group: readonly number[]) => boolean): number[][] {
  const greedy: number[][] = [];
  let current: number[] = [];
  sizes.forEach((_, i) => {
    const candidate = [...current, i];
    if (current.length && !holds(candidate.map((j) => sizes[j]!))) {
      greedy.push(current);
      current = [i];
    } else current = candidate;
  });
  if (current.length) greedy.push(current);
  if (greedy.length < 2) return greedy;
  // As many groups, cut at equal shares of the total: similar prompts instead of full ones and a small rest.
  const total = sizes.reduce((a, b) => a + b, 0);
  const even: number[][] = Array.from({ length: greedy.length }, () => []);
  let before = 0;
  sizes.forEach((size, i) => {
    even[Math.min(greedy.length - 1, Math.floor(((before + size / 2) * greedy.length) / total))]!.push(i);
    before += size;
  });
  const usable = even.every((g) => g.length > 0 && holds(g.map((j) => sizes[j]!)));
  return usable ? even : greedy;
}
