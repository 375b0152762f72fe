import type { SteerRequest } from './types';

/** What a steer is checked against: the run as it stands when the update arrives. */
export interface SteerableRun {
  /** The run started on a generation of the Controller that obeys steering (the `steering` patch). */
  steerable: boolean;
  /** The request was checked and the graph is running (not still being prepared). */
  started: boolean;
  /** The graph is done: the run is reviewing its answer or finishing. */
  graphDone: boolean;
  paused: boolean;
  budget?: { maxCostUsd?: number; maxTokens?: number };
  spent: { costUsd: number; tokens: number };
  /** The budget was found spent: operations it starved do not run again. */
  budgetExhausted: boolean;
  /** The graph as it stands, for prunes and instructions (absent: a run that does not take them). */
  graph?: SteerableGraph;
}

/** What a prune or an instruction is checked against (decision 103). */
export interface SteerableGraph {
  /** An operation's status, undefined when the graph has no such operation (yet). */
  statusOf(operationId: string): 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'cancelled' | undefined;
  /** The GoO's operations: an instruction may name a part a forEach has not grown yet. */
  gooOperations: readonly string[];
  hasThought(thoughtId: string): boolean;
  /** Whether an operation that reads this thought has not started yet. */
  readByPending(thoughtId: string): boolean;
  prunedOperation(operationId: string): boolean;
  prunedThought(thoughtId: string): boolean;
  /** Whether this prune takes the run's last way to an answer. */
  leavesNothing(prune: { operation?: string; thought?: string }): boolean;
}

const usd = (x: number) => `$${x.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')}`;

/**
 * Why a steer cannot apply to the run as it stands, in a sentence for the person who asked; undefined
 * when it can. The `steer` update's validator: a refused steer is never written to history.
 */
export function steeringRefusal(run: SteerableRun, steer: SteerRequest): string | undefined {
  if (!run.steerable) return 'this run started on a worker without steering (before decision 100); fork it or start it again to steer it';
  if (!run.started) return 'the run is still checking its request; steer it once it runs';
  if (run.graphDone) return 'the run has made all its LLM calls; nothing is left to steer';
  switch (steer.action) {
    case 'pause':
      return run.paused ? 'the run is paused already' : undefined;
    case 'resume':
      return run.paused ? undefined : 'the run is not paused';
    case 'budget': {
      if (run.budgetExhausted)
        return 'the budget was spent already and the operations it stopped do not run again; fork the run with a larger budget instead';
      const { maxCostUsd, maxTokens } = steer.budget;
      if (maxCostUsd !== undefined && maxCostUsd <= run.spent.costUsd)
        return `budget.maxCostUsd ${usd(maxCostUsd)} is not above what the run has spent (${usd(run.spent.costUsd)})`;
      if (maxTokens !== undefined && maxTokens <= run.spent.tokens)
        return `budget.maxTokens ${maxTokens} is not above the tokens the run has used (${run.spent.tokens})`;
      return undefined;
    }
    case 'prune':
      return pruneRefusal(run.graph, steer);
    case 'instruct':
      return instructRefusal(run.graph, steer);
    case 'add':
      return addRefusal(run.graph, steer.operations);
  }
}

/** Operations to add: new ids, inputs the graph or the others have, no cycle among them, no person's score (decision 104). */
function addRefusal(
  graph: SteerableGraph | undefined,
  operations: readonly { id: string; type: string; inputs?: string[] }[],
): string | undefined {
  if (!graph) return NOT_HERE;
  const ids = new Set<string>();
  for (const [i, op] of operations.entries()) {
    if (graph.statusOf(op.id) !== undefined || graph.gooOperations.includes(op.id))
      return `operations.${i}.id: the run has an operation "${op.id}" already`;
    if (ids.has(op.id)) return `operations.${i}.id: "${op.id}" is added twice`;
    ids.add(op.id);
    if ((op as { scorer?: { kind?: string } }).scorer?.kind === 'human')
      return `operations.${i}.scorer: a person's score cannot join a running graph (add a local or an LLM scorer)`;
  }
  for (const [i, op] of operations.entries())
    for (const input of op.inputs ?? [])
      if (!ids.has(input) && graph.statusOf(input) === undefined) return `operations.${i}.inputs: the run has no operation "${input}"`;
  // No cycle among the added operations (the graph's own cannot read them).
  const placed = new Set<string>();
  for (let progress = true; progress; ) {
    progress = false;
    for (const op of operations)
      if (!placed.has(op.id) && (op.inputs ?? []).every((x) => !ids.has(x) || placed.has(x))) {
        placed.add(op.id);
        progress = true;
      }
  }
  const cyclic = operations.find((op) => !placed.has(op.id));
  return cyclic ? `operations: "${cyclic.id}" reads itself through the operations added with it (a cycle)` : undefined;
}

const NOT_HERE = 'this run started on a worker that cannot change its graph (before decision 103); fork it instead';

function pruneRefusal(graph: SteerableGraph | undefined, prune: { operation?: string; thought?: string }): string | undefined {
  if (!graph) return NOT_HERE;
  if (prune.operation !== undefined) {
    const status = graph.statusOf(prune.operation);
    if (status === undefined) return `operation: the run has no operation "${prune.operation}" (a forEach's parts exist once it has grown)`;
    if (status !== 'pending')
      return `operation "${prune.operation}" has ${status === 'running' ? 'started' : 'ended'}: only one that has not started can be pruned`;
    if (graph.prunedOperation(prune.operation)) return `operation "${prune.operation}" is pruned already`;
  } else {
    const thought = prune.thought!;
    if (!graph.hasThought(thought)) return `thought: the run has no thought "${thought}"`;
    if (graph.prunedThought(thought)) return `thought "${thought}" is pruned already`;
    if (!graph.readByPending(thought)) return `every operation that reads "${thought}" has started: pruning it changes nothing`;
  }
  if (graph.leavesNothing(prune))
    return `pruning "${prune.operation ?? prune.thought}" leaves the run nothing to answer with: no final operation would get a thought`;
  return undefined;
}

function instructRefusal(graph: SteerableGraph | undefined, instruct: { operation: string }): string | undefined {
  if (!graph) return NOT_HERE;
  const status = graph.statusOf(instruct.operation);
  const top = instruct.operation.split(/[[.]/, 1)[0]!;
  if (status === undefined && !graph.gooOperations.includes(top)) return `operation: the run has no operation "${instruct.operation}"`;
  if (status !== undefined && status !== 'pending' && status !== 'running')
    return `operation "${instruct.operation}" has ended: fork the run with these instructions to redo it (got fork <id> --instruct '${instruct.operation}=...')`;
  return undefined;
}
