import { ApplicationFailure, executeChild, isCancellation, workflowInfo } from '@temporalio/workflow';
import { type ForEachOperation, type GrownPart, partId } from '../../src/goo/grow';
import { budgetShare, partBatches } from '../../src/parts/plan';
import { DEFAULT_CHILD_MAX_CALLS, PARTS_WORKFLOW_TYPE, WORKFLOW_TASK_TIMEOUT_SECONDS } from '../../src/run/wire';
import { budgetOf, budgetUsed } from '../budget';
import type { OpClock, RunContext } from '../context';
import { rootCause } from '../failures';
import type { graphParts } from './child';
import type { PartsInput, PartsResult } from './types';

/** What a child workflow's outcome changes in the run's Scheduler: its operations end, or its forEach does. */
export interface RunsElsewhere {
  /** What runs now: a child running is shown (and awaited on cancellation) as `<forEach>[<first>-<last>]`. */
  readonly running: Set<string>;
  doneElsewhere(id: string, outputs: string[], at: number): void;
  endedElsewhere(id: string, error: unknown, operation?: string): void;
}

/**
 * Runs a grown forEach's parts in child workflows when they may make more LLM calls than one history
 * should hold (decision 71); returns false, starting nothing, when they run here. Each child runs a
 * batch of parts worth at most `children.maxCalls` calls and takes one of the run's call slots, with
 * an even share of `maxConcurrentCalls` for its own calls and, with a budget, an even share of what
 * is left of it: the run never overspends by more than the calls in flight across its children.
 */
export function runsInChildren(
  ctx: RunContext,
  scheduler: RunsElsewhere,
  { op, clock, copies }: { op: ForEachOperation; clock: OpClock; copies: (GrownPart | undefined)[] },
): boolean {
  const { llm, children } = ctx.request;
  const running = copies.flatMap((copy, part) => (copy ? [part] : []));
  const batches = partBatches(op, running, {
    perSample: llm.fanOut === 'perSample',
    maxCalls: children?.maxCalls ?? DEFAULT_CHILD_MAX_CALLS,
    here: ctx.grs.spent.llmCalls - ctx.elsewhere.calls,
  });
  if (!batches) return false;

  const slots = Math.max(1, Math.floor(llm.maxConcurrentCalls / Math.min(batches.length, llm.maxConcurrentCalls)));
  let waiting = batches.length;
  let inFlight = batches.length;
  for (const parts of batches) {
    const operations = parts.flatMap((part) => copies[part]!.operations);
    const label = `${partId(op.id, parts[0]!)}`.replace(/\]$/, parts.length > 1 ? `-${parts.at(-1)}]` : ']');
    const input = inputOf(ctx, op, operations, slots);
    scheduler.running.add(label);

    const workflowId = `${workflowInfo().workflowId}.parts.${label}`;
    const ended = () => {
      scheduler.running.delete(label);
      ctx.elsewhere.running.delete(workflowId);
      inFlight--;
    };
    ctx.slots
      .run(async () => {
        // The budget as it stands when the child starts: a person may have changed it (decision 100).
        const budget = budgetOf(ctx);
        const share = budget ? budgetShare(budget, budgetUsed(ctx), waiting) : undefined;
        waiting--;
        hold(ctx, share, 1);
        ctx.elsewhere.running.add(workflowId);
        try {
          return await executeChild<typeof graphParts>(PARTS_WORKFLOW_TYPE, {
            args: [share ? { ...input, request: { ...input.request, budget: share } } : input],
            workflowId,
            // Replay compares a child's id and type, not its timeouts: recorded runs replay as they were.
            workflowTaskTimeout: `${WORKFLOW_TASK_TIMEOUT_SECONDS}s`,
            staticSummary: `parts ${parts[0]}–${parts.at(-1)} of forEach "${op.id}": ${operations.length} operations`,
          });
        } finally {
          // What it spent replaces its share once its facts are folded in, in this same turn.
          hold(ctx, share, -1);
        }
      }, input)
      .then(
        (result) => {
          ended();
          fold(ctx, result);
          if (result.failure) {
            const error = ApplicationFailure.nonRetryable(result.failure.message);
            scheduler.endedElsewhere(operations[0]!.id, error, result.failure.operation);
          } else {
            for (const { id } of operations) {
              const record = ctx.grs.operation(id);
              scheduler.doneElsewhere(id, record.outputThoughts, record.endedAt ?? clock.at);
            }
          }
          ctx.progressChanged();
        },
        (error) => {
          ended();
          const cancelled = isCancellation(error);
          for (const { id } of operations) {
            const { status } = ctx.grs.operation(id);
            if (status === 'pending' || status === 'running')
              ctx.grs.finishOperation(
                id,
                [],
                clock.at,
                cancelled ? 'cancelled' : 'failed',
                cancelled ? 'the run was cancelled' : rootCause(error),
              );
          }
          // A cancelled run's forEach ends once none of its children runs.
          if (!cancelled || inFlight === 0) scheduler.endedElsewhere(operations[0]!.id, error);
          ctx.progressChanged();
        },
      );
  }
  return true;
}

/** A child's input: the run's settings and problem, the batch's operations and where each starts. */
function inputOf(ctx: RunContext, op: ForEachOperation, operations: PartsInput['operations'], slots: number): PartsInput {
  const starts = operations.flatMap((o) =>
    o.inputs.length === 0 ? [[o.id, ctx.graph.startOf(o.id)!] as [string, NonNullable<ReturnType<typeof ctx.graph.startOf>>]] : [],
  );
  const thoughtIds = [...new Set(starts.flatMap(([, start]) => start.thoughts))];
  return {
    // The GoO and the problem stay the run's: the child is given its operations and the problem's reference.
    request: { ...ctx.request, problem: null, goo: { version: 1, operations: [] } },
    problem: ctx.problem,
    forEach: op.id,
    operations,
    starts,
    thoughts: thoughtIds.map((id) => ctx.grs.thought(id)),
    checks: ctx.checks,
    checked: thoughtIds.flatMap((id) =>
      ctx.checked.has(id) ? [[id, ctx.checked.get(id)!] as [string, NonNullable<ReturnType<typeof ctx.checked.get>>]] : [],
    ),
    slots,
    ...(ctx.slots.storedFrom !== undefined ? { storedFrom: ctx.slots.storedFrom } : {}),
    ...(ctx.inheritance ? { inherits: ctx.inheritance.forParts(operations.map((o) => o.id)) } : {}),
    ...(ctx.steering?.instructionList.length ? { instructions: [...ctx.steering.instructionList] } : {}),
  };
}

/** The child's facts folded into the run's GRS, in the order the child made them, and the checks of the thoughts it made. */
function fold(ctx: RunContext, result: PartsResult): void {
  for (const fact of result.facts) {
    ctx.grs.apply(fact);
    if (fact.kind === 'callRecorded') ctx.elsewhere.calls++;
  }
  for (const [id, checks] of result.checked) ctx.checked.set(id, checks);
}

function hold(ctx: RunContext, share: { maxCostUsd?: number; maxTokens?: number } | undefined, sign: 1 | -1): void {
  if (!share) return;
  ctx.elsewhere.costUsd += sign * (share.maxCostUsd ?? 0);
  ctx.elsewhere.tokens += sign * (share.maxTokens ?? 0);
}
