/**
 * Whether the run would still have anything to answer with after a prune (decision 103): pure, over
 * the graph as the workflow knows it. An operation is empty when it is pruned, done with no thought
 * left unpruned, or waiting on input operations that are all empty; the run has nothing when every
 * final operation is empty. A forEach's parts are left out: pruning a part does not empty its forEach.
 */
export interface PruneGraph {
  /** The run's final operations (GoO sinks). */
  sinks: readonly string[];
  inputsOf(operationId: string): readonly string[];
  /** The thoughts a done operation passed on; undefined while it has not ended. */
  outputsOf(operationId: string): readonly string[] | undefined;
}

export interface Pruned {
  operations: ReadonlySet<string>;
  thoughts: ReadonlySet<string>;
}

export function hasAnswerLeft(graph: PruneGraph, pruned: Pruned): boolean {
  const memo = new Map<string, boolean>();
  const empty = (id: string): boolean => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    memo.set(id, false);
    const outputs = graph.outputsOf(id);
    const inputs = graph.inputsOf(id);
    const result = pruned.operations.has(id)
      ? true
      : outputs !== undefined
        ? outputs.every((t) => pruned.thoughts.has(t))
        : inputs.length > 0 && inputs.every(empty);
    memo.set(id, result);
    return result;
  };
  return graph.sinks.some((s) => !empty(s));
}

/** Whether adding this prune takes the run's last way to an answer (it had one before). */
export function leavesNothing(graph: PruneGraph, before: Pruned, prune: { operation?: string; thought?: string }): boolean {
  if (!hasAnswerLeft(graph, before)) return false;
  const after: Pruned = {
    operations: new Set([...before.operations, ...(prune.operation ? [prune.operation] : [])]),
    thoughts: new Set([...before.thoughts, ...(prune.thought ? [prune.thought] : [])]),
  };
  return !hasAnswerLeft(graph, after);
}
