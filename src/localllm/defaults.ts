/**
 * Defaults of the local model server, kept apart from the server itself so the CLI can show them
 * without loading node-llama-cpp.
 */
/** Defaults of `got local-llm` and `startLocalLlm`. */
export const LOCAL_LLM_DEFAULTS = {
  host: '127.0.0.1',
  /** Next to the simulated LLM's 8000. */
  port: 8001,
  /** Tokens per sequence, prompt and answer together, for a GGUF file of the user's; a built-in model has its own (models.ts). */
  contextSize: 2048,
  /** Requests served at once even while one of them decodes a full batch, each on a sequence of its own; more wait for a free one. */
  parallel: 2,
  /**
   * Samples of one request (its `n`) decoded together at most, one sequence each, the prompt read
   * once; a larger `n` runs in rounds. GoT's widest steps ask for 10.
   */
  batch: 10,
  /** Memory for the KV cache of all sequences together, in MiB: fewer sequences are made when they would take more. */
  kvCacheMb: 2048,
  /**
   * CPU threads for llama.cpp. One, because its threads spin while they wait for each other: on a
   * machine whose cores are busy with other work, two threads ran SmolLM2 5 to 25 times slower than one (decision 19).
   */
  threads: 1,
  /**
   * Whether a new prompt starts from the longest prefix of it that a free sequence still holds
   * (prefix-cache.ts, decision 95). The cache is bounded by the context's sequences (see `kvCacheMb`):
   * that many recent states at most, the least recently used overwritten first.
   */
  prefixCache: true,
  /**
   * A prefix is copied from another sequence only when it holds at least this many more prompt tokens
   * than the sequence read on: fewer take less time to read than the copy of a whole state takes.
   */
  prefixCacheMinTokens: 8,
  /**
   * How tokens are predicted ahead (prediction.ts, decision 96): none by default, because on one
   * thread of a busy CPU checking predictions cost more than the right ones saved (Qwen-1.5B, GoT
   * sorting-32: input lookup and a 0.5B draft were both slower; BENCHMARKS.md).
   */
  prediction: 'off',
  /** Input lookup: tokens of the answer's end that must recur in the prompt, and tokens predicted after them at most (pattern 1 and 4 measured no better). */
  inputLookup: { patternMinTokens: 2, predictMaxTokens: 3 },
  /**
   * Tokens a draft model drafts ahead at most, and at least before the model goes on (it waits for
   * them): without a minimum the draft runs beside the model and, on a busy CPU, had nothing ready
   * in time (no prediction checked in a whole run). Not tuned.
   */
  draftTokens: { min: 2, max: 4 },
  /** The built-in model drafting for `--prediction draft`: the 1.5B's smaller sibling, of the same tokenizer. */
  draftModel: 'qwen2.5-coder-0.5b',
} as const;
