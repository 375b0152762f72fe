import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { generateCodecKey } from '../src/codec/keys';
import { validateGoO } from '../src/goo/validate';
import { rebuildGrs, runRequestOf } from '../src/inspect/rebuild';
import { SIMULATED_CONTEXT_TOKENS } from '../src/llm/context-windows';
import { checkRun } from '../src/run/check';
import { contractFiles } from '../src/run/contract';
import type { RunRequestInput } from '../src/run/request';
import type { CatalogueTask } from '../src/run/task-catalogue';
import { WORKFLOW_TYPE } from '../src/run/wire';
import { loadTaskDeclaration } from '../src/tasks/declarative/load';
import { TASKS } from '../src/tasks/registry';
import { sortingTask } from '../src/tasks/sorting';
import { defaultsOf } from '../src/tune/space';
import { type Harness, startHarness } from './support/harness';
import { validationIssues } from './support/tasks';

const LITE = loadTaskDeclaration(new URL('../examples/tasks/doc-merge-lite.json', import.meta.url).pathname);
const issuesOf = (input: unknown) => validationIssues(() => checkRun(input));
const sorting32 = () => sortingTask.generateProblem(32, 5) as RunRequestInput['problem'];
const byName = (scheme: unknown, extra: Record<string, unknown> = {}) => ({ task: 'sorting', problem: sorting32(), scheme, ...extra });

