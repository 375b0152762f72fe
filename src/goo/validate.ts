import { z } from 'zod';
import { DEFAULT_LIMITS, GoO, type GoOInput, type Operation } from './schema';

export interface Issue {
  /** Where the problem is, e.g. `operations[3].k` or `operations[sort_1].inputs`. */
  path: string;
  message: string;
}

/** A GoO (or run request) that must not run: every issue names the field and what was expected. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly subject: string,
    readonly issues: Issue[],
  ) {
    super(`invalid ${subject}:\n${issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n')}`);
  }
}

export type Limits = { [K in keyof typeof DEFAULT_LIMITS]: number };

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    return acc ? `${acc}.${String(key)}` : String(key);
  }, '');
}

export function zodIssues(error: z.ZodError, prefix = ''): Issue[] {
  return error.issues.map((issue) => ({
    path: formatPath([...(prefix ? [prefix] : []), ...issue.path]),
    message: issue.message,
  }));
}

/** Parses with a zod schema and throws a ValidationError naming each offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, subject: string, prefix = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(subject, zodIssues(result.error, prefix));
  return result.data;
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

export function validateGoO(input: GoOInput | unknown, limits: Limits = DEFAULT_LIMITS, prefix = 'goo'): AnalyzedGoO {
  const goo = parseOrThrow(GoO, input, 'GoO', prefix);
  const at = (i: number, field?: string) => formatPath([prefix, 'operations', i, ...(field ? [field] : [])]);
  const issues: Issue[] = [];

  if (goo.operations.length > limits.maxOperations) {
    issues.push({ path: formatPath([prefix, 'operations']), message: `at most ${limits.maxOperations} operations are allowed, got ${goo.operations.length}` });
  }

  const byId = new Map<string, Operation>();
  goo.operations.forEach((op, i) => {
    if (byId.has(op.id)) issues.push({ path: at(i, 'id'), message: `duplicate operation id "${op.id}"` });
    byId.set(op.id, op);
  });

  goo.operations.forEach((op, i) => {
    checkBounds(op, limits).forEach(({ field, message }) => issues.push({ path: at(i, field), message }));
    if (op.inputs.length === 0 && op.type !== 'generate') {
      issues.push({ path: at(i, 'inputs'), message: `a ${op.type} operation needs at least one input operation (only generate may start from the problem)` });
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
    throw new ValidationError('GoO', [{ path: formatPath([prefix, 'operations']), message: `the operations form a cycle: ${cycle.join(' -> ')}` }]);
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
    problems.push({ field: 'scorer.samples', message: `scorer.samples = ${op.scorer.samples} exceeds the configured bound of ${limits.maxScoreSamples}` });
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
