/**
 * How many sequences the context holds. Each sequence has the whole window of KV cache to itself
 * (node-llama-cpp makes llama.cpp's cache per sequence, not shared), so memory grows with their
 * number: Qwen2.5-1.5B's 8,192 tokens take 235 MB a sequence. Wanted: one request's whole batch,
 * plus one sequence for each other request served at once, so a second request starts at once
 * instead of waiting for the batch; then cut to the memory budget.
 */
import type { LlamaModel } from 'node-llama-cpp';

/** The sequences of a context and how a request may use them. */
export interface SequencePlan {
  /** Sequences in the context. */
  sequences: number;
  /** Samples of one request decoded together at most; more run in rounds. */
  batch: number;
  /** KV cache of one sequence, in bytes (node-llama-cpp's estimate). */
  bytesPerSequence: number;
}

/** The plan for `parallel` requests at once, batches of up to `batch`, within `budgetBytes` of KV cache (at least one sequence). */
export function planSequences(o: { parallel: number; batch: number; bytesPerSequence: number; budgetBytes: number }): SequencePlan {
  const wanted = o.batch + o.parallel - 1;
  const affordable = o.bytesPerSequence > 0 ? Math.floor(o.budgetBytes / o.bytesPerSequence) : wanted;
  const sequences = Math.max(1, Math.min(wanted, affordable));
  // A cut keeps a sequence for each other parallel request before it keeps the batch whole.
  return { sequences, batch: Math.max(1, Math.min(o.batch, sequences - (o.parallel - 1))), bytesPerSequence: o.bytesPerSequence };
}

/** KV cache one more sequence of `contextSize` tokens takes for this model, by node-llama-cpp's own estimate. */
export async function bytesPerSequence(model: LlamaModel, contextSize: number): Promise<number> {
  const estimate = (sequences: number) =>
    model.fileInsights.estimateContextResourceRequirementsV2({ contextSize, sequences, modelGpuLayers: 0 });
  const [one, two] = await Promise.all([estimate(1), estimate(2)]);
  return Math.max(0, two.cpuRam - one.cpuRam);
}
