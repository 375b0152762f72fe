import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import type { Grs, Thought } from '../../src/grs/types';
import type { SimRequestRecord } from '../../src/simllm/server';

/** Polls `check` until it returns something truthy; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  o: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 10_000);
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, o.intervalMs ?? 50));
  }
}

/** What a thought is, without anything that depends on timing: two runs asking the same questions agree on it. */
export const thoughtFacts = (t: Thought) => ({
  id: t.id,
  parents: t.parents,
  state: t.state,
  valid: t.valid,
  error: t.error,
  score: t.score,
  solved: t.solved,
});
/** Every thought's facts by id (the GRS lists thoughts in the order they were created, which concurrent calls vary). */
export const graphFacts = (grs: Grs) => grs.thoughts.map(thoughtFacts).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** The run's failure as a client sees it: the innermost message of `WorkflowFailedError`. */
export async function failureOf(handle: WorkflowHandle): Promise<{ type?: string; message: string }> {
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WorkflowFailedError))
    throw new Error(`expected the run to fail, got ${error === undefined ? 'a result' : String(error)}`);
  const cause = error.cause as (Error & { type?: string }) | undefined;
  return { ...(cause?.type ? { type: cause.type } : {}), message: cause?.message ?? error.message };
}

/** Milliseconds between the first request of `kind` that got `fault` and the next request of that kind (its retry). */
export function retryGap(log: SimRequestRecord[], kind: string, fault: string): number {
  const i = log.findIndex((r) => r.kind === kind && r.fault === fault);
  if (i < 0) throw new Error(`no ${kind} request got fault ${fault}: ${JSON.stringify(log)}`);
  const next = log.slice(i + 1).find((r) => r.kind === kind);
  if (!next) throw new Error(`the faulted ${kind} request was not retried: ${JSON.stringify(log)}`);
  return next.at - log[i]!.at;
}
