import { FAILURE } from '../run/wire';
import type { GoO, Operation } from './schema';

/**
 * What the Controller needs to know of a GoO besides its shape, without the schema library: the
 * workflow imports this module, and every module a workflow imports is evaluated again for each run.
 */

export const DEFAULT_LIMITS = {
  /** Samples one LLM operation may request per input thought (the paper uses at most 25). */
  maxBranches: 100,
  maxOperations: 2000,
  maxTries: 10,
  maxScoreSamples: 20,
} as const;

export type Limits = { [K in keyof typeof DEFAULT_LIMITS]: number };

/** Operations that call the LLM: these become activities and count against the budget. */
export const LLM_OPERATION_TYPES = ['generate', 'aggregate', 'improve', 'validateAndImprove'] as const;

export function callsLlm(op: Operation): boolean {
  return (LLM_OPERATION_TYPES as readonly string[]).includes(op.type) || (op.type === 'score' && op.scorer.kind === 'llm');
}

export interface Issue {
  /** Where the problem is, e.g. `operations[3].k` or `operations[sort_1].inputs`. */
  path: string;
  message: string;
}

/** A GoO (or run request) that must not run: every issue names the field and what was expected. */
export class ValidationError extends Error {
  override readonly name = FAILURE.validation;
  constructor(
    readonly subject: string,
    readonly issues: Issue[],
  ) {
    super(`invalid ${subject}:\n${issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n')}`);
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    return acc ? `${acc}.${String(key)}` : String(key);
  }, '');
}

/** A validated GoO with the derived structure the Controller needs. */
export interface AnalyzedGoO {
  goo: GoO;
  byId: Map<string, Operation>;
  /** A topological order (stable: follows declaration order where the edges allow). */
  order: string[];
  successors: Map<string, string[]>;
  /** Operations nobody consumes: their output thoughts are the run's final thoughts. */
  sinks: string[];
}

/**
 * The structure of a GoO that has the schema's shape (parsed by `validateGoO`, or a request the
 * worker checked): unique ids, known inputs, bounds, no cycles, and the order to run it in.
 */
export function analyzeGoO(goo: GoO, limits: Limits = DEFAULT_LIMITS, prefix = 'goo'): AnalyzedGoO {
  const at = (i: number, field?: string) => formatPath([prefix, 'operations', i, ...(field ? [field] : [])]);
  const issues: Issue[] = [];

  if (goo.operations.length > limits.maxOperations) {
    issues.push({
      path: formatPath([prefix, 'operations']),
      message: `at most ${limits.maxOperations} operations are allowed, got ${goo.operations.length}`,
    });
  }

  const byId = new Map<string, Operation>();
  goo.operations.forEach((op, i) => {
    if (byId.has(op.id)) issues.push({ path: at(i, 'id'), message: `duplicate operation id "${op.id}"` });
    byId.set(op.id, op);
  });

  goo.operations.forEach((op, i) => {
    for (const { field, message } of checkBounds(op, limits)) issues.push({ path: at(i, field), message });
    if (op.inputs.length === 0 && op.type !== 'generate') {
      issues.push({
        path: at(i, 'inputs'),
        message: `a ${op.type} operation needs at least one input operation (only generate may start from the problem)`,
      });
    }
    const seen = new Set<string>();
    for (const input of op.inputs) {
      if (input === op.id) issues.push({ path: at(i, 'inputs'), message: `"${op.id}" lists itself as an input` });
      else if (!byId.has(input)) issues.push({ path: at(i, 'inputs'), message: `unknown input operation "${input}"` });
      if (seen.has(input)) issues.push({ path: at(i, 'inputs'), message: `input "${input}" is listed twice` });
      seen.add(input);
    }
  });
  if (issues.length) throw new ValidationError('GoO', issues);

  const successors = new Map<string, string[]>(goo.operations.map((op) => [op.id, []]));
  for (const op of goo.operations) for (const input of op.inputs) successors.get(input)!.push(op.id);

  const order = topologicalOrder(goo.operations, successors);
  if (order.length < goo.operations.length) {
    const cycle = findCycle(byId, new Set(order));
    throw new ValidationError('GoO', [
      { path: formatPath([prefix, 'operations']), message: `the operations form a cycle: ${cycle.join(' -> ')}` },
    ]);
  }
  const sinks = goo.operations.filter((op) => successors.get(op.id)!.length === 0).map((op) => op.id);
  return { goo, byId, order, successors, sinks };
}

function checkBounds(op: Operation, limits: Limits): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  if ((op.type === 'generate' || op.type === 'aggregate') && op.k > limits.maxBranches) {
    problems.push({ field: 'k', message: `k = ${op.k} exceeds the configured bound of ${limits.maxBranches} branches` });
  }
  if (op.type === 'validateAndImprove' && op.tries > limits.maxTries) {
    problems.push({ field: 'tries', message: `tries = ${op.tries} exceeds the configured bound of ${limits.maxTries}` });
  }
  if (op.type === 'score' && op.scorer.kind === 'llm' && op.scorer.samples > limits.maxScoreSamples) {
    problems.push({
      field: 'scorer.samples',
      message: `scorer.samples = ${op.scorer.samples} exceeds the configured bound of ${limits.maxScoreSamples}`,
    });
  }
  return problems;
}

/** Kahn's algorithm, taking ready operations in declaration order so the order is stable. */
function topologicalOrder(ops: Operation[], successors: Map<string, string[]>): string[] {
  const remaining = new Map(ops.map((op) => [op.id, op.inputs.length]));
  const order: string[] = [];
  let ready = ops.filter((op) => op.inputs.length === 0).map((op) => op.id);
  while (ready.length) {
    const next: string[] = [];
    for (const id of ready) {
      order.push(id);
      for (const succ of successors.get(id)!) {
        const left = remaining.get(succ)! - 1;
        remaining.set(succ, left);
        if (left === 0) next.push(succ);
      }
    }
    ready = next;
  }
  return order;
}

function findCycle(byId: Map<string, Operation>, acyclic: Set<string>): string[] {
  // Every operation left out of the topological order lies on or behind a cycle: walk inputs until one repeats.
  let current = [...byId.keys()].find((id) => !acyclic.has(id))!;
  const path: string[] = [];
  while (!path.includes(current)) {
    path.push(current);
    current = byId.get(current)!.inputs.find((input) => !acyclic.has(input))!;
  }
  return [...path.slice(path.indexOf(current)), current].reverse();
}
