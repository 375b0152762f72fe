import { existsSync, readFileSync } from 'node:fs';
import { SteerRefusedError, steerRun } from '../../client/steer';
import { ValidationError } from '../../goo/validate';
import { describeSteer } from '../../steering/describe';
import { SteerRequest } from '../../steering/types';
import { withCliClient } from '../cli-client';

export interface SteerOptions {
  maxCost?: string;
  maxTokens?: string;
  /** prune and instruct: the operation; prune: or the thought; instruct: the instructions. */
  operation?: string;
  thought?: string;
  text?: string;
  /** add: the operations, as JSON or a JSON file. */
  operations?: string;
  by?: string;
  reason?: string;
  json: boolean;
}

/** `--operations`: a JSON array of operations, inline or in a file. */
function operationsOf(given: string): unknown {
  const text = given.trim().startsWith('[') ? given : existsSync(given) ? readFileSync(given, 'utf8') : given;
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('steer', [{ path: '--operations', message: 'expected a JSON array of operations, or a file holding one' }]);
  }
}

/** The steer the command line asks for, checked by the contract's own schema (the field named on error). */
export function steerOf(action: string, o: SteerOptions): SteerRequest {
  const number = (flag: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n))
      throw new ValidationError('options', [{ path: flag, message: `expected a number, got ${JSON.stringify(value)}` }]);
    return n;
  };
  const budget = { maxCostUsd: number('--max-cost', o.maxCost), maxTokens: number('--max-tokens', o.maxTokens) };
  const given = Object.fromEntries(Object.entries(budget).filter(([, v]) => v !== undefined));
  if (action !== 'budget' && Object.keys(given).length)
    throw new ValidationError('steer', [{ path: '--max-cost/--max-tokens', message: 'only `got steer <id> budget` takes them' }]);
  const graphFlags = { operation: o.operation, thought: o.thought, text: o.text, operations: o.operations && operationsOf(o.operations) };
  const allowed =
    action === 'prune' ? ['operation', 'thought'] : action === 'instruct' ? ['operation', 'text'] : action === 'add' ? ['operations'] : [];
  const stray = Object.entries(graphFlags).find(([k, v]) => v !== undefined && !allowed.includes(k));
  if (stray)
    throw new ValidationError('steer', [{ path: `--${stray[0]}`, message: `\`got steer <id> ${action}\` takes no --${stray[0]}` }]);
  const raw = {
    action,
    ...(action === 'budget' ? { budget: given } : {}),
    ...Object.fromEntries(Object.entries(graphFlags).filter(([, v]) => v !== undefined)),
    ...(o.by ? { by: o.by } : { by: process.env.USER ?? 'cli' }),
    ...(o.reason ? { reason: o.reason } : {}),
  };
  const parsed = SteerRequest.safeParse(raw);
  if (!parsed.success)
    throw new ValidationError(
      'steer',
      parsed.error.issues.map((i) => ({
        path:
          i.path[0] === 'action' || (i.path.length === 0 && !['prune', 'instruct', 'add'].includes(action))
            ? '<action>'
            : i.path.length === 0
              ? '--operation/--thought'
              : i.path[0] === 'budget'
                ? '--max-cost/--max-tokens'
                : `--${String(i.path[0])}`,
        message:
          i.path[0] === 'action' || (i.path.length === 0 && !['prune', 'instruct', 'add'].includes(action))
            ? `expected pause, resume, budget, prune, instruct or add, got ${JSON.stringify(action)}`
            : i.message,
      })),
    );
  return parsed.data;
}

/** `got steer <workflowId> pause|resume|budget`: steers a running run; a refusal says why and exits 2. */
export async function steerCommand(workflowId: string, action: string, o: SteerOptions, log: (line: string) => void): Promise<void> {
  const steer = steerOf(action, o);
  await withCliClient(log, async ({ client }) => {
    try {
      const outcome = await steerRun(client.workflow.getHandle(workflowId), steer);
      if (o.json) console.log(JSON.stringify(outcome));
      else log(`${workflowId}: ${describeSteer(steer)}.${steer.action === 'pause' ? ` Resume with: got steer ${workflowId} resume` : ''}`);
    } catch (error) {
      if (error instanceof SteerRefusedError)
        throw new ValidationError('steer', [{ path: workflowId, message: `refused: ${error.message}` }]);
      throw error;
    }
  });
}
