import { readFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { createActivities, type SplitStep } from '../activities';
import { readParts } from '../activities/split-step';
import { GooBuilder } from '../src/goo/builder';
import { grownSize } from '../src/goo/graph';
import { grownId, instantiate, tooManyParts } from '../src/goo/grow';
import { DEFAULT_LIMITS, type GoO, type Operation } from '../src/goo/schema';
import { type Limits, validateGoO } from '../src/goo/validate';
import { GrsRecorder } from '../src/grs/recorder';
import type { LlmClient } from '../src/llm/client';
import { checkRun } from '../src/run/check';
import { gooWidth } from '../src/run/footprint';
import type { TaskDeclarationInput } from '../src/tasks/declarative/schema';
import { resolveTask } from '../src/tasks/registry';
import { sortingTask } from '../src/tasks/sorting';
import { sortingSplits } from '../src/tasks/sorting/splits';
import { validationIssues } from './support/tasks';

/** forEach without a server: its schema, checks and limits, how a body is instantiated, splits and their activity. */

const gen = (id: string, inputs: string[] = [], k = 1) => ({ id, type: 'generate' as const, prompt: 'sort', k, inputs });
const forEach = (id: string, inputs: string[], body: unknown[], extra: Record<string, unknown> = {}) => ({
  id,
  type: 'forEach' as const,
  inputs,
  parts: 'each' as const,
  maxParts: 4,
  body,
  ...extra,
});

describe('validateGoO on forEach', () => {
  const table: { name: string; goo: unknown; path: string; message: RegExp; limits?: Limits }[] = [
    {
      name: 'maxParts above limits.maxParts',
      goo: { operations: [gen('a'), forEach('f', ['a'], [], { maxParts: 10_001 })] },
      path: 'goo.operations[1].maxParts',
      message: /^maxParts = 10001 exceeds the configured bound of 10000 parts \(limits\.maxParts\)$/,
    },
    {
      name: 'a missing maxParts',
      goo: { operations: [gen('a'), { id: 'f', type: 'forEach', inputs: ['a'], parts: 'each', body: [] }] },
      path: 'goo.operations[1].maxParts',
      message: /./,
    },
    {
      name: 'parts that are neither "each" nor a split',
      goo: { operations: [gen('a'), forEach('f', ['a'], [], { parts: 'all' })] },
      path: 'goo.operations[1].parts',
      message: /./,
    },
    {
      name: 'a growth beyond limits.maxGrownOperations',
      goo: { operations: [gen('a'), forEach('f', ['a'], [gen('s'), { id: 'k', type: 'keepValidOnly', inputs: ['s'] }], { maxParts: 30 })] },
      limits: { ...DEFAULT_LIMITS, maxGrownOperations: 50 },
      path: 'goo.operations[1].maxParts',
      message:
        /^forEach "f" may grow 60 operations \(maxParts 30 × 2 per part\), so the GoO may reach 62 operations; at most 50 are allowed \(limits\.maxGrownOperations\)$/,
    },
    {
      name: 'a nested growth beyond limits.maxGrownOperations',
      goo: { operations: [forEach('f', [], [forEach('g', [], [gen('s')], { maxParts: 10 })], { maxParts: 10 })] },
      limits: { ...DEFAULT_LIMITS, maxGrownOperations: 100 },
      path: 'goo.operations[0].maxParts',
      message: /may grow 110 operations \(maxParts 10 × 11 per part\), so the GoO may reach 111/,
    },
    {
      name: 'forEach nested deeper than limits.maxNesting',
      goo: { operations: [forEach('f1', [], [forEach('f2', [], [forEach('f3', [], [gen('s')])])])] },
      limits: { ...DEFAULT_LIMITS, maxNesting: 2 },
      path: 'goo.operations[0].body[0].body[0]',
      message: /^forEach "f3" is nested 3 deep; at most 2 forEach operations may be nested \(limits\.maxNesting\)$/,
    },
    {
      name: 'a body operation naming an operation outside the body',
      goo: { operations: [gen('a'), forEach('f', ['a'], [{ id: 's', type: 'score', inputs: ['a'] }])] },
      path: 'goo.operations[1].body[0].inputs',
      message: /^unknown input operation "a": a forEach body names only operations of the same body/,
    },
    {
      name: 'a duplicate id within a body',
      goo: { operations: [forEach('f', [], [gen('s'), gen('s')])] },
      path: 'goo.operations[0].body[1].id',
      message: /duplicate operation id "s"/,
    },
    {
      name: 'a cycle within a body',
      goo: {
        operations: [
          forEach('f', [], [gen('s'), { id: 'x', type: 'score', inputs: ['s', 'y'] }, { id: 'y', type: 'score', inputs: ['x'] }]),
        ],
      },
      path: 'goo.operations[0].body',
      message: /the operations form a cycle: (x -> y -> x|y -> x -> y)/,
    },
    {
      name: 'k above the bound inside a body',
      goo: { operations: [forEach('f', [], [gen('s', [], 101)])] },
      path: 'goo.operations[0].body[0].k',
      message: /k = 101 exceeds the configured bound of 100/,
    },
    {
      name: 'an unknown operation type inside a nested body',
      goo: { operations: [forEach('f', [], [forEach('g', [], [{ id: 'q', type: 'teleport' }])])] },
      path: 'goo.operations[0].body[0].body[0].type',
      message: /./,
    },
    {
      name: 'an id with brackets (grown ids have them, so a declared one may not)',
      goo: { operations: [gen('f[0].s')] },
      path: 'goo.operations[0].id',
      message: /letters, digits/,
    },
  ];

  it.each(table)('rejects $name at $path', ({ goo, path, message, limits }) => {
    const issues = validationIssues(() => validateGoO(goo, limits));
    const hit = issues.find((i) => i.path === path);
    expect(hit, `issues were ${JSON.stringify(issues)}`).toBeDefined();
    expect(hit!.message).toMatch(message);
  });

  it('accepts a forEach starting from the problem, any body operation starting from its part, and body ids that repeat outer ones', () => {
    const goo = {
      operations: [
        gen('s'),
        forEach(
          'f',
          [],
          [
            { id: 's', type: 'score', inputs: [] },
            { id: 'best', type: 'keepBestN', inputs: ['s'], n: 1, higherIsBetter: false },
          ],
        ),
        { id: 'k', type: 'keepValidOnly', inputs: ['f', 's'] },
      ],
    };
    const a = validateGoO(goo);
    expect(a.order).toEqual(['s', 'f', 'k']);
    expect(a.sinks).toEqual(['k']);
  });

  it('accepts a growth exactly at limits.maxGrownOperations', () => {
    const goo = { operations: [gen('a'), forEach('f', ['a'], [gen('s'), gen('t')], { maxParts: 24 })] };
    expect(grownSize(validateGoO(goo).goo.operations)).toBe(50);
    expect(() => validateGoO(goo, { ...DEFAULT_LIMITS, maxGrownOperations: 50 })).not.toThrow();
    expect(() => validateGoO(goo, { ...DEFAULT_LIMITS, maxGrownOperations: 49 })).toThrow(/limits\.maxGrownOperations/);
  });

  it('still refuses a non-generate operation without inputs outside any body', () => {
    const issues = validationIssues(() => validateGoO({ operations: [gen('a'), { id: 'k', type: 'keepValidOnly' }] }));
    expect(issues).toEqual([
      {
        path: 'goo.operations[1].inputs',
        message: 'a keepValidOnly operation needs at least one input operation (only generate and forEach may start from the problem)',
      },
    ]);
  });
});

describe('growing a body', () => {
  const f = validateGoO({
    operations: [
      forEach('F', [], [gen('sort'), { id: 'score', type: 'score', inputs: ['sort'] }, forEach('G', ['score'], [gen('x')]), gen('side')]),
    ],
  }).goo.operations[0] as Extract<Operation, { type: 'forEach' }>;

  it('renames every id and input into the part, keeps a nested body as declared, and names the sinks', () => {
    const { operations, sinks } = instantiate(f, 2);
    expect(operations.map((o) => [o.id, o.inputs])).toEqual([
      ['F[2].sort', []],
      ['F[2].score', ['F[2].sort']],
      ['F[2].G', ['F[2].score']],
      ['F[2].side', []],
    ]);
    expect((operations[2] as typeof f).body.map((o) => o.id)).toEqual(['x']);
    expect(sinks).toEqual(['F[2].G', 'F[2].side']);
    // The copy is new: the GoO's body stays as declared.
    expect(f.body[0]!.id).toBe('sort');
    expect(grownId('F[2].G', 0, 'x')).toBe('F[2].G[0].x');
  });

  it('says why a forEach must not go on with more parts than maxParts, and nothing when it may', () => {
    expect(tooManyParts(f, 4)).toBeUndefined();
    expect(tooManyParts(f, 5)).toBe('forEach "F": 5 input thoughts (one part each), more than its maxParts = 4');
    expect(tooManyParts({ ...f, parts: { split: 'chunks' } }, 9)).toBe(
      'forEach "F": split "chunks" made 9 parts, more than its maxParts = 4',
    );
  });
});

describe('GooBuilder.forEach', () => {
  it('builds a body with its own ids, where operations given no inputs take the part', () => {
    const b = new GooBuilder();
    const split = b.generate(null, { prompt: 'split', params: { parts: 4 } });
    const parts = b.forEach(split, {
      parts: 'each',
      maxParts: 8,
      body: (bb) => bb.keepBestN(bb.score(bb.generate(null, { prompt: 'sort', k: 3 })), { n: 1, higherIsBetter: false }),
    });
    b.forEach(parts, { id: 'again', parts: { split: 'unsolvedParts' }, maxParts: 8 });
    const goo = b.build();
    expect(goo.operations).toEqual([
      { id: 'split-1', type: 'generate', prompt: 'split', k: 1, params: { parts: 4 }, inputs: [] },
      {
        id: 'foreach-1',
        type: 'forEach',
        parts: 'each',
        maxParts: 8,
        inputs: ['split-1'],
        body: [
          { id: 'sort-1', type: 'generate', prompt: 'sort', k: 3, inputs: [] },
          { id: 'score-1', type: 'score', scorer: { kind: 'local' }, inputs: ['sort-1'] },
          { id: 'keep-1', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['score-1'] },
        ],
      },
      { id: 'again', type: 'forEach', parts: { split: 'unsolvedParts' }, maxParts: 8, inputs: ['foreach-1'], body: [] },
    ]);
    // Plain data: it survives a JSON round trip and validates.
    expect(validateGoO(JSON.parse(JSON.stringify(goo))).goo).toEqual(goo);
  });
});

describe("sorting's splits", () => {
  it('chunks: each input list cut into parts of params.size, each a new thought knowing its part', () => {
    const parts = sortingSplits.chunks([{ unsorted: [5, 4, 3, 2, 1], list: [5, 4, 3, 2, 1] }], { list: [5, 4, 3, 2, 1] }, { size: 2 });
    expect(parts).toEqual([
      { state: { unsorted: [5, 4], list: [5, 4], part: 0 } },
      { state: { unsorted: [3, 2], list: [3, 2], part: 1 } },
      { state: { unsorted: [1], list: [1], part: 2 } },
    ]);
    expect(() => sortingSplits.chunks([{ unsorted: [1] }], { list: [1, 2] }, { size: 0 })).toThrow(
      /params\.size must be a positive integer/,
    );
  });

  it('unsolvedParts: groups by the list they sort, keeps a solved one as it is, and runs the body on the groups still wrong', () => {
    const inputs = [
      { unsorted: [2, 1], list: [2, 1], part: 1 },
      { unsorted: [4, 3], list: [3, 4], part: 0 },
      { unsorted: [2, 1], list: [1, 1] },
      { unsorted: [4, 3], list: [4, 3], part: 0 },
      { unsorted: [9, 8, 7], list: [9] },
    ];
    expect(sortingSplits.unsolvedParts(inputs, { list: [1] }, {})).toEqual([{ thoughts: [0, 2] }, { keep: [1] }, { thoughts: [4] }]);
  });
});

describe('the splitThoughts local activity', () => {
  const activities = createActivities({ llm: {} as LlmClient });
  const list = [3, 1, 2, 5, 4];
  const step = (extra: Partial<SplitStep> = {}): SplitStep => ({
    task: 'sorting',
    problem: { list },
    states: [sortingTask.rootState({ list })],
    operation: 'F[0].G',
    split: 'chunks',
    params: { size: 2 },
    maxParts: 8,
    ...extra,
  });
  const refusal = async (s: SplitStep) => {
    const error = await activities.splitThoughts(s).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('ValidationError');
    expect((error as ApplicationFailure).nonRetryable).toBe(true);
    return (error as ApplicationFailure).message;
  };

  it("returns the task's parts, with the GoO's local checks on every new thought", async () => {
    const { parts, at } = await activities.splitThoughts(step({ checks: ['score', 'validate'] }));
    expect(parts).toEqual([
      { state: { unsorted: [3, 1], list: [3, 1], part: 0 }, checks: { score: 1, valid: false } },
      { state: { unsorted: [2, 5], list: [2, 5], part: 1 }, checks: { score: 0, valid: true } },
      { state: { unsorted: [4], list: [4], part: 2 }, checks: { score: 0, valid: true } },
    ]);
    expect(at).toBeGreaterThan(0);
  });

  it('refuses, without retries, a split the task lacks, one that throws, and one that makes more than maxParts', async () => {
    expect(await refusal(step({ split: 'halves' }))).toBe(
      `split "halves" of task "sorting" (forEach "F[0].G") does not exist; the task's splits: chunks, equalParts, unsolvedParts`,
    );
    expect(await refusal(step({ params: { size: 'two' } }))).toBe(
      'split "chunks" of task "sorting" (forEach "F[0].G") failed: params.size must be a positive integer, got "two"',
    );
    expect(await refusal(step({ params: { size: 1 }, maxParts: 4 }))).toBe(
      'forEach "F[0].G": split "chunks" made 5 parts, more than its maxParts = 4',
    );
  });

  it('checks what a split returns: one kind per part, input indices in range and each once', () => {
    expect(readParts([{ state: {} }, { thoughts: [0, 1] }, { keep: [1] }], 2)).toEqual({
      parts: [{ state: {} }, { thoughts: [0, 1] }, { keep: [1] }],
    });
    expect(readParts({ parts: [] }, 1)).toEqual({ error: 'returned object, not a list of parts' });
    expect(readParts([{ state: {}, keep: [0] }], 1)).toEqual({
      error: 'part 0 must have exactly one of "state", "thoughts" or "keep"; it has "state", "keep"',
    });
    expect(readParts([{ keep: [0] }, { thoughts: [2] }], 2)).toEqual({
      error: 'part 1 names input thought 2, but there are 2 (indices 0 to 1)',
    });
    expect(readParts([{ thoughts: [] }], 2)).toEqual({ error: 'part 0 needs a non-empty list of input thought indices in "thoughts"' });
    expect(readParts([{ thoughts: [1, 1] }], 2)).toEqual({ error: 'part 0 names an input thought twice in "thoughts"' });
    expect(readParts([{ state: [1] }], 2)).toEqual({ error: 'part 0 has a state that is not an object' });
  });
});

describe('checkRun on forEach', () => {
  const problem = { list: [3, 1, 2] };
  it('checks the operations in bodies against the task, naming their paths', () => {
    const goo = {
      operations: [
        forEach(
          'f',
          [],
          [{ id: 'g', type: 'forEach', parts: { split: 'halves' }, maxParts: 2, body: [{ id: 'x', type: 'generate', prompt: 'shuffle' }] }],
        ),
      ],
    };
    const issues = validationIssues(() => checkRun({ task: 'sorting', problem, goo }));
    expect(issues).toEqual([
      {
        path: 'goo.operations[0].body[0].parts.split',
        message: 'task "sorting" has no split "halves"; expected one of: chunks, equalParts, unsolvedParts',
      },
      {
        path: 'goo.operations[0].body[0].body[0].prompt',
        message: 'task "sorting" has no prompt "shuffle"; expected one of: sort, sortCot, split, merge, improve',
      },
    ]);
  });

  it('counts the LLM calls every part may start at once against the payload limits', () => {
    const b = new GooBuilder();
    b.forEach(null, { parts: { split: 'chunks' }, maxParts: 50, body: (bb) => bb.generate(null, { prompt: 'sort', k: 4 }) });
    const { analyzed } = checkRun({ task: 'sorting', problem, goo: b.build() });
    expect(gooWidth(analyzed, false)).toEqual({ widestCalls: 50, widestOperation: 'foreach-1' });
    expect(gooWidth(analyzed, true)).toEqual({ widestCalls: 200, widestOperation: 'foreach-1' });
  });
});

describe('the GRS of a grown graph', () => {
  it('lists every grown operation with its forEach, part and inputs, and the forEach its parts', () => {
    const grs = new GrsRecorder().init('sorting', [{ id: 'F', type: 'forEach' }], ['F']);
    grs.addRoot({});
    grs.startOperation('F', ['root/0'], 1);
    grs.grow('F', [
      { thoughts: ['root/0'], operations: [{ id: 'F[0].s', type: 'generate', inputs: [] }] },
      { thoughts: ['root/0'], kept: true, operations: [] },
    ]);
    expect(grs.final().operations).toEqual([
      {
        id: 'F',
        type: 'forEach',
        status: 'running',
        inputThoughts: ['root/0'],
        outputThoughts: [],
        startedAt: 1,
        parts: [{ thoughts: ['root/0'] }, { thoughts: ['root/0'], kept: true }],
      },
      { id: 'F[0].s', type: 'generate', status: 'pending', inputThoughts: [], outputThoughts: [], grownBy: 'F', part: 0, inputs: [] },
    ]);
    expect(grs.finishedOperations).toBe(0);
  });
});

describe('forEach in a task declared as data', () => {
  const lite = () =>
    JSON.parse(readFileSync(new URL('../examples/tasks/doc-merge-lite.json', import.meta.url), 'utf8')) as TaskDeclarationInput & {
      splits?: Record<string, unknown>;
      schemes: Record<string, GoO>;
    };
  const withSplit = (splits: Record<string, unknown>, scheme: unknown) => ({
    ...lite(),
    splits,
    schemes: { ...lite().schemes, parts: scheme },
  });
  const scheme = (split: string, body: unknown[] = []) => ({ operations: [forEach('docs', [], body, { parts: { split } })] });

  it("compiles an items split over a list field, or over the input thoughts' outputs", () => {
    const task = resolveTask(
      withSplit({ docs: { kind: 'items', field: 'documents' }, outputs: { kind: 'items' } }, scheme('docs')) as TaskDeclarationInput,
    );
    expect(task.splits!.docs!([], { documents: ['a', 'b'] }, {})).toEqual([{ state: { output: 'a' } }, { state: { output: 'b' } }]);
    expect(task.splits!.outputs!([{ output: [1, 2] }, { output: 'x' }, {}, { output: [3] }], {}, {})).toEqual([
      { state: { output: 1 } },
      { state: { output: 2 } },
      { state: { output: 3 } },
    ]);
  });

  it('accepts a forEach over every input thought without declaring any split', () => {
    const merge = { id: 'merge', type: 'generate', prompt: 'merge', k: 2 };
    const goo = { operations: [merge, forEach('each', ['merge'], [{ id: 'better', type: 'improve', prompt: 'improve' }])] };
    const task = { ...lite(), schemes: { ...lite().schemes, each: goo } };
    expect(checkRun({ task, problem: { documents: ['a', 'b'] }, goo }).task.splits).toBeUndefined();
  });

  it('refuses an undeclared split, a split over a field that is no list, and an undeclared prompt in a body', () => {
    const issues = validationIssues(() =>
      checkRun({
        task: withSplit({ bad: { kind: 'items', field: 'nope' } }, scheme('missing', [{ id: 'x', type: 'generate', prompt: 'shout' }])),
        problem: { documents: ['a', 'b'] },
        goo: scheme('docs'),
      }),
    );
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        'task.schemes.parts.operations[0].parts.split',
        'task.schemes.parts.operations[0].body[0].prompt',
        'task.splits.bad.field',
      ]),
    );
    expect(issues.find((i) => i.path === 'task.schemes.parts.operations[0].parts.split')!.message).toBe(
      'no split "missing" is declared; expected one of: bad',
    );
  });
});
