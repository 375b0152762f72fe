/**
 * Records the event histories the replay test (test/replay.test.ts) replays against the current
 * Controller: one small real run of every task's GoT scheme, one run that fails half way and one
 * run scored by a person (the `standard` runs), and runs whose graph grows at run time through
 * forEach operations (the `for-each` runs), and runs whose request names a scheme for the worker to
 * expand instead of sending a GoO, one of them refused (the `scheme` runs). Each deliberate change of the workflow records a new
 * generation beside the earlier ones, which stay: the point of the fixtures is that an accidental
 * change of the Controller's commands breaks the replay of runs recorded by an older worker. A
 * change that adds behaviour without altering what existing GoOs do records only the runs that
 * use it (`--runs for-each`).
 *
 * Merges reviewed by the engine, one of them decided by a person through the update, are the `review` runs.
 * A GoT sorting whose samples are asked one per request (`llm.fanOut: perSample`) is the `per-sample` run.
 * A sorting whose forEach parts run in child workflows (`children.maxCalls`) is the `children` run; its
 * workflow id is its fixture name, because its children's ids are made from it.
 *
 * A GoT sorting paused, given a budget and resumed through the `steer` update is the `steered` run.
 * Forks (decision 102) of a GoT sorting at its merge with an instruction, and of a clause merge a person
 * decided, redoing one clause group, are the `forked` runs; their parents are not kept (a fork replays alone).
 *
 *   npx tsx scripts/record-histories.ts <generation> [--runs standard|for-each|scheme|review|per-sample|children|steered|forked|all]   e.g. 2-fast-steps
 *
 * Starts its own in-memory Temporal dev server (free ports, no UI), the simulated LLM and a worker.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { forkRun } from '../src/client/fork';
import { startRun } from '../src/client/runs';
import { startDevServer } from '../src/devserver/dev-server';
import { freePort } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import { GooBuilder } from '../src/goo/builder';
import type { GoO } from '../src/goo/schema';
import type { RunRequestInput } from '../src/run/request';
import { WORKFLOW_TYPE } from '../src/run/wire';
import { startSimulatedLlm } from '../src/simllm/server';
import type { SteerRequest } from '../src/steering/types';
import { alignClauses } from '../src/tasks/doc-merge/clause-groups/align';
import { TASKS } from '../src/tasks/registry';
import { CONFIDENTIALITY_WORD, clauseRoom } from '../test/support/clause-room';
import { bundleGotWorkflows, createGotWorker } from '../worker/create';
import {
  decideDisagreementsUpdate,
  pendingHumanScoresQuery,
  pendingReviewQuery,
  scoreThoughtsUpdate,
  steerUpdate,
} from '../workflows/definitions';

const GENERATION = process.argv[2];
const RUN_SETS = ['standard', 'for-each', 'scheme', 'review', 'per-sample', 'children', 'steered', 'forked', 'all'] as const;
const runsFlag = process.argv.indexOf('--runs');
const RUN_SET = (runsFlag > 0 ? process.argv[runsFlag + 1] : 'all') as (typeof RUN_SETS)[number];
if (!GENERATION || !/^\d+-[a-z0-9-]+$/.test(GENERATION) || !RUN_SETS.includes(RUN_SET)) {
  console.error(
    'usage: npx tsx scripts/record-histories.ts <generation> [--runs standard|for-each|scheme|review|per-sample|children|steered|forked|all]   (e.g. 2-fast-steps: a number, then what changed)',
  );
  process.exit(2);
}
const OUT_DIR = fileURLToPath(new URL(`../test/fixtures/histories/${GENERATION}/`, import.meta.url));
const SEED = 3;
const log = (line: string) => process.stderr.write(`[record-histories] ${line}\n`);

function request(task: string, scheme: string, size: number): RunRequestInput {
  const t = TASKS[task]!;
  const problem = t.generateProblem(size, SEED);
  return {
    task,
    problem: problem as RunRequestInput['problem'],
    goo: t.schemes[scheme]!({ size, problem }),
    labels: { scheme, size, sample: SEED },
  };
}

/** Generate three sortings, a person scores them (local score after 10 minutes), keep the best. */
const HUMAN_GOO: GoO = {
  version: 1,
  operations: [
    { id: 'sort', type: 'generate', inputs: [], prompt: 'sort', k: 3 },
    { id: 'rate', type: 'score', inputs: ['sort'], scorer: { kind: 'human', timeoutSeconds: 600, fallback: 'local' } },
    { id: 'best', type: 'keepBestN', inputs: ['rate'], n: 1, higherIsBetter: true },
  ],
};

