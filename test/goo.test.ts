import { describe, expect, it } from 'vitest';
import { GooBuilder } from '../src/goo/builder';
import { DEFAULT_LIMITS, type GoOInput } from '../src/goo/schema';
import { type AnalyzedGoO, type Limits, validateGoO } from '../src/goo/validate';
import { sortingSchemes } from '../src/tasks/sorting/schemes';
import { validationIssues } from './support/tasks';

const issuesOf = validationIssues;

function expectValidTopologicalOrder(a: AnalyzedGoO) {
  const ids = a.goo.operations.map((op) => op.id);
  expect([...a.order].sort()).toEqual([...ids].sort());
  expect(new Set(a.order).size).toBe(a.order.length);
  const position = new Map(a.order.map((id, i) => [id, i]));
  for (const op of a.goo.operations) {
    for (const input of op.inputs) expect(position.get(input)!).toBeLessThan(position.get(op.id)!);
  }
}

const gen = (id: string, inputs: string[] = [], k = 1) => ({ id, type: 'generate' as const, prompt: 'sort', k, inputs });
const score = (id: string, inputs: string[]) => ({ id, type: 'score' as const, inputs });

describe('validateGoO on the sorting schemes', () => {
  const cases = Object.keys(sortingSchemes).flatMap((scheme) => [32, 64, 128].map((size) => ({ scheme, size })));

  it.each(cases)('accepts $scheme at $size with a valid order and the groundTruth as the only sink', ({ scheme, size }) => {
    const goo = sortingSchemes[scheme as keyof typeof sortingSchemes]({ size });
    const a = validateGoO(goo);
    expect(a.goo.operations).toHaveLength(goo.operations.length);
    expectValidTopologicalOrder(a);
    expect(a.sinks).toHaveLength(1);
    expect(a.byId.get(a.sinks[0]!)!.type).toBe('groundTruth');
  });
});

