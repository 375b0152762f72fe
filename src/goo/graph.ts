import { FAILURE } from '../run/wire';
import type { GoO, Operation, OperationOf } from './schema';

/**
 * What the Controller needs to know of a GoO besides its shape, without the schema library: the
 * workflow imports this module, and every module a workflow imports is evaluated again for each run.
 */

export const DEFAULT_LIMITS = {
  /** Samples one LLM operation may request per input thought (the paper uses at most 25). */
  maxBranches: 100,
  /** Operations a GoO declares: each may be an LLM call in the run's own history. */
  maxOperations: 10_000,
  /**
   * Operations of a GoO counting every operation its forEach operations may grow (each `maxParts` ×
   * its body). Parts that would outgrow one history run in child workflows (decision 71), so this
   * bounds the run's GRS (memory, the result), not a history: a data room of 200 documents, or 50 of
   * a thousand clauses each, grows ~2,000 to ~16,000 operations.
   */
  maxGrownOperations: 100_000,
  maxTries: 10,
  maxScoreSamples: 20,
  /** Parts one forEach may make (its `maxParts`). */
  maxParts: 10_000,
  /** forEach operations nested in one another's bodies. */
  maxNesting: 4,
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
 * worker checked): unique ids, known inputs, bounds, no cycles, forEach bodies that hold on their
 * own and stay within the limits however far they grow, and the order to run it in.
 */
export function analyzeGoO(goo: GoO, limits: Limits = DEFAULT_LIMITS, prefix = 'goo'): AnalyzedGoO {
  const issues: Issue[] = [];

  if (goo.operations.length > limits.maxOperations) {
    issues.push({
      path: formatPath([prefix, 'operations']),
      message: `at most ${limits.maxOperations} operations are allowed, got ${goo.operations.length}`,
    });
  }
  const byId = checkScope(goo.operations, [prefix, 'operations'], limits, 0, issues);
  if (goo.operations.length <= limits.maxOperations) issues.push(...growthIssues(goo.operations, [prefix, 'operations'], limits));
  if (issues.length) throw new ValidationError('GoO', issues);

  const { order, successors, sinks } = structureOf(goo.operations);
  if (order.length < goo.operations.length) {
    const cycle = findCycle(byId, new Set(order));
    throw new ValidationError('GoO', [
      { path: formatPath([prefix, 'operations']), message: `the operations form a cycle: ${cycle.join(' -> ')}` },
    ]);
  }
  return { goo, byId, order, successors, sinks };
}

type Path = (string | number)[];

/**
 * Checks one scope: the GoO's operations (depth 0) or a forEach body (depth = how many forEach
 * operations enclose it). Inputs name operations of the same scope; in a body, an operation
 * without inputs takes its part's thoughts. Returns the scope's operations by id.
 */
function checkScope(ops: readonly Operation[], path: Path, limits: Limits, depth: number, issues: Issue[]): Map<string, Operation> {
  const at = (i: number, field?: string) => formatPath([...path, i, ...(field ? [field] : [])]);
  const byId = new Map<string, Operation>();
  ops.forEach((op, i) => {
    if (byId.has(op.id)) issues.push({ path: at(i, 'id'), message: `duplicate operation id "${op.id}"` });
    byId.set(op.id, op);
  });

  ops.forEach((op, i) => {
    for (const { field, message } of checkBounds(op, limits)) issues.push({ path: at(i, field), message });
    if (depth === 0 && op.inputs.length === 0 && op.type !== 'generate' && op.type !== 'forEach') {
      issues.push({
        path: at(i, 'inputs'),
        message: `a ${op.type} operation needs at least one input operation (only generate and forEach may start from the problem)`,
      });
    }
    const seen = new Set<string>();
    for (const input of op.inputs) {
      if (input === op.id) issues.push({ path: at(i, 'inputs'), message: `"${op.id}" lists itself as an input` });
      else if (!byId.has(input))
        issues.push({
          path: at(i, 'inputs'),
          message:
            depth === 0
              ? `unknown input operation "${input}"`
              : `unknown input operation "${input}": a forEach body names only operations of the same body (an operation without inputs takes the part's thoughts)`,
        });
      if (seen.has(input)) issues.push({ path: at(i, 'inputs'), message: `input "${input}" is listed twice` });
      seen.add(input);
    }
    if (op.type === 'forEach') checkBody(op, [...path, i], limits, depth + 1, issues);
  });
  return byId;
}