describe('a request that names a scheme', () => {
  const every = Object.values(TASKS).flatMap((task) =>
    Object.keys(task.schemes).map((scheme) => [task.id, scheme, task.sizes.at(-1)!] as const),
  );

  it.each(every)('%s %s: expands to the GoO the scheme builds for the problem, its size and the model window', (taskId, scheme, size) => {
    const task = TASKS[taskId]!;
    const problem = task.generateProblem(size, 2);
    const { request, sent } = checkRun({ task: taskId, problem, scheme: { name: scheme } });
    const built = task.schemes[scheme]!({ size: task.sizeOf(problem), problem, contextTokens: SIMULATED_CONTEXT_TOKENS });
    expect(request.goo).toEqual(validateGoO(built).goo);
    expect(request).not.toHaveProperty('scheme');
    expect(request.labels).toEqual({ scheme, size: task.sizeOf(problem) });
    // What a client starts the run with keeps the scheme by name: the worker expands it with its own code.
    expect(sent.scheme).toEqual({ name: scheme });
    expect(sent).not.toHaveProperty('goo');
  });

  it('builds the scheme at the size and with the parameters named; labels sent win', () => {
    const params = { branches: 3, levels: 2 };
    const { request } = checkRun(byName({ name: 'tot', size: 64, params }, { labels: { scheme: 'mine', sample: 5 } }));
    expect(request.goo).toEqual(validateGoO(sortingTask.schemes.tot!({ size: 64, params })).goo);
    expect(request.goo).not.toEqual(validateGoO(sortingTask.schemes.tot!({ size: 64 })).goo);
    expect(request.labels).toEqual({ scheme: 'mine', size: 64, sample: 5 });
  });

  it('takes a bare scheme name as short for { name }, and refuses an unknown bare name by scheme.name', () => {
    const bare = checkRun(byName('got'));
    expect(bare.request.goo).toEqual(checkRun(byName({ name: 'got' })).request.goo);
    expect(bare.sent.scheme).toEqual({ name: 'got' });
    expect(issuesOf(byName('gto'))).toEqual([expect.objectContaining({ path: 'scheme.name' })]);
    expect(issuesOf(byName(''))).toEqual([expect.objectContaining({ path: expect.stringMatching(/^scheme/) })]);
  });

  it('takes the window from llm.contextTokens, as it takes the model', () => {
    const task = TASKS['doc-merge']!;
    const problem = task.generateProblem(4, 1);
    const wide = checkRun({ task: 'doc-merge', problem, scheme: { name: 'got' } }).request.goo;
    const narrow = checkRun(
      { task: 'doc-merge', problem, scheme: { name: 'got' }, llm: { contextTokens: 2000 } },
      { storeThreshold: 2048 },
    );
    expect(wide.operations[0]!.type).toBe('generate');
    expect(narrow.request.goo).toEqual(validateGoO(task.schemes.got!({ size: 4, problem, contextTokens: 2000 })).goo);
    expect(narrow.request.goo.operations[0]!.type).toBe('forEach');
  });

  it("expands a declared task's scheme from its declaration", () => {
    const problem = LITE.examples![0]!;
    const { request, task } = checkRun({ task: LITE, problem, scheme: { name: 'got' } });
    expect(task.id).toBe('doc-merge-lite');
    expect(request.goo).toEqual(validateGoO(LITE.schemes.got).goo);
    expect(issuesOf({ task: LITE, problem, scheme: { name: 'got', params: { k: 2 } } })).toEqual([
      { path: 'scheme.params.k', message: 'no tunable parameter "k"; this scheme has none' },
    ]);
  });

  it.each([
    ['neither a GoO nor a scheme', { task: 'sorting', problem: sorting32() }, 'goo', /missing: expected a GoO, or a scheme/],
    [
      'both',
      byName({ name: 'io' }, { goo: sortingTask.schemes.io!({ size: 32 }) }),
      'scheme',
      /either a GoO \(goo\) or a scheme by name, not both/,
    ],
    [
      'an unknown scheme',
      byName({ name: 'magic' }),
      'scheme.name',
      /task "sorting" has no scheme "magic"; expected one of: io, cot, tot, tot2, got/,
    ],
    [
      'an unknown parameter',
      byName({ name: 'got', params: { depth: 2 } }),
      'scheme.params.depth',
      /no tunable parameter "depth"; this scheme has sortBranches/,
    ],
    [
      'a parameter out of its range',
      byName({ name: 'got', params: { sortBranches: 11 } }),
      'scheme.params.sortBranches',
      /a whole number from 1 to 10, got 11/,
    ],
    [
      'a parameter of the wrong type',
      byName({ name: 'got', params: { sortBranches: 'five' } }),
      'scheme.params.sortBranches',
      /got "five"/,
    ],
    ['parameters of a scheme without any', byName({ name: 'io', params: { k: 3 } }), 'scheme.params.k', /this scheme has none/],
    ['a size below 1', byName({ name: 'got', size: 0 }), 'scheme.size', /too small/i],
    ['a size that is not whole', byName({ name: 'got', size: 2.5 }), 'scheme.size', /expected int/],
    ['a field schemes do not take', byName({ name: 'got', contextTokens: 4000 }), 'scheme', /contextTokens/],
    ['no name', byName({ size: 32 }), 'scheme.name', /./],
    [
      'a shape the scheme cannot take',
      { task: 'doc-merge', problem: TASKS['doc-merge']!.generateProblem(4, 1), scheme: { name: 'got2', size: 1 } },
      'scheme',
      /at least 2 documents, got 1/,
    ],
  ])('refuses %s, naming the field', (_what, input, path, message) => {
    const issues = issuesOf(input);
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(issues[0]!.message).toMatch(message);
  });

  it("reports a problem the task refuses as the problem's, not the scheme's", () => {
    expect(issuesOf(byName({ name: 'got' }, { problem: { list: [1] } }))).toEqual([
      { path: 'problem.list', message: expect.stringMatching(/at least 2 numbers/) },
    ]);
    expect(issuesOf({ task: 'sorting', problem: { list: [1, 2] }, scheme: { name: 'magic' }, seed: -1 }).map((i) => i.path)).toEqual([
      'seed',
    ]);
  });
});