describe('validateGoO refusals', () => {
  const table: { name: string; goo: unknown; path: string; message: RegExp; limits?: Limits }[] = [
    {
      name: 'a duplicate id',
      goo: { operations: [gen('a'), score('b', ['a']), score('a', ['a'])] },
      path: 'goo.operations[2].id',
      message: /duplicate operation id "a"/,
    },
    {
      name: 'an unknown input',
      goo: { operations: [gen('a'), score('b', ['nope'])] },
      path: 'goo.operations[1].inputs',
      message: /unknown input operation "nope"/,
    },
    {
      name: 'an operation listing itself as input',
      goo: { operations: [gen('a'), score('b', ['a', 'b'])] },
      path: 'goo.operations[1].inputs',
      message: /"b" lists itself/,
    },
    {
      name: 'an input listed twice',
      goo: { operations: [gen('a'), score('b', ['a', 'a'])] },
      path: 'goo.operations[1].inputs',
      message: /input "a" is listed twice/,
    },
    {
      name: 'a non-generate operation without inputs',
      goo: { operations: [gen('a'), { id: 'keep', type: 'keepBestN', n: 1, higherIsBetter: false }] },
      path: 'goo.operations[1].inputs',
      message: /keepBestN operation needs at least one input/,
    },
    {
      name: 'k above the configured bound',
      goo: { operations: [gen('a', [], 6)] },
      limits: { ...DEFAULT_LIMITS, maxBranches: 5 },
      path: 'goo.operations[0].k',
      message: /k = 6 exceeds the configured bound of 5/,
    },
    {
      name: 'tries above the configured bound',
      goo: { operations: [gen('a'), { id: 'v', type: 'validateAndImprove', prompt: 'improve', tries: 4, inputs: ['a'] }] },
      limits: { ...DEFAULT_LIMITS, maxTries: 3 },
      path: 'goo.operations[1].tries',
      message: /tries = 4 exceeds the configured bound of 3/,
    },
    {
      name: 'LLM score samples above the configured bound',
      goo: { operations: [gen('a'), { id: 's', type: 'score', scorer: { kind: 'llm', prompt: 'rate', samples: 9 }, inputs: ['a'] }] },
      limits: { ...DEFAULT_LIMITS, maxScoreSamples: 8 },
      path: 'goo.operations[1].scorer.samples',
      message: /samples = 9 exceeds the configured bound of 8/,
    },
    {
      name: 'an unknown operation type',
      goo: { operations: [gen('a'), { id: 'b', type: 'teleport', inputs: ['a'] }] },
      path: 'goo.operations[1].type',
      message: /./,
    },
    {
      name: 'no operations at all',
      goo: { operations: [] },
      path: 'goo.operations',
      message: /at least one operation/,
    },
    {
      name: 'an id with a space',
      goo: { operations: [gen('sort one')] },
      path: 'goo.operations[0].id',
      message: /letters, digits/,
    },
    {
      name: 'an id starting with a dash',
      goo: { operations: [gen('-a')] },
      path: 'goo.operations[0].id',
      message: /letters, digits/,
    },
    {
      name: 'a bad id among the inputs',
      goo: { operations: [gen('a'), score('b', ['a/b'])] },
      path: 'goo.operations[1].inputs[0]',
      message: /letters, digits/,
    },
    {
      name: 'a generate without a prompt',
      goo: { operations: [{ id: 'a', type: 'generate' }] },
      path: 'goo.operations[0].prompt',
      message: /./,
    },
  ];

  it.each(table)('rejects $name at $path', ({ goo, path, message, limits }) => {
    const issues = issuesOf(() => validateGoO(goo, limits));
    const hit = issues.find((i) => i.path === path);
    expect(hit, `issues were ${JSON.stringify(issues)}`).toBeDefined();
    expect(hit!.message).toMatch(message);
  });

  it('accepts k exactly at the bound', () => {
    expect(() => validateGoO({ operations: [gen('a', [], 5)] }, { ...DEFAULT_LIMITS, maxBranches: 5 })).not.toThrow();
  });

  it('names the cycle path in the message', () => {
    // a -> b -> c -> d -> b (b, c, d form the cycle; e hangs behind it)
    const goo = {
      operations: [gen('a'), score('b', ['a', 'd']), score('c', ['b']), score('d', ['c']), score('e', ['d'])],
    };
    const issues = issuesOf(() => validateGoO(goo));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('goo.operations');
    const m = /cycle: (.*)$/.exec(issues[0]!.message);
    expect(m).not.toBeNull();
    const path = m![1]!.split(' -> ');
    // closed path over exactly b, c, d
    expect(path[0]).toBe(path.at(-1));
    expect(new Set(path)).toEqual(new Set(['b', 'c', 'd']));
    expect(path).toHaveLength(4);
    // every step follows an edge (producer -> consumer)
    const inputs = new Map(goo.operations.map((op) => [op.id, op.inputs]));
    for (let i = 1; i < path.length; i++) expect(inputs.get(path[i]!)).toContain(path[i - 1]);
  });

  it('reports every issue at once', () => {
    const issues = issuesOf(() => validateGoO({ operations: [gen('a'), score('b', ['x']), score('b', ['a', 'a'])] }));
    expect(issues.map((i) => i.path).sort()).toEqual(['goo.operations[1].inputs', 'goo.operations[2].id', 'goo.operations[2].inputs']);
  });

  it('uses the prefix it is given', () => {
    const issues = issuesOf(() => validateGoO({ operations: [gen('a'), score('b', ['x'])] }, DEFAULT_LIMITS, 'plan'));
    expect(issues[0]!.path).toBe('plan.operations[1].inputs');
  });

  it('rejects more operations than maxOperations', () => {
    const issues = issuesOf(() => validateGoO({ operations: [gen('a'), gen('b'), gen('c')] }, { ...DEFAULT_LIMITS, maxOperations: 2 }));
    expect(issues[0]!.path).toBe('goo.operations');
    expect(issues[0]!.message).toMatch(/at most 2 operations/);
  });
});

describe('validateGoO structure', () => {
  // declared out of order on purpose: c consumes b, which is declared after it
  const goo: GoOInput = {
    operations: [
      gen('a'),
      score('c', ['b']),
      gen('b', ['a']),
      { id: 'k1', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['c', 'a'] },
      { id: 'v', type: 'keepValidOnly', inputs: ['b'] },
      gen('lone'),
    ],
  };

  it('gives a topological order', () => {
    const a = validateGoO(goo);
    expectValidTopologicalOrder(a);
    expect(a.order.indexOf('b')).toBeLessThan(a.order.indexOf('c'));
  });

  it('lists as sinks exactly the operations nobody consumes, in declaration order', () => {
    expect(validateGoO(goo).sinks).toEqual(['k1', 'v', 'lone']);
  });

  it('records successors', () => {
    const a = validateGoO(goo);
    expect(a.successors.get('a')).toEqual(['b', 'k1']);
    expect(a.successors.get('b')).toEqual(['c', 'v']);
    expect(a.successors.get('k1')).toEqual([]);
  });

  it('fills schema defaults', () => {
    const a = validateGoO({
      operations: [
        { id: 'g', type: 'generate', prompt: 'sort' },
        { id: 's', type: 'score', inputs: ['g'] },
      ],
    });
    expect(a.goo.version).toBe(1);
    expect(a.byId.get('g')).toMatchObject({ k: 1, inputs: [] });
    expect(a.byId.get('s')).toMatchObject({ scorer: { kind: 'local' } });
  });
});

