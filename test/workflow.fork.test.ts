import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkRun } from '../src/client/fork';
import { resultOf, startRun } from '../src/client/runs';
import { describeFork } from '../src/fork/describe';
import { INSTRUCTIONS_HEADING } from '../src/fork/prompt';
import { toHtml } from '../src/grs/html';
import type { Grs } from '../src/grs/types';
import { rebuildGrs } from '../src/inspect/rebuild';
import { GOT_SEARCH_ATTRIBUTES } from '../src/run/search-attributes';
import { UPDATE } from '../src/run/wire';
import { docMergeTask } from '../src/tasks/doc-merge';
import { alignClauses } from '../src/tasks/doc-merge/clause-groups/align';
import { sortingTask } from '../src/tasks/sorting';
import { clauseRoom } from './support/clause-room';
import { type Harness, startHarnessBehindProxy } from './support/harness';
import type { ProviderProxy } from './support/provider-proxy';

let h: Harness;
let proxy: ProviderProxy;

beforeAll(async () => {
  // Every request the worker sends passes a proxy that keeps its body: what was asked, with which prompt.
  ({ h, proxy } = await startHarnessBehindProxy());
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
});

const sortingRun = () => ({
  task: 'sorting',
  problem: sortingTask.generateProblem(32, 5),
  goo: sortingTask.schemes.got!({ size: 32 }),
});

const made = (grs: Grs) => grs.calls.filter((c) => !c.inherited);
const inherited = (grs: Grs) => grs.calls.filter((c) => c.inherited);

async function finished(request: Parameters<typeof startRun>[1]) {
  const handle = await startRun(h.client, request, { taskQueue: h.taskQueue });
  return { id: handle.workflowId, result: await resultOf(handle) };
}

