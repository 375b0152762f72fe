import { ADDABLE_TYPES, MAX_ADDED_OPERATIONS } from './limits';
import type { SteerRequest } from './types';

/**
 * A steer as it arrives in the workflow, checked by hand (the schema library stays out of the
 * workflow sandbox; `SteerRequest` is the same shape for clients and the contract): the request, or
 * what is wrong with it, naming the field.
 */
export function readSteer(input: unknown): { steer: SteerRequest } | { problem: string } {
  if (typeof input !== 'object' || input === null) return { problem: 'expected { action: "pause" | "resume" | "budget", ... }' };
  const { action, by, reason, budget, operation, thought, text, operations, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length)
    return { problem: `${extra[0]}: not a field of a steer (action, budget, operation, thought, text, operations, by, reason)` };
  for (const [field, value, max] of [
    ['by', by, 200],
    ['reason', reason, 2000],
  ] as const)
    if (value !== undefined && (typeof value !== 'string' || !value.trim() || value.length > max))
      return { problem: `${field}: expected text of 1 to ${max} characters` };
  const who = {
    ...(by !== undefined ? { by: (by as string).trim() } : {}),
    ...(reason !== undefined ? { reason: (reason as string).trim() } : {}),
  };
  const fields = { operation, thought, text, operations };
  const foreign = (allowed: string[]) => Object.entries(fields).find(([f, v]) => v !== undefined && !allowed.includes(f))?.[0];
  const text_ = (field: string, value: unknown, max: number) =>
    typeof value === 'string' && value.trim() && value.length <= max ? undefined : `${field}: expected text of 1 to ${max} characters`;
  if (action === 'pause' || action === 'resume' || action === 'prune' || action === 'instruct' || action === 'add') {
    if (budget !== undefined) return { problem: `budget: only the action "budget" takes one` };
    const allowed =
      action === 'prune'
        ? ['operation', 'thought']
        : action === 'instruct'
          ? ['operation', 'text']
          : action === 'add'
            ? ['operations']
            : [];
    const stray = foreign(allowed);
    if (stray) return { problem: `${stray}: the action "${action}" takes no ${stray}` };
  }
  if (action === 'pause' || action === 'resume') return { steer: { action, ...who } };
  if (action === 'prune') {
    if ((operation === undefined) === (thought === undefined)) return { problem: 'prune: give operation or thought, one of them' };
    const problem = operation !== undefined ? text_('operation', operation, 300) : text_('thought', thought, 400);
    if (problem) return { problem };
    return {
      steer: {
        action,
        ...(operation !== undefined ? { operation: (operation as string).trim() } : { thought: (thought as string).trim() }),
        ...who,
      },
    };
  }
  if (action === 'instruct') {
    const problem = text_('operation', operation, 300) ?? text_('text', text, 4000);
    if (problem) return { problem };
    return { steer: { action, operation: (operation as string).trim(), text: (text as string).trim(), ...who } };
  }
  if (action === 'add') {
    const problem = operationsProblem(operations);
    if (problem) return { problem };
    return { steer: { action, operations: operations as Extract<SteerRequest, { action: 'add' }>['operations'], ...who } };
  }
  if (action !== 'budget')
    return { problem: `action: expected "pause", "resume", "budget", "prune", "instruct" or "add", got ${JSON.stringify(action)}` };
  const stray = foreign([]);
  if (stray) return { problem: `${stray}: the action "budget" takes no ${stray}` };
  if (typeof budget !== 'object' || budget === null) return { problem: 'budget: expected { maxCostUsd?, maxTokens? }' };
  const { maxCostUsd, maxTokens, ...other } = budget as Record<string, unknown>;
  if (Object.keys(other).length) return { problem: `budget.${Object.keys(other)[0]}: not a budget field (maxCostUsd, maxTokens)` };
  if (maxCostUsd === undefined && maxTokens === undefined) return { problem: 'budget: give maxCostUsd, maxTokens or both' };
  if (maxCostUsd !== undefined && !(typeof maxCostUsd === 'number' && maxCostUsd > 0 && maxCostUsd <= 1_000_000))
    return { problem: 'budget.maxCostUsd: expected a number of USD above 0, at most 1,000,000' };
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && (maxTokens as number) > 0 && (maxTokens as number) <= 1e12))
    return { problem: 'budget.maxTokens: expected a whole number of tokens above 0' };
  const limits = {
    ...(maxCostUsd !== undefined ? { maxCostUsd: maxCostUsd as number } : {}),
    ...(maxTokens !== undefined ? { maxTokens: maxTokens as number } : {}),
  };
  return { steer: { action, budget: limits, ...who } };
}

/**
 * The shape of operations to add, as far as the workflow checks it (ids, types, inputs): the rest of
 * the GoO schema is checked by the worker before they join the graph (decision 104).
 */
function operationsProblem(operations: unknown): string | undefined {
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > MAX_ADDED_OPERATIONS)
    return `operations: expected 1 to ${MAX_ADDED_OPERATIONS} operations`;
  for (const [i, op] of operations.entries()) {
    const o = op as Record<string, unknown> | null;
    if (typeof o !== 'object' || o === null) return `operations.${i}: expected an operation ({ id, type, inputs, ... })`;
    if (typeof o.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(o.id))
      return `operations.${i}.id: expected an id of letters, digits, "_", "." or "-" (at most 64 characters)`;
    if (!(ADDABLE_TYPES as readonly unknown[]).includes(o.type))
      return `operations.${i}.type: expected one of ${ADDABLE_TYPES.join(', ')} (a forEach, a selector or a person's score cannot join a running graph)`;
    if (o.inputs !== undefined && !(Array.isArray(o.inputs) && o.inputs.every((x) => typeof x === 'string')))
      return `operations.${i}.inputs: expected operation ids`;
  }
  return undefined;
}