/** A forEach body: nested no deeper than `limits.maxNesting`, a scope of its own without cycles. */
function checkBody(op: OperationOf<'forEach'>, path: Path, limits: Limits, nesting: number, issues: Issue[]): void {
  if (nesting > limits.maxNesting) {
    issues.push({
      path: formatPath(path),
      message: `forEach "${op.id}" is nested ${nesting} deep; at most ${limits.maxNesting} forEach operations may be nested (limits.maxNesting)`,
    });
    return;
  }
  const before = issues.length;
  const byId = checkScope(op.body, [...path, 'body'], limits, nesting, issues);
  if (issues.length > before) return;
  const { order } = structureOf(op.body);
  if (order.length < op.body.length) {
    issues.push({
      path: formatPath([...path, 'body']),
      message: `the operations form a cycle: ${findCycle(byId, new Set(order)).join(' -> ')}`,
    });
  }
}

/**
 * The most operations a list of operations may become once every forEach has grown: each forEach
 * adds `maxParts` copies of its body, and a nested one grows inside every copy.
 */
export function grownSize(ops: readonly Operation[]): number {
  return ops.reduce((sum, op) => sum + 1 + (op.type === 'forEach' ? op.maxParts * grownSize(op.body) : 0), 0);
}

/** The GoO could outgrow `limits.maxGrownOperations`: names the forEach that grows the most. */
function growthIssues(ops: readonly Operation[], path: Path, limits: Limits): Issue[] {
  const total = grownSize(ops);
  if (total <= limits.maxGrownOperations) return [];
  let largest = -1;
  let growth = 0;
  ops.forEach((op, i) => {
    const grows = op.type === 'forEach' ? op.maxParts * grownSize(op.body) : 0;
    if (grows > growth) [largest, growth] = [i, grows];
  });
  const op = ops[largest] as OperationOf<'forEach'>;
  return [
    {
      path: formatPath([...path, largest, 'maxParts']),
      message: `forEach "${op.id}" may grow ${growth} operations (maxParts ${op.maxParts} × ${growth / op.maxParts} per part), so the GoO may reach ${total} operations; at most ${limits.maxGrownOperations} are allowed (limits.maxGrownOperations)`,
    },
  ];
}

/**
 * Visits every operation, those in forEach bodies too (depth first, in declaration order), with its
 * path below `path` (e.g. `[3, 'body', 1]` for the second body operation of the fourth).
 */
export function everyOperation(
  ops: readonly Operation[],
  visit: (op: Operation, path: (string | number)[]) => void,
  path: (string | number)[] = [],
): void {
  ops.forEach((op, i) => {
    visit(op, [...path, i]);
    if (op.type === 'forEach') everyOperation(op.body, visit, [...path, i, 'body']);
  });
}

/** The scope's edges, a stable topological order (shorter than `ops` when there is a cycle) and its sinks. */
export function structureOf(ops: readonly Operation[]): { order: string[]; successors: Map<string, string[]>; sinks: string[] } {
  const successors = new Map<string, string[]>(ops.map((op) => [op.id, []]));
  for (const op of ops) for (const input of op.inputs) successors.get(input)!.push(op.id);
  const order = topologicalOrder(ops, successors);
  const sinks = ops.filter((op) => successors.get(op.id)!.length === 0).map((op) => op.id);
  return { order, successors, sinks };
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
  if (op.type === 'forEach' && op.maxParts > limits.maxParts) {
    problems.push({
      field: 'maxParts',
      message: `maxParts = ${op.maxParts} exceeds the configured bound of ${limits.maxParts} parts (limits.maxParts)`,
    });
  }
  return problems;
}

/** Kahn's algorithm, taking ready operations in declaration order so the order is stable. */
function topologicalOrder(ops: readonly Operation[], successors: Map<string, string[]>): string[] {
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
