/**
 * Prompts' KV state kept across requests, so a prefix that prompts share is read once (decision 95).
 *
 * A sequence given back to the pool keeps what it read and wrote. A new prompt starts from the
 * longest token-exact prefix that any free sequence holds: that prefix is copied (llama.cpp's
 * `llama_memory_seq_cp`, as the n samples of a request are) onto the least recently used free
 * sequence, which the new prompt then overwrites from there on; the holder keeps its whole state for
 * the prompts after. The bound is the context's sequences (their number is planned from
 * `--kv-cache-mb`, sequences.ts): at most that many recent states are kept, each up to the context
 * size, in memory the context already has; a new prompt evicts the least recently used one.
 *
 * Token-exact by construction: a prefix counts only as far as its tokens equal the prompt's, so a
 * prompt that only looks alike (the same text tokenized otherwise, one word changed) shares nothing
 * past the first different token; and the states live in one server's context, so one model's.
 */
import { DraftSequenceTokenPredictor, type LlamaContextSequence, type Token } from 'node-llama-cpp';
import type { SlotPick, SlotPool } from './pool';

/** What the cache reads of a sequence: the tokens its KV state holds, in order. */
export interface HoldsTokens {
  readonly contextTokens: readonly Token[];
}

/** How many leading tokens `a` and `b` have in common. */
export function commonPrefix(a: readonly Token[], b: readonly Token[]): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a[i] === b[i]) i++;
  return i;
}

/** The free sequence holding the longest prefix of `tokens` (the most recent on a tie), and that prefix's length. */
export function longestPrefix<S extends HoldsTokens>(free: readonly S[], tokens: readonly Token[]): { at: number; tokens: number } {
  let best = { at: -1, tokens: 0 };
  free.forEach((sequence, at) => {
    const shared = commonPrefix(sequence.contextTokens, tokens);
    if (shared >= best.tokens) best = { at, tokens: shared };
  });
  return best;
}

/**
 * Which free sequence (least recently used first) a prompt of `tokens` is read on: the least
 * recently used one, so the longest prefix's holder is kept and copied from; the holder itself
 * only when it is the one free sequence.
 */
export function runOn<S extends HoldsTokens>(tokens: readonly Token[]): SlotPick<S> {
  return (free) => (free.length > 1 && longestPrefix(free, tokens).at === 0 ? 1 : 0);
}

/** What taking a prompt's prefix from the cache did. */
export interface CacheStart {
  /** Tokens copied from another sequence (0 when none was copied). */
  copiedTokens: number;
}

/**
 * Copies onto `target` the longest prefix of `tokens` a free sequence of `pool` holds, when it
 * is at least `minTokens` longer than what `target` already holds of them; the source is taken from
 * the pool while it is read, and given back as the most recently used.
 */
export async function startFromCache(
  pool: SlotPool<LlamaContextSequence>,
  target: LlamaContextSequence,
  tokens: readonly Token[],
  minTokens: number,
): Promise<CacheStart> {
  const held = commonPrefix(target.contextTokens, tokens);
  const best = longestPrefix(pool.idle, tokens);
  if (best.at < 0 || best.tokens - held < Math.max(1, minTokens)) return { copiedTokens: 0 };
  const source = pool.idle[best.at]!;
  if (!pool.take(source)) return { copiedTokens: 0 };
  try {
    return { copiedTokens: (await copyState(target, source, best.tokens)) ? best.tokens : 0 };
  } finally {
    pool.release(source);
  }
}

/**
 * node-llama-cpp 3.22.1 copies one sequence's KV cache to another (llama.cpp's `llama_memory_seq_cp`)
 * only through a method it marks internal (its LlamaDecisionContext uses it); the public alternative
 * is a round trip through a state file. Used when present.
 */
interface CopyableSequence {
  _copyStateFromOtherSequence?(other: LlamaContextSequence, upToTokenIndex: number): Promise<boolean>;
}

/** Whether this node-llama-cpp can copy a sequence's state to another sequence. */
export function canCopyState(sequence: LlamaContextSequence): boolean {
  return typeof (sequence as unknown as CopyableSequence)._copyStateFromOtherSequence === 'function';
}

/**
 * Makes `target` hold the first `tokens` tokens of `source`'s state; false (and `target` cleared) when
 * the copy could not be made or did not match, so the caller reads the tokens itself.
 */
export async function copyState(target: LlamaContextSequence, source: LlamaContextSequence, tokens: number): Promise<boolean> {
  const copy = (target as unknown as CopyableSequence)._copyStateFromOtherSequence;
  if (tokens > 0 && copy && (await copy.call(target, source, tokens))) {
    await copyDraftState(target, source, tokens);
    return true;
  }
  // A copy that did not match leaves the sequence's tokens and cache out of step: start it afresh.
  await target.clearHistory();
  return false;
}

/**
 * A draft model's sequence holds the same tokens as its target's, so it takes the same prefix from the
 * source's draft sequence: otherwise the draft model would read in full every prompt the target took
 * from the cache (decision 96). Best effort: a copy that fails leaves the draft to read the prompt.
 */
async function copyDraftState(target: LlamaContextSequence, source: LlamaContextSequence, tokens: number): Promise<void> {
  const [to, from] = [target.tokenPredictor, source.tokenPredictor];
  if (!(to instanceof DraftSequenceTokenPredictor && from instanceof DraftSequenceTokenPredictor)) return;
  const shared = Math.min(tokens, commonPrefix(from.draftSequence.contextTokens, source.contextTokens));
  const copy = (to.draftSequence as unknown as CopyableSequence)._copyStateFromOtherSequence;
  if (shared > 0 && copy && (await copy.call(to.draftSequence, from.draftSequence, shared))) return;
  await to.draftSequence.clearHistory();
}