describe('GooBuilder', () => {
  it('gives readable, unique ids per prompt or type', () => {
    const b = new GooBuilder();
    const g1 = b.generate(null, { prompt: 'sort', k: 3 });
    const g2 = b.generate(g1, { prompt: 'sort' });
    const i1 = b.generate(g2, { prompt: 'improve' });
    const s1 = b.score([g1, g2, i1]);
    const kb = b.keepBestN(s1, { n: 1, higherIsBetter: false });
    const gt = b.groundTruth(kb);
    expect([g1, g2, i1, s1, kb, gt]).toEqual(['sort-1', 'sort-2', 'improve-1', 'score-1', 'keep-1', 'groundtruth-1']);
  });

  it('keeps explicit ids', () => {
    const b = new GooBuilder();
    const g = b.generate(null, { prompt: 'split', id: 'split' });
    const sel = b.selector(g, { where: { part: 0 }, id: 'part-0' });
    expect([g, sel]).toEqual(['split', 'part-0']);
    expect(b.build().operations.map((op) => op.id)).toEqual(['split', 'part-0']);
  });

  it('never hands out an automatic id that an explicit id already took', () => {
    const b = new GooBuilder();
    const first = b.generate(null, { prompt: 'sort', id: 'sort-2' });
    const second = b.generate(first, { prompt: 'sort' });
    const third = b.generate(second, { prompt: 'sort' });
    const ids = [first, second, third];
    expect(new Set(ids).size).toBe(ids.length);
    expect(() => validateGoO(b.build())).not.toThrow();
  });

  it('records inputs as given, in order, for a single ref and for a list', () => {
    const b = new GooBuilder();
    const a = b.generate(null, { prompt: 'sort' });
    const c = b.generate(null, { prompt: 'sort' });
    const agg = b.aggregate([c, a], { prompt: 'merge', k: 10 });
    const sc = b.score(agg);
    const ops = b.build().operations;
    expect(ops.find((o) => o.id === agg)).toMatchObject({ type: 'aggregate', inputs: [c, a], k: 10, prompt: 'merge' });
    expect(ops.find((o) => o.id === sc)!.inputs).toEqual([agg]);
    expect(ops.find((o) => o.id === a)!.inputs).toEqual([]);
  });

  it('sets each operation type with its options', () => {
    const b = new GooBuilder();
    const g = b.generate(null, { prompt: 'sort', k: 4, params: { parts: 2 } });
    const imp = b.improve(g, { prompt: 'improve' });
    const vi = b.validateAndImprove(imp, { prompt: 'improve', tries: 5 });
    const sl = b.score(vi, { llm: { prompt: 'rate', samples: 3 } });
    const kv = b.keepValidOnly(sl);
    const sel = b.selector(kv, { where: { part: 1, tag: 'x', ok: true } });
    const ops = new Map(b.build().operations.map((o) => [o.id, o]));
    expect(ops.get(g)).toMatchObject({ type: 'generate', k: 4, params: { parts: 2 } });
    expect(ops.get(imp)).toMatchObject({ type: 'improve', prompt: 'improve' });
    expect(ops.get(vi)).toMatchObject({ type: 'validateAndImprove', tries: 5 });
    expect(ops.get(sl)).toMatchObject({ type: 'score', scorer: { kind: 'llm', prompt: 'rate', samples: 3 } });
    expect(ops.get(kv)).toMatchObject({ type: 'keepValidOnly', inputs: [sl] });
    expect(ops.get(sel)).toMatchObject({ type: 'selector', where: { part: 1, tag: 'x', ok: true } });
  });

  it('builds plain JSON that validateGoO accepts, and later edits do not leak into it', () => {
    const b = new GooBuilder();
    const g = b.generate(null, { prompt: 'sort', k: 5 });
    const s = b.score(g);
    const k = b.keepBestN([s, g], { n: 2, higherIsBetter: false });
    b.groundTruth(k);
    const goo = b.build();
    const roundTripped = JSON.parse(JSON.stringify(goo)) as unknown;
    expect(roundTripped).toEqual(goo);
    const a = validateGoO(roundTripped);
    expect(a.order).toEqual([g, s, k, 'groundtruth-1']);
    expect(a.sinks).toEqual(['groundtruth-1']);

    // the built GoO is a copy: mutating it, or building on, does not change the next build
    goo.operations[2]!.inputs.push('x');
    b.score(k);
    expect(b.build().operations[2]!.inputs).toEqual([s, g]);
    expect(goo.operations).toHaveLength(4);
  });
});
