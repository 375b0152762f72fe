import { type AnalyzedGoO, type Issue, structureOf } from '../goo/graph';
import type { Operation, OperationOf } from '../goo/schema';

/**
 * Temporal's limits that a run's payloads meet: a workflow task's reply travels in one gRPC message
 * (4 MB), one payload may hold 2 MB. Every LLM step carries the run's problem (the documents of a
 * merge), so a large problem times the calls a workflow task starts can exceed them, and a run whose
 * workflow task cannot be sent would retry it forever. Kept well below, for the thoughts and the
 * encoding beside the problem (docs/decisions.md, 31).
 */
export const PAYLOAD_LIMITS = { workflowTaskBytes: 3_000_000, payloadBytes: 1_500_000 } as const;

/** How many thoughts each operation outputs at most, and how many LLM calls it starts at once. */
export interface GooWidth {
  /** The most LLM calls one operation starts together (they are scheduled in one workflow task). */
  widestCalls: number;
  /** Which operation that is. */
  widestOperation: string;
}

/**
 * An upper bound on the LLM calls each operation starts at once, following thought counts through the
 * GoO: a generate asks once per input thought (k per input with per-sample fan-out) and yields k
 * thoughts per input (a split's `params.parts` each); an LLM score judges every input thought; a
 * forEach runs its body on up to `maxParts` parts at once (one thought each for a split's parts).
 */
export function gooWidth(analyzed: AnalyzedGoO, perSample: boolean): GooWidth {
  const { calls, operation } = scopeWidth(
    analyzed.order.map((id) => analyzed.byId.get(id)!),
    1,
    perSample,
  );
  return { widestCalls: calls, widestOperation: operation };
}

/** The widest step of operations in a topological order whose operations without inputs start from `start` thoughts; and their sinks' thoughts. */
function scopeWidth(ops: readonly Operation[], start: number, perSample: boolean): { calls: number; operation: string; out: number } {
  const thoughts = new Map<string, number>();
  const consumed = new Set(ops.flatMap((op) => op.inputs));
  let widest = { calls: 0, operation: '' };
  for (const op of ops) {
    const inputs = op.inputs.length === 0 ? start : op.inputs.reduce((sum, i) => sum + (thoughts.get(i) ?? 0), 0);
    const { calls, out, operation } =
      op.type === 'forEach' ? forEachWidth(op, inputs, perSample) : { ...widthOf(op, inputs, perSample), operation: op.id };
    thoughts.set(op.id, out);
    if (calls > widest.calls) widest = { calls, operation };
  }
  const out = ops.filter((op) => !consumed.has(op.id)).reduce((sum, op) => sum + thoughts.get(op.id)!, 0);
  return { ...widest, out };
}

function forEachWidth(op: OperationOf<'forEach'>, inputs: number, perSample: boolean): { calls: number; out: number; operation: string } {
  const parts = op.parts === 'each' ? Math.min(inputs, op.maxParts) : op.maxParts;
  // A part starts from one thought (an input thought, or the one a split made); a split's group of
  // input thoughts is counted as one too: the groups share the inputs, which bound the calls anyway.
  if (!op.body.length) return { calls: 0, out: parts, operation: op.id };
  const { order } = structureOf(op.body);
  const byId = new Map(op.body.map((b) => [b.id, b]));
  const body = scopeWidth(
    order.map((id) => byId.get(id)!),
    1,
    perSample,
  );
  // The parts' copies start together: their widest steps may fall into one workflow task.
  return { calls: parts * body.calls, out: parts * body.out, operation: op.id };
}

/** The LLM calls one operation starts on `inputs` thoughts (each together), and the thoughts it outputs at most. */
export function widthOf(op: Operation, inputs: number, perSample: boolean): { calls: number; out: number } {
  switch (op.type) {
    case 'generate': {
      const parts = typeof op.params?.parts === 'number' && op.params.parts > 0 ? op.params.parts : 1;
      return { calls: inputs * (perSample ? op.k : 1), out: inputs * op.k * parts };
    }
    case 'aggregate':
      return { calls: inputs > 0 ? (perSample ? op.k : 1) : 0, out: op.k };
    case 'improve':
    case 'validateAndImprove':
      return { calls: inputs, out: inputs };
    case 'score':
      return { calls: op.scorer.kind === 'llm' ? inputs : 0, out: inputs };
    case 'keepBestN':
      return { calls: 0, out: Math.min(op.n, inputs) };
    default:
      return { calls: 0, out: inputs };
  }
}

/**
 * What a run's payloads would exceed, before it starts, when they all travel inline (no payload
 * store): the problem travels with every LLM step, so the widest set of calls started together must
 * fit one workflow task's reply, and the problem one payload. Issues name `problem` and the limit.
 */
export function footprintIssues(problemBytes: number, width: GooWidth): Issue[] {
  const issues: Issue[] = [];
  const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;
  if (problemBytes > PAYLOAD_LIMITS.payloadBytes) {
    issues.push({
      path: 'problem',
      message: `is ${mb(problemBytes)}; every LLM step carries it, and one payload may hold at most ${mb(PAYLOAD_LIMITS.payloadBytes)} here`,
    });
  } else if (problemBytes * width.widestCalls > PAYLOAD_LIMITS.workflowTaskBytes) {
    issues.push({
      path: 'problem',
      message: `is ${mb(problemBytes)}, and operation "${width.widestOperation}" starts up to ${width.widestCalls} LLM calls at once, each carrying it: ${mb(problemBytes * width.widestCalls)} in one workflow task, over the ${mb(PAYLOAD_LIMITS.workflowTaskBytes)} it may hold here; keep large payloads in a store (GOT_STORE; it is off), use fewer or shorter documents, or a GoO with narrower steps`,
    });
  }
  return issues;
}