describe('forks (decision 102)', () => {
  it('a fork with nothing changed makes no call, gives the same answer, and links to its parent', async () => {
    const parent = await finished(sortingRun());
    const sent = proxy.bodies.length;
    const handle = await forkRun(h.client, parent.id, { by: 'Ann', reason: 'same again' }, { taskQueue: h.taskQueue });
    const fork = await resultOf(handle);

    expect(proxy.bodies.length).toBe(sent);
    expect(fork.grs.totals).toMatchObject({ llmCalls: 0, costUsd: 0, inheritedCalls: parent.result.grs.calls.length });
    expect(fork.best?.state).toEqual(parent.result.best?.state);
    expect(fork.grs.thoughts.map((t) => [t.id, t.state, t.score])).toEqual(parent.result.grs.thoughts.map((t) => [t.id, t.state, t.score]));
    expect(fork.grs.fork).toMatchObject({ parent: { workflowId: parent.id }, by: 'Ann', reason: 'same again' });

    const said = `fork of ${parent.id} by Ann (same again): 0 LLM calls made, ${parent.result.grs.calls.length} taken from it without a call`;
    expect(describeFork(fork.grs)).toBe(said);
    expect(toHtml(fork.grs, { title: 'fork' })).toContain(said);
    const described = await handle.describe();
    expect(described.typedSearchAttributes.get(GOT_SEARCH_ATTRIBUTES.parent)).toBe(parent.id);
    expect(described.memo?.forkOf).toMatchObject({ workflowId: parent.id });
    // The fork's history alone rebuilds its GRS: the parent's thoughts it took are in it.
    expect(await rebuildGrs(await handle.fetchHistory(), { workflowId: handle.workflowId })).toEqual(fork.grs);
  });

  it('a fork at an operation calls it and what follows it afresh, and takes everything before it from the parent', async () => {
    const parent = await finished(sortingRun());
    const goo = sortingRun().goo;
    const at = goo.operations.filter((op) => op.type === 'aggregate').at(-1)!.id;
    const after = new Set([at]);
    for (const op of goo.operations) if (op.inputs.some((i) => after.has(i))) after.add(op.id);

    const fork = await resultOf(await forkRun(h.client, parent.id, { at }, { taskQueue: h.taskQueue }));
    expect(made(fork.grs).length).toBeGreaterThan(0);
    expect(made(fork.grs).every((c) => after.has(c.operationId))).toBe(true);
    expect(inherited(fork.grs).every((c) => !after.has(c.operationId))).toBe(true);
    expect(inherited(fork.grs).length).toBe(parent.result.grs.calls.filter((c) => !after.has(c.operationId)).length);
    expect(fork.grs.fork?.at).toBe(at);
  });

  it('a fork at a thought goes on from that thought alone', async () => {
    const parent = await finished(sortingRun());
    const generated = parent.result.grs.operations.find((o) => o.type === 'generate' && o.outputThoughts.length > 1)!;
    const thought = generated.outputThoughts.at(-1)!;
    const fork = await resultOf(await forkRun(h.client, parent.id, { at: thought }, { taskQueue: h.taskQueue }));
    expect(fork.grs.operations.find((o) => o.id === generated.id)?.outputThoughts).toEqual([thought]);
    expect(inherited(fork.grs).some((c) => c.operationId === generated.id)).toBe(true);
  });

  it('refuses a fork point the graph does not have before anything runs, and a parent that does not exist', async () => {
    const parent = await finished(sortingRun());
    await expect(forkRun(h.client, parent.id, { at: 'nowhere' }, { taskQueue: h.taskQueue })).rejects.toThrow(
      /fork\.at: names no operation of the GoO/,
    );
    const orphan = await startRun(h.client, { ...sortingRun(), fork: { parent: 'no-such-run' } }, { taskQueue: h.taskQueue });
    await expect(resultOf(orphan)).rejects.toThrow();
    const failure = await orphan.describe();
    expect(failure.status.name).toBe('FAILED');
  });

  it("redoes one clause group with a reviewer's instruction: only that group's calls are paid, and the parent's decisions apply again", async () => {
    const room = clauseRoom();
    const goo = docMergeTask.schemes.clauses!({ size: 2, problem: room });
    const handle = await startRun(
      h.client,
      { task: 'doc-merge', problem: room, goo, review: { decide: true, timeoutSeconds: 600 } },
      { taskQueue: h.taskQueue },
    );
    const pending = await until(async () =>
      handle.query<{ disagreements: { id: string; values: { document: number }[] }[] } | null>('pendingReview'),
    );
    const decisions = pending.disagreements.map((d) => ({ id: d.id, choose: { document: d.values.at(-1)!.document } }));
    await handle.executeUpdate(UPDATE.decideDisagreements, { args: [{ decisions, by: 'Ann' }] });
    const parent = await resultOf(handle);
    expect(parent.grs.review?.decisions).toEqual(decisions);

    const group = alignClauses(room.documents).groups.findIndex((g) => !g.same && g.members.some((m) => /secret/.test(m.text)));
    const instruction = 'Name the Recipient and the Receiving Party as one party.';
    const sent = proxy.bodies.length;
    const fork = await resultOf(
      await forkRun(
        h.client,
        handle.workflowId,
        { instructions: [{ operation: `merge[${group}]`, text: instruction }] },
        { taskQueue: h.taskQueue },
      ),
    );
    // Only the redone group's merge (and, if its clause is weak, its improvement) was asked again.
    expect(made(fork.grs).length).toBeGreaterThan(0);
    expect(made(fork.grs).every((c) => c.operationId.startsWith(`merge[${group}]`) || c.operationId.startsWith(`improve[${group}]`))).toBe(
      true,
    );
    expect(inherited(fork.grs).length).toBeGreaterThan(0);
    const asked = proxy.bodies.slice(sent) as { messages: { content: string }[] }[];
    expect(asked.length).toBe(made(fork.grs).length);
    const withInstruction = asked.filter((b) => b.messages.some((m) => m.content.includes(`${INSTRUCTIONS_HEADING}\n${instruction}`)));
    expect(withInstruction.length).toBe(made(fork.grs).filter((c) => c.operationId.startsWith('merge[')).length);
    // The person decided once: the fork applied the same choices and did not wait.
    expect(fork.grs.review?.decisions?.map((d) => d.choose)).toEqual(decisions.map((d) => d.choose));
    expect(fork.grs.fork?.carriedDecisions?.length).toBe(decisions.length);
  });
});

async function until<T>(read: () => Promise<T | null | undefined>): Promise<T> {
  for (let waited = 0; ; waited += 100) {
    const value = await read();
    if (value) return value;
    if (waited > 60_000) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
