import { LOCAL_MODELS, modelIdOf } from '../localllm/models';
import { SIMULATED_MODEL } from '../run/wire';
import type { ChatMessage } from '../tasks/task';
import { chatPromptTokens } from './answers';

/**
 * How many tokens a model takes in one request (prompt and answer together), and how many tokens a
 * prompt comes to, estimated without a tokenizer. Schemes use both to keep every prompt inside the
 * window (decision 36).
 */

/** The window assumed for a model this table does not know: every current chat model takes at least this. */
export const UNKNOWN_MODEL_CONTEXT_TOKENS = 8_192;

/**
 * The simulated LLM's window: the same as gpt-4o-mini, the model a configured endpoint runs by
 * default, so a simulated run is planned as a real one would be. The paper's problems fit it whole;
 * a data room of long contracts does not.
 */
export const SIMULATED_CONTEXT_TOKENS = 128_000;

/** A family of models, matched on the model name (lower case, without an `org/` prefix), and its window. */
interface KnownWindow {
  family: string;
  match: RegExp;
  tokens: number;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The built-in local models under the ids `got local-llm` serves them as, with the window it serves
 * them with by default (smaller than the window they were trained for, and what a request must fit).
 */
const SERVED_LOCAL_MODELS: readonly KnownWindow[] = Object.values(LOCAL_MODELS).map((m) => ({
  family: `${m.name} as served by got local-llm`,
  match: new RegExp(`^${escapeRegExp(modelIdOf(m.file).toLowerCase())}$`),
  tokens: m.contextSize,
}));

// First match wins: the more specific names come before the families they belong to.
const KNOWN_WINDOWS: readonly KnownWindow[] = [
  { family: 'the simulated LLM', match: new RegExp(`^${SIMULATED_MODEL}$`), tokens: SIMULATED_CONTEXT_TOKENS },
  ...SERVED_LOCAL_MODELS,
  // GPT-4.1 takes about a million tokens (OpenAI's model page: 1,047,576).
  { family: 'gpt-4.1', match: /^gpt-4\.1(?:-|$)/, tokens: 1_047_576 },
  { family: 'gpt-4o', match: /^(?:chatgpt-)?gpt-4o(?:-|$)/, tokens: 128_000 },
  { family: 'gpt-4-turbo', match: /^gpt-4-(?:turbo|1106-preview|0125-preview|vision-preview)/, tokens: 128_000 },
  { family: 'gpt-4-32k', match: /^gpt-4-32k/, tokens: 32_768 },
  { family: 'gpt-4', match: /^gpt-4(?:-0314|-0613)?$/, tokens: 8_192 },
  // The first gpt-3.5-turbo snapshots and the instruct model took 4,096; today's alias takes 16,385.
  { family: 'gpt-3.5-turbo (4K)', match: /^gpt-3\.5-turbo-(?:0301|0613|instruct)/, tokens: 4_096 },
  { family: 'gpt-3.5-turbo', match: /^gpt-3\.5-turbo/, tokens: 16_385 },
  { family: 'o1-mini / o1-preview', match: /^o1-(?:mini|preview)/, tokens: 128_000 },
  { family: 'o-series (o1, o3, o4-mini)', match: /^o[134](?:-|$)/, tokens: 200_000 },
  { family: 'llama-3.1/3.2/3.3', match: /^(?:meta-)?llama-?3\.[123](?:\D|$)/, tokens: 131_072 },
  { family: 'llama-3', match: /^(?:meta-)?llama-?3(?:\D|$)/, tokens: 8_192 },
  { family: 'mixtral-8x22b', match: /^(?:open-)?mixtral-8x22b/, tokens: 65_536 },
  { family: 'mixtral', match: /^(?:open-)?mixtral/, tokens: 32_768 },
  { family: 'mistral-large / mistral-nemo', match: /^(?:open-)?mistral-(?:large|nemo)/, tokens: 131_072 },
  { family: 'mistral-7b v0.1', match: /^mistral-7b(?:-instruct)?-v0\.1/, tokens: 8_192 },
  { family: 'mistral', match: /^(?:open-)?mistral/, tokens: 32_768 },
  // Qwen2.5 reaches 131,072 only with YaRN scaling switched on; served as shipped it takes 32,768.
  { family: 'qwen2.5', match: /^qwen2\.5/, tokens: 32_768 },
  // Other SmolLM2 builds: as `got local-llm` serves the built-in one (the model was trained on 8,192).
  { family: 'SmolLM2 as served by got local-llm', match: /^smollm2/, tokens: LOCAL_MODELS['smollm2-135m'].contextSize },
];

/** A model's window from the table, or undefined for a model it does not know. */
export function knownContextTokens(model: string): { family: string; tokens: number } | undefined {
  const name = model.trim().toLowerCase().split('/').at(-1)!;
  const known = KNOWN_WINDOWS.find((w) => w.match.test(name));
  return known && { family: known.family, tokens: known.tokens };
}

/** The window a run will use, and where that number comes from. */
export interface ContextWindow {
  tokens: number;
  source: 'settings' | 'known model' | 'default';
  /** The family the model name matched, for `known model`. */
  family?: string;
}

/** The window of a run's LLM settings: `contextTokens` when set, else the table's, else the conservative default. */
export function contextWindowOf(llm: { model?: string; contextTokens?: number }): ContextWindow {
  if (llm.contextTokens !== undefined) return { tokens: llm.contextTokens, source: 'settings' };
  const known = knownContextTokens(llm.model ?? SIMULATED_MODEL);
  return known
    ? { tokens: known.tokens, source: 'known model', family: known.family }
    : { tokens: UNKNOWN_MODEL_CONTEXT_TOKENS, source: 'default' };
}

/** The context window, in tokens, that a run with these LLM settings plans its prompts for. */
export function contextTokensOf(llm: { model?: string; contextTokens?: number }): number {
  return contextWindowOf(llm).tokens;
}

/**
 * Characters per token assumed for ASCII text. Measured on NDAs (documents.csv, 561,373 characters):
 * o200k 4.84 per token (3.99 for the densest document), cl100k 4.80, SmolLM2's tokenizer 4.30
 * (3.39 for the densest document); generated contracts 5.4 (o200k). 3 stays above every count.
 */
export const CHARS_PER_TOKEN = 3;

/**
 * The tokens of a text, estimated from above without a tokenizer: CHARS_PER_TOKEN ASCII characters
 * to a token, every other character a token of its own (scripts such as Chinese come
 * close to one token per character). Additive: the estimate of a text is at most the sum of its
 * pieces' estimates. 6 MB take 8 ms; the o200k tokenizer takes 200 ms (and ~0.45 s to load, decision 22).
 */
export function estimateTokens(text: string): number {
  let other = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) other++;
  return Math.ceil((text.length - other) / CHARS_PER_TOKEN) + other;
}

/** A chat prompt's tokens, estimated as `estimateTokens` does, with the chat format's overhead per message. */
export function estimateChatTokens(messages: readonly ChatMessage[]): number {
  // chatPromptTokens counts `encode(text).length`; an array-like of the estimated length stands in for the tokens.
  return chatPromptTokens(messages, (text) => ({ length: estimateTokens(text) }) as number[]);
}
