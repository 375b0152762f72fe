import { callsLlm, type GoO } from '../src/goo/schema';
import { validateGoO } from '../src/goo/validate';
import type { Grs } from '../src/grs/types';

/**
 * How many LLM calls deep a GoO is: its longest chain of dependent LLM operations. With a fixed
 * latency per call, depth x latency is the physical limit of a run's wall time (every call on the
 * chain must wait for the one before it), whatever the parallelism.
 */
export function llmDepth(goo: GoO): number {
  const { byId, order } = validateGoO(goo);
  const depth = new Map<string, number>();
  for (const id of order) {
    const op = byId.get(id)!;
    const before = Math.max(0, ...op.inputs.map((i) => depth.get(i)!));
    const own = op.type === 'validateAndImprove' ? 0 : callsLlm(op) ? 1 : 0; // validation chains vary per run
    depth.set(id, before + own);
  }
  return Math.max(...depth.values());
}

/**
 * The critical path as the run actually saw it: the longest chain of operations where each LLM
 * operation weighs its slowest call (its calls run in parallel). Wall time over this is the
 * Controller's own overhead, whatever the LLM's (or the simulator's) speed.
 */
export function measuredCriticalPathMs(goo: GoO, grs: Grs): number {
  const { byId, order } = validateGoO(goo);
  const slowest = new Map<string, number>();
  for (const c of grs.calls) slowest.set(c.operationId, Math.max(slowest.get(c.operationId) ?? 0, c.latencyMs));
  const until = new Map<string, number>();
  for (const id of order) {
    const op = byId.get(id)!;
    until.set(id, Math.max(0, ...op.inputs.map((i) => until.get(i)!)) + (slowest.get(id) ?? 0));
  }
  return Math.max(...until.values());
}
