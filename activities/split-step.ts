import type { ThoughtState } from '../src/grs/types';
import type { TaskRef } from '../src/tasks/declarative/schema';
import type { LocalCheck, LocalChecks, ProblemField } from './llm-step';

/** A forEach's split: the task's named split function on the forEach's input thoughts. */
export interface SplitStep extends ProblemField {
  task: TaskRef;
  /** The forEach's input thoughts, in order: a part names them by index. */
  states: ThoughtState[];
  /** The forEach operation (its grown id inside a body), named in errors. */
  operation: string;
  split: string;
  params: Record<string, unknown>;
  /** More parts than this fail the operation before any is recorded. */
  maxParts: number;
  /** The GoO's local checks, computed on every new thought a part makes (as LLM steps do). */
  checks?: LocalCheck[];
}

/** One part as recorded: a new thought (with its checks), a group of input thoughts, or input thoughts kept as they are. */
export type SplitPart = { state: ThoughtState; checks?: LocalChecks } | { thoughts: number[] } | { keep: number[] };

/** What a split step returns: the parts, and when it ended. */
export interface SplitResult {
  parts: SplitPart[];
  /** Worker clock when the split ended (replay-stable: recorded in history). */
  at: number;
}

/**
 * The parts a split returned, checked: exactly one of `state`, `thoughts` or `keep` each, indices of
 * input thoughts in range and not repeated within a part. Returns why not as a message.
 */
export function readParts(value: unknown, inputs: number): { parts: SplitPart[] } | { error: string } {
  if (!Array.isArray(value)) return { error: `returned ${value === null ? 'null' : typeof value}, not a list of parts` };
  const parts: SplitPart[] = [];
  for (const [i, part] of value.entries()) {
    const problem = partProblem(part, inputs);
    if (problem) return { error: `part ${i} ${problem}` };
    parts.push(part as SplitPart);
  }
  return { parts };
}

function partProblem(part: unknown, inputs: number): string | undefined {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return 'is not an object';
  const keys = Object.keys(part);
  if (keys.length !== 1 || !['state', 'thoughts', 'keep'].includes(keys[0]!))
    return `must have exactly one of "state", "thoughts" or "keep"; it has ${keys.map((k) => `"${k}"`).join(', ') || 'none'}`;
  const [key] = keys as ['state' | 'thoughts' | 'keep'];
  const content = (part as Record<string, unknown>)[key];
  if (key === 'state')
    return content !== null && typeof content === 'object' && !Array.isArray(content) ? undefined : 'has a state that is not an object';
  if (!Array.isArray(content) || content.length === 0) return `needs a non-empty list of input thought indices in "${key}"`;
  const bad = content.find((n) => !Number.isInteger(n) || n < 0 || n >= inputs);
  if (bad !== undefined) return `names input thought ${JSON.stringify(bad)}, but there are ${inputs} (indices 0 to ${inputs - 1})`;
  if (new Set(content).size !== content.length) return `names an input thought twice in "${key}"`;
  return undefined;
}