describe('the task catalogue (schema/tasks.json)', () => {
  const files = contractFiles();
  const catalogue = files['tasks.json'] as { tasks: Record<string, CatalogueTask> };

  it('lists every built-in task with its problem schema, prompts, local functions and schemes, from the tasks themselves', () => {
    expect(Object.keys(catalogue.tasks)).toEqual(Object.keys(TASKS));
    expect((files['contract.json'] as { tasks: string }).tasks).toBe('tasks.json');
    for (const task of Object.values(TASKS)) {
      const entry = catalogue.tasks[task.id]!;
      expect(files[entry.problem], entry.problem).toMatchObject({ type: 'object', title: expect.stringContaining(task.id) });
      expect(entry.prompts).toEqual(task.prompts);
      expect(entry.size).toEqual({ means: expect.any(String), paperSizes: task.sizes });
      expect(entry.localFunctions).toEqual({ score: !!task.score, validate: !!task.validate, groundTruth: !!task.groundTruth });
      expect(entry.splits).toEqual(Object.keys(task.splits ?? {}));
      expect(Object.keys(entry.schemes)).toEqual(Object.keys(task.schemes));
    }
    expect(catalogue.tasks['doc-merge']!.llmScorers).toEqual(['judge', 'judgeKept', 'judgeSection', 'judgeSectionKept']);
  });

  it("publishes each scheme's parameters with ranges and the paper's defaults at every size the paper used, equal spaces grouped", () => {
    for (const task of Object.values(TASKS))
      for (const [scheme, { params }] of Object.entries(catalogue.tasks[task.id]!.schemes)) {
        expect(params.flatMap((g) => g.sizes).sort((a, b) => a - b)).toEqual([...task.sizes].sort((a, b) => a - b));
        for (const g of params)
          for (const size of g.sizes) expect(g.params, `${task.id} ${scheme} ${size}`).toEqual(task.tunables![scheme]!(size));
      }
    const tot = catalogue.tasks.sorting!.schemes.tot!.params;
    expect(tot.map((g) => g.sizes)).toEqual([[32], [64, 128]]);
    expect(defaultsOf(tot[0]!.params)).toEqual({ branches: 20, levels: 1 });
    expect(catalogue.tasks.sorting!.schemes.got!.params).toEqual([
      {
        sizes: [32, 64, 128],
        params: expect.objectContaining({ sortBranches: { kind: 'int', min: 1, max: 10, default: 5, description: expect.any(String) } }),
      },
    ]);
  });
});

describe('scheme-named runs on a worker with a payload store and encryption', () => {
  let h: Harness;
  let plain: Client;

  beforeAll(async () => {
    h = await startHarness({
      dataConverter: dataConverterFromEnv({
        GOT_STORE: mkdtempSync(join(tmpdir(), 'got-scheme-store-')),
        GOT_STORE_THRESHOLD_BYTES: '2048',
        GOT_CODEC_KEYS: generateCodecKey('k1'),
      }),
    });
    // What `temporal workflow start` or an SDK without our codec sends: plain JSON.
    plain = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  });
  afterAll(async () => {
    await plain?.connection.close();
    await h?.close();
  });

  it('accepts a plain request; the expanded GoO is recorded in the payload store, and read back from it', async () => {
    const problem = sortingTask.generateProblem(128, 4);
    const handle = await plain.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `sorting-got-128-by-name-${Date.now()}`,
      args: [{ task: 'sorting', problem, scheme: { name: 'got', params: { improveRounds: 2 } } } satisfies RunRequestInput],
    });
    // The result is encrypted: only a client with the keys (and the store) reads it.
    const result = await resultOf(h.client.workflow.getHandle(handle.workflowId));
    expect(result.status).toBe('answered');
    const expected = checkRun({ task: 'sorting', problem, scheme: { name: 'got', params: { improveRounds: 2 } } }).request.goo;
    expect(result.grs.operations.map((o) => o.id)).toEqual(expected.operations.map((o) => o.id));

    const history = await h.client.workflow.getHandle(handle.workflowId).fetchHistory();
    // The workflow's input went in as sent, unencrypted and inline; prepareRun's result (the GoO) went to the store.
    const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    expect(Buffer.from(input.metadata!.encoding!).toString()).toBe('json/plain');
    const prepared = history.events!.find((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')!;
    const stored = prepared.markerRecordedEventAttributes!.details!.result!.payloads![0]!;
    expect(Buffer.from(stored.metadata!.messageType!).toString()).toBe('temporal.api.sdk.v1.ExternalStorageReference');
    expect(JSON.stringify(expected).length).toBeGreaterThan(2048);

    const ran = await runRequestOf(history, h.client.options.dataConverter);
    expect(ran.goo).toEqual(expected);
    expect(ran.labels).toEqual({ scheme: 'got', size: 128 });
    expect(await rebuildGrs(history, { dataConverter: h.client.options.dataConverter })).toEqual(result.grs);
  });
});
