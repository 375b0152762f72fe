/**
 * The `n` choices of one request, decoded together: the prompt is read once on one sequence, its
 * KV cache copied to as many more sequences as the request may take, and every sequence then
 * generates one choice at a time. node-llama-cpp's batch scheduler puts the next token of every busy
 * sequence of the context (this request's and any other's) into one llama.cpp decode, so a step
 * advances all of them for little more than the cost of one: the weights are read once per step,
 * not once per sequence. With more choices than sequences the choices run in rounds.
 */
import { setMaxListeners } from 'node:events';
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import type { SlotPool } from './pool';
import { canCopyState, copyState, runOn, startFromCache } from './prefix-cache';

/** What {@link generateChoices} needs from the server. */
export interface ChoicesOptions<C> {
  pool: SlotPool<LlamaContextSequence>;
  /** The prompt as the model reads it (its chat template applied), in the model's tokens. */
  promptTokens: readonly Token[];
  n: number;
  /** Sequences one request may decode on at once (the first one included). */
  maxSequences: number;
  /** How the further sequences get the prompt (default: copied when node-llama-cpp can). */
  sharing?: PromptSharing;
  /**
   * Whether the prompt starts from the longest prefix of it a free sequence still holds
   * (prefix-cache.ts), copied when another sequence holds more than `minTokens` more of it than the
   * one read on; without it, every prompt is read in full.
   */
  prefixCache?: { minTokens: number };
  /** Hears how many prompt tokens were taken from the cache rather than read (before any choice). */
  onPromptRead?(cachedTokens: number): void;
  /** Aborts when the client goes away: generation stops, the sequences are cleared and given back. */
  signal: AbortSignal;
  /** Generates choice `index` on a sequence that already holds the prompt (but its last token). */
  generate(sequence: LlamaContextSequence, index: number, signal: AbortSignal): Promise<C>;
  /** Hears each choice as soon as it is done (they finish in any order). */
  onChoice?(index: number, choice: C): void;
}

/** How the prompt's KV cache reaches a request's further sequences: copied (one read of the prompt) or read again on each. */
export type PromptSharing = 'copy' | 'evaluate';

/** Whether this node-llama-cpp can copy a sequence's evaluated prompt to another sequence (prefix-cache.ts); without it each sequence reads the prompt itself, in the same batches. */
export function promptSharing(sequence: LlamaContextSequence): PromptSharing {
  return canCopyState(sequence) ? 'copy' : 'evaluate';
}

/** Generates the `n` choices of one prompt on sequences borrowed from `pool`; resolves in index order. */
export async function generateChoices<C>(o: ChoicesOptions<C>): Promise<C[]> {
  // LlamaChat decodes the prompt's last token itself to sample the first answer token: the rest is shared.
  const prefix = o.promptTokens.slice(0, -1);
  // With the cache, sequences are taken least recently used first: the freshest states stay for later prompts.
  const first = await o.pool.acquire(o.signal, o.prefixCache && runOn(prefix));
  const sequences = [first];
  while (sequences.length < Math.min(o.n, o.maxSequences)) {
    const extra = o.pool.tryAcquire(o.prefixCache && (() => 0));
    if (extra === undefined) break;
    sequences.push(extra);
  }
  // One failure (or the client leaving) stops every other choice of the request.
  const stop = new AbortController();
  // Every choice's generation listens to it: a batch of ten is not a leak.
  setMaxListeners(4 * Math.max(o.n, 10), stop.signal);
  const onAbort = () => stop.abort(o.signal.reason);
  o.signal.addEventListener('abort', onAbort, { once: true });
  const held = new Set(sequences);
  const giveBack = async (sequence: LlamaContextSequence) => {
    if (!held.delete(sequence)) return;
    // A generation cut short may leave its sequence mid-evaluation: the next borrower starts clean.
    if (stop.signal.aborted) await sequence.clearHistory().catch(() => {});
    o.pool.release(sequence);
  };
  try {
    if (o.prefixCache) await startFromCache(o.pool, first, prefix, o.prefixCache.minTokens);
    else await Promise.all(sequences.map((sequence) => sequence.clearHistory()));
    if ((o.sharing ?? promptSharing(first)) === 'copy') {
      o.onPromptRead?.(await readPrompt(first, prefix, stop.signal));
      await Promise.all(sequences.slice(1).map((sequence) => copyPrompt(sequence, first, prefix, stop.signal)));
    } else {
      // Read on every sequence at once: the scheduler spreads each llama.cpp batch over all of them.
      const [cached] = await Promise.all(sequences.map((sequence) => readPrompt(sequence, prefix, stop.signal)));
      o.onPromptRead?.(cached!);
    }

    const choices: C[] = new Array(o.n);
    let next = 0;
    const work = async (sequence: LlamaContextSequence) => {
      try {
        while (next < o.n) {
          const index = next++;
          choices[index] = await o.generate(sequence, index, stop.signal);
          o.onChoice?.(index, choices[index]!);
          // An extra sequence goes back as soon as another request waits for one; the first stays to finish the rounds.
          if (sequence !== first && o.pool.waiting > 0) break;
        }
      } catch (error) {
        stop.abort(error);
        throw error;
      } finally {
        await giveBack(sequence);
      }
    };
    const settled = await Promise.allSettled(sequences.map(work));
    if (stop.signal.aborted) throw stop.signal.reason;
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    return choices;
  } catch (error) {
    stop.abort(error);
    throw error;
  } finally {
    o.signal.removeEventListener('abort', onAbort);
    await Promise.all([...held].map(giveBack));
  }
}

/** Brings `sequence` to hold exactly `tokens`, keeping whatever prefix of them it already holds; resolves to that prefix's length. */
async function readPrompt(sequence: LlamaContextSequence, tokens: readonly Token[], signal: AbortSignal): Promise<number> {
  await sequence.adaptStateToTokens(tokens as Token[], false);
  const kept = sequence.nextTokenIndex;
  // In pieces of one llama.cpp batch: a client that leaves while a long prompt is read stops it at the next piece.
  const piece = Math.max(1, sequence.context.batchSize);
  for (let from = sequence.nextTokenIndex; from < tokens.length; from += piece) {
    signal.throwIfAborted();
    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(from, from + piece));
  }
  signal.throwIfAborted();
  return kept;
}

/** Gives `sequence` the prompt `source` has read: a copy of its KV cache, else (should the copy not match) read again. */
async function copyPrompt(
  sequence: LlamaContextSequence,
  source: LlamaContextSequence,
  tokens: readonly Token[],
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted();
  if (sequence.compareContextTokens(tokens as Token[]).firstDifferentIndex >= tokens.length) {
    await sequence.adaptStateToTokens(tokens as Token[], false);
    return;
  }
  if (await copyState(sequence, source, tokens.length)) return;
  await readPrompt(sequence, tokens, signal);
}