/** GoT sorting whose parts are sorted by a forEach over the LLM split's thoughts (`parts: "each"`). */
const FOR_EACH_GOO: GoO = (() => {
  const b = new GooBuilder();
  const split = b.generate(null, { id: 'split', prompt: 'split', params: { parts: 2 } });
  const sections = b.forEach(split, {
    id: 'sections',
    parts: 'each',
    maxParts: 4,
    body: (bb) =>
      bb.keepBestN(bb.score(bb.generate(null, { id: 'sort', prompt: 'sort', k: 3 }), { id: 'score' }), {
        id: 'best',
        n: 1,
        higherIsBetter: false,
      }),
  });
  b.groundTruth(
    b.keepBestN(b.score(b.aggregate(sections, { id: 'merge', prompt: 'merge', k: 3 })), { id: 'final', n: 1, higherIsBetter: false }),
    {
      id: 'groundtruth',
    },
  );
  return b.build();
})();

/**
 * Sorting with the task's splits: halves (a split's new thoughts), each cut into quarters by a nested
 * forEach whose sortings are merged, then a repair round that keeps the halves already sorted and
 * improves the others.
 */
const FOR_EACH_NESTED_GOO: GoO = (() => {
  const b = new GooBuilder();
  const halves = b.forEach(null, {
    id: 'halves',
    parts: { split: 'chunks', params: { size: 32 } },
    maxParts: 2,
    body: (bb) => {
      const quarters = bb.forEach(null, {
        id: 'quarters',
        parts: { split: 'chunks', params: { size: 16 } },
        maxParts: 2,
        body: (q) => q.score(q.generate(null, { id: 'sort', prompt: 'sort' }), { id: 'score' }),
      });
      bb.score(bb.aggregate(quarters, { id: 'merge', prompt: 'merge' }), { id: 'score' });
    },
  });
  const repair = b.forEach(halves, {
    id: 'repair',
    parts: { split: 'unsolvedParts' },
    maxParts: 2,
    body: (bb) =>
      bb.keepBestN(bb.score(bb.generate(null, { id: 'improve', prompt: 'improve', k: 2 }), { id: 'score' }), {
        id: 'best',
        n: 1,
        higherIsBetter: false,
      }),
  });
  b.groundTruth(b.score(b.aggregate(repair, { id: 'merge', prompt: 'merge' }), { id: 'score' }), { id: 'groundtruth' });
  return b.build();
})();

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const binary = await ensureTemporalCli({ log });
  const server = await startDevServer({ binary, port: await freePort(), ui: false });
  log(`dev server at ${server.address}`);
  const llm = await startSimulatedLlm({ latencyMs: 20 });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = 'record-histories';
  const worker = await createGotWorker({
    connection: native,
    taskQueue,
    llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true },
    workflowBundle: await bundleGotWorkflows(),
  });
  const running = worker.run();

  const written: { name: string; bytes: number; events: number }[] = [];
  async function save(name: string, handle: WorkflowHandle): Promise<void> {
    const history = await handle.fetchHistory();
    // Compact JSON (historyToJSON indents): the fixtures are committed.
    const json = JSON.stringify(JSON.parse(historyToJSON(history)));
    await writeFile(`${OUT_DIR}${name}.json`, `${json}\n`);
    written.push({ name, bytes: Buffer.byteLength(json) + 1, events: history.events?.length ?? 0 });
    log(`${name}: ${history.events?.length} events, ${(json.length / 1024).toFixed(1)} KiB`);
  }

  try {
    await mkdir(OUT_DIR, { recursive: true });
    if (RUN_SET === 'standard' || RUN_SET === 'all') await recordStandard();
    if (RUN_SET === 'for-each' || RUN_SET === 'all') await recordForEach();
    if (RUN_SET === 'scheme' || RUN_SET === 'all') await recordSchemeByName();
    if (RUN_SET === 'review' || RUN_SET === 'all') await recordReview();
    if (RUN_SET === 'per-sample' || RUN_SET === 'all') await recordPerSample();
    if (RUN_SET === 'children' || RUN_SET === 'all') await recordChildren();
    if (RUN_SET === 'steered' || RUN_SET === 'all') await recordSteered();
    if (RUN_SET === 'forked' || RUN_SET === 'all') await recordForked();
    const total = written.reduce((s, w) => s + w.bytes, 0);
    log(`wrote ${written.length} histories, ${(total / 1024).toFixed(1)} KiB in all, to ${OUT_DIR}`);
  } finally {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    await llm.close();
    await server.stop();
  }

  /** Requests that name a scheme, started as a client in another language starts them: no check or expansion on this side. */
  async function recordSchemeByName(): Promise<void> {
    const problem = TASKS.sorting!.generateProblem(32, SEED) as RunRequestInput['problem'];
    const runs: [name: string, scheme: RunRequestInput['scheme']][] = [
      ['sorting-got-32-by-name', { name: 'got' }],
      ['sorting-tot-32-tuned-by-name', { name: 'tot', size: 32, params: { branches: 4, levels: 2 } }],
      // Refused by the worker before any LLM call: the scheme does not exist.
      ['sorting-unknown-scheme-failed', { name: 'magic' }],
    ];
    for (const [name, scheme] of runs) {
      const handle = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `fixture-${name}`,
        args: [{ task: 'sorting', problem, scheme, labels: { sample: SEED } } satisfies RunRequestInput],
      });
      const failed = await handle.result().then(
        () => false,
        () => true,
      );
      if (failed !== name.endsWith('-failed')) throw new Error(`${name} ${failed ? 'failed' : 'completed'} unexpectedly`);
      await save(name, handle);
    }
  }

  /** GoT sorting paused as soon as it runs, given a budget while paused, then resumed (the `steer` update, decision 100). */
  async function recordSteered(): Promise<void> {
    const name = 'sorting-got-32-steered';
    const handle = await startRun(client, request('sorting', 'got', 32), { taskQueue, workflowId: `fixture-${name}` });
    const steer = (args: SteerRequest) => handle.executeUpdate(steerUpdate, { args: [args] });
    // Refused ("still checking its request") until the run is ready to be steered.
    await poll('the run to take a pause', () =>
      steer({ action: 'pause', by: 'fixture' }).then(
        () => true,
        () => undefined,
      ),
    );
    await steer({ action: 'budget', budget: { maxCostUsd: 5 }, by: 'fixture' });
    await steer({ action: 'resume', by: 'fixture', reason: 'recorded' });
    await handle.result();
    await save(name, handle);
  }

  /** Forks (decision 102): a GoT sorting forked at its merge with an instruction; a decided clause merge redoing one group. */
  async function recordForked(): Promise<void> {
    const sorting = await startRun(client, request('sorting', 'got', 32), { taskQueue, workflowId: 'fixture-fork-parent-sorting' });
    await sorting.result();
    const atMerge = await forkRun(
      client,
      sorting.workflowId,
      { at: 'merge-1', instructions: [{ operation: 'improve-1', text: 'Check every number twice.' }], by: 'fixture' },
      { taskQueue, workflowId: 'fixture-sorting-got-32-forked' },
    );
    await atMerge.result();
    await save('sorting-got-32-forked', atMerge);

    const room = clauseRoom();
    const merge = await startRun(
      client,
      {
        task: 'doc-merge',
        problem: room,
        goo: TASKS['doc-merge']!.schemes.clauses!({ size: 2, problem: room }),
        review: { decide: true },
        seed: SEED,
      },
      { taskQueue, workflowId: 'fixture-fork-parent-clauses' },
    );
    const pending = await poll('the merge to wait for decisions', async () => (await merge.query(pendingReviewQuery)) ?? undefined);
    const decisions = pending.disagreements.map((d) => ({ id: d.id, choose: { document: d.values.at(-1)!.document } }));
    await merge.executeUpdate(decideDisagreementsUpdate, { args: [{ decisions, by: 'fixture' }] });
    await merge.result();
    const group = alignClauses(room.documents).groups.findIndex(
      (g) => !g.same && g.members.some((m) => m.text.includes(CONFIDENTIALITY_WORD)),
    );
    const redo = await forkRun(
      client,
      merge.workflowId,
      { instructions: [{ operation: `merge[${group}]`, text: 'Name both parties as one.' }], by: 'fixture' },
      { taskQueue, workflowId: 'fixture-doc-merge-clauses-forked' },
    );
    await redo.result();
    await save('doc-merge-clauses-forked', redo);

    // Steers that change the graph (decisions 103, 104): paused at once, a branch pruned, instructions given, a round added, resumed.
    const name = 'sorting-branches-pruned';
    const branches: GoO = {
      version: 1,
      operations: [
        { id: 'gen', type: 'generate', prompt: 'sort', k: 2, inputs: [] },
        { id: 'fix', type: 'improve', prompt: 'improve', inputs: ['gen'] },
        { id: 'again', type: 'improve', prompt: 'improve', inputs: ['gen'] },
        { id: 'best', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['fix', 'again'] },
      ],
    } as GoO;
    const pruned = await startRun(
      client,
      { task: 'sorting', problem: TASKS.sorting!.generateProblem(16, SEED) as RunRequestInput['problem'], goo: branches },
      { taskQueue, workflowId: `fixture-${name}` },
    );
    const steer = (args: SteerRequest) => pruned.executeUpdate(steerUpdate, { args: [args] });
    await poll('the run to take a pause', () =>
      steer({ action: 'pause', by: 'fixture' }).then(
        () => true,
        () => undefined,
      ),
    );
    await steer({ action: 'prune', operation: 'fix', by: 'fixture' });
    await steer({ action: 'instruct', operation: 'again', text: 'Check every number twice.', by: 'fixture' });
    await steer({
      action: 'add',
      operations: [
        { id: 'polish', type: 'improve', prompt: 'improve', inputs: ['best'] },
        { id: 'final', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['best', 'polish'] },
      ] as Extract<SteerRequest, { action: 'add' }>['operations'],
      by: 'fixture',
    });
    await steer({ action: 'resume', by: 'fixture' });
    await pruned.result();
    await save(name, pruned);
  }

  /** GoT sorting with every sample its own request (`llm.fanOut: perSample`). */
  async function recordPerSample(): Promise<void> {
    const name = 'sorting-got-32-per-sample';
    const handle = await startRun(
      client,
      { ...request('sorting', 'got', 32), llm: { fanOut: 'perSample' } },
      { taskQueue, workflowId: `fixture-${name}` },
    );
    await handle.result();
    await save(name, handle);
  }

  /** A sorting split into 4 parts, each sorted and improved in a child workflow of its own (at most 3 calls a history). */
  async function recordChildren(): Promise<void> {
    const name = 'sorting-parts-in-children';
    const b = new GooBuilder();
    const split = b.generate(null, { id: 'split', prompt: 'split', params: { parts: 4 } });
    const lower = { higherIsBetter: false } as const;
    const parts = b.forEach(split, {
      id: 'parts',
      parts: 'each',
      maxParts: 8,
      body: (bb) => {
        const best = bb.keepBestN(bb.score(bb.generate(null, { id: 'sort', prompt: 'sort', k: 3 })), { id: 'best', n: 1, ...lower });
        bb.keepBestN(bb.score(bb.improve(best, { id: 'improve', prompt: 'improve' })), { id: 'kept', n: 1, ...lower });
      },
    });
    b.groundTruth(b.keepBestN(b.score(b.aggregate(parts, { id: 'merge', prompt: 'merge', k: 2 })), { id: 'final', n: 1, ...lower }));
    const problem = TASKS.sorting!.generateProblem(32, SEED) as RunRequestInput['problem'];
    const handle = await startRun(
      client,
      { task: 'sorting', problem, goo: b.build(), children: { maxCalls: 3 }, labels: { scheme: 'parts-in-children', sample: SEED } },
      { taskQueue, workflowId: `${GENERATION}/${name}` },
    );
    await handle.result();
    await save(name, handle);
  }

  /** A merge the engine reviews, and one that waits for a person's decisions on the sources' disagreements. */
  async function recordReview(): Promise<void> {
    const problem = TASKS['doc-merge']!.generateProblem(4, SEED) as RunRequestInput['problem'];
    const base = { task: 'doc-merge', problem, scheme: 'io', labels: { sample: SEED } } satisfies RunRequestInput;
    const reviewed = await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: 'fixture-doc-merge-io-4-reviewed', args: [base] });
    await reviewed.result();
    await save('doc-merge-io-4-reviewed', reviewed);

    const decided = await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: 'fixture-doc-merge-io-4-decided',
      args: [{ ...base, review: { decide: true } }],
    });
    const pending = await poll('the review to wait for decisions', async () => (await decided.query(pendingReviewQuery)) ?? undefined);
    // The first disagreement decided for the last source that states it; the others left as merged.
    const first = pending.disagreements[0]!;
    await decided.executeUpdate(decideDisagreementsUpdate, {
      args: [{ decisions: [{ id: first.id, choose: { document: first.values.at(-1)!.document } }], by: 'fixture' }],
    });
    await decided.result();
    await save('doc-merge-io-4-decided', decided);
  }

  async function recordForEach(): Promise<void> {
    for (const [name, goo, size] of [
      ['sorting-foreach-32', FOR_EACH_GOO, 32],
      ['sorting-foreach-nested-64', FOR_EACH_NESTED_GOO, 64],
    ] as const) {
      const problem = TASKS.sorting!.generateProblem(size, SEED) as RunRequestInput['problem'];
      const handle = await startRun(
        client,
        { task: 'sorting', problem, goo, labels: { scheme: name, size, sample: SEED } },
        {
          taskQueue,
          workflowId: `fixture-${name}`,
        },
      );
      await handle.result();
      await save(name, handle);
    }
  }

  async function recordStandard(): Promise<void> {
    const runs: [name: string, task: string, scheme: string, size: number][] = [
      ['sorting-got-32', 'sorting', 'got', 32],
      ['set-intersection-got-32', 'set-intersection', 'got', 32],
      ['keyword-counting-got4-8', 'keyword-counting', 'got4', 8],
      ['doc-merge-got-4', 'doc-merge', 'got', 4],
      ['doc-merge-got2-4', 'doc-merge', 'got2', 4],
    ];
    for (const [name, task, scheme, size] of runs) {
      const handle = await startRun(client, request(task, scheme, size), { taskQueue, workflowId: `fixture-${name}` });
      await handle.result();
      await save(name, handle);
    }

    // GoT-32 sorting: the split and one part sort succeed, then the endpoint rejects the key (401, not retried).
    llm.injectFaults(['pass', 'pass', { status: 401, message: 'Incorrect API key provided' }]);
    const failed = await startRun(client, request('sorting', 'got', 32), { taskQueue, workflowId: 'fixture-sorting-got-32-failed' });
    const failure = await failed.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!failure) throw new Error('the run with an injected 401 did not fail');
    await save('sorting-got-32-failed', failed);

    // A person scores the three sortings through the scoreThoughts update.
    const human = await startRun(
      client,
      {
        task: 'sorting',
        problem: TASKS.sorting!.generateProblem(32, SEED) as RunRequestInput['problem'],
        goo: HUMAN_GOO,
        labels: { scheme: 'human', size: 32, sample: SEED },
      },
      { taskQueue, workflowId: 'fixture-sorting-human-32' },
    );
    const pending = await poll('the human Score operation', async () => {
      const waiting = await human.query(pendingHumanScoresQuery);
      return waiting.find((p) => p.operationId === 'rate');
    });
    const scores = Object.fromEntries(pending.thoughts.map((t, i) => [t.id, i + 1]));
    await human.executeUpdate(scoreThoughtsUpdate, { args: [{ operationId: 'rate', scores, by: 'recorder' }] });
    await human.result();
    await save('sorting-human-32', human);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
