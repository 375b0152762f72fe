import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError, validateGoO } from '../src/goo/validate';
import { TASKS } from '../src/tasks/registry';
import { sortingTask } from '../src/tasks/sorting';
import { gooFor, spaceOf } from '../src/tune/configure';
import { configIssues, configKey, defaultsOf, resolveConfig, valuesOf } from '../src/tune/space';
import { applyConfig, readTunableGoO } from '../src/tune/template';

/**
 * SHA-256 (first 16 hex digits) of every built-in scheme's GoO JSON as the schemes built it before
 * they became tunable: an empty configuration, or the defaults, must build exactly these.
 */
const BEFORE_TUNABLES: Record<string, string> = {
  'sorting/io/32': '3b6d2133c22aae47',
  'sorting/cot/32': 'd8b04552f297db89',
  'sorting/tot/32': '4e93d405b9174b8e',
  'sorting/tot2/32': 'bf414632ad4c4533',
  'sorting/got/32': '289a147849dabb0c',
  'sorting/io/64': '3b6d2133c22aae47',
  'sorting/cot/64': 'd8b04552f297db89',
  'sorting/tot/64': 'b0ebb483b28f7dff',
  'sorting/tot2/64': '9de3b9f6547014cc',
  'sorting/got/64': '6c4895b0829cdade',
  'sorting/io/128': '3b6d2133c22aae47',
  'sorting/cot/128': 'd8b04552f297db89',
  'sorting/tot/128': 'b0ebb483b28f7dff',
  'sorting/tot2/128': '6e6ee1fabdbdb11e',
  'sorting/got/128': '8ffba08b1aabc0a1',
  'set-intersection/io/32': '008774bea8e0e826',
  'set-intersection/cot/32': 'c93cf5c8186b8121',
  'set-intersection/tot/32': 'e760d62117e9cf37',
  'set-intersection/tot2/32': '4d7c55fb00f6e191',
  'set-intersection/got/32': '712ae9f39986084c',
  'set-intersection/io/64': '008774bea8e0e826',
  'set-intersection/cot/64': 'c93cf5c8186b8121',
  'set-intersection/tot/64': '9a2e5b21e4c431ad',
  'set-intersection/tot2/64': '2bf5d49e4dbaab1d',
  'set-intersection/got/64': 'bce7f3906df441c7',
  'set-intersection/io/128': '008774bea8e0e826',
  'set-intersection/cot/128': 'c93cf5c8186b8121',
  'set-intersection/tot/128': 'e4e0b1388ac6e6e1',
  'set-intersection/tot2/128': '7a223f2adb9e5f98',
  'set-intersection/got/128': '800c4ba3800fe0e4',
  'keyword-counting/io/8': '887c1c489d96f246',
  'keyword-counting/cot/8': '099050f94369d494',
  'keyword-counting/tot/8': 'fc039ed706cc5e7c',
  'keyword-counting/tot2/8': '514751561031f3fc',
  'keyword-counting/got4/8': 'fb66e71b037b1e44',
  'keyword-counting/got8/8': 'ecea2736aedbe562',
  'keyword-counting/gotx/8': '769608b1600bf12a',
  'keyword-counting/io/12': '887c1c489d96f246',
  'keyword-counting/cot/12': '099050f94369d494',
  'keyword-counting/tot/12': 'fc039ed706cc5e7c',
  'keyword-counting/tot2/12': '514751561031f3fc',
  'keyword-counting/got4/12': 'fb66e71b037b1e44',
  'keyword-counting/got8/12': 'ecea2736aedbe562',
  'keyword-counting/gotx/12': '679fb0953adc7f3d',
  'keyword-counting/io/16': '887c1c489d96f246',
  'keyword-counting/cot/16': '099050f94369d494',
  'keyword-counting/tot/16': 'fc039ed706cc5e7c',
  'keyword-counting/tot2/16': '514751561031f3fc',
  'keyword-counting/got4/16': 'fb66e71b037b1e44',
  'keyword-counting/got8/16': 'ecea2736aedbe562',
  'keyword-counting/gotx/16': '20d44fd8f83077d7',
  'doc-merge/io/2': '61c4d23bb34873c4',
  'doc-merge/cot/2': '03c14e23224c52aa',
  'doc-merge/tot/2': 'ebb5495ffe5b19be',
  'doc-merge/got/2': '022a3b60ee09799d',
  'doc-merge/got2/2': '9f707ef690ddc95b',
  // The clause scheme's GoO has a part per clause group: its digests follow the aligner (decision 97).
  'doc-merge/clauses/2': 'f82ee85f3c64ebcb',
  'doc-merge/io/4': '61c4d23bb34873c4',
  'doc-merge/cot/4': '03c14e23224c52aa',
  'doc-merge/tot/4': 'ebb5495ffe5b19be',
  'doc-merge/got/4': '022a3b60ee09799d',
  'doc-merge/got2/4': '04c2aa68ff9afffd',
  'doc-merge/clauses/4': '423c0ecdf6e073b1',
};

const sizesOf = (id: string) => (id === 'doc-merge' ? [2, 4] : [...TASKS[id]!.sizes]);
const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

describe('tunable schemes', () => {
  it('every scheme of every built-in task declares its tunables, with defaults inside their ranges', () => {
    for (const task of Object.values(TASKS)) {
      expect(Object.keys(task.tunables ?? {}).sort(), task.id).toEqual(Object.keys(task.schemes).sort());
      for (const size of sizesOf(task.id))
        for (const scheme of Object.keys(task.schemes)) {
          const space = spaceOf(task, { scheme }, size);
          expect(configIssues(space, defaultsOf(space)), `${task.id}/${scheme}/${size}`).toEqual([]);
        }
    }
  });

  it('an empty configuration and the defaults build byte for byte the GoO each scheme built before', () => {
    let checked = 0;
    const existedBefore = Object.values(TASKS).filter((t) => Object.keys(BEFORE_TUNABLES).some((k) => k.startsWith(`${t.id}/`)));
    for (const task of existedBefore)
      for (const size of sizesOf(task.id)) {
        const problem = task.generateProblem(size, 0);
        for (const [name, scheme] of Object.entries(task.schemes)) {
          const key = `${task.id}/${name}/${size}`;
          expect(digest(scheme({ size, problem })), key).toBe(BEFORE_TUNABLES[key]);
          expect(digest(scheme({ size, problem, params: {} })), key).toBe(BEFORE_TUNABLES[key]);
          const defaults = defaultsOf(spaceOf(task, { scheme: name }, size));
          expect(digest(gooFor(task, { scheme: name }, { size, problem, params: defaults })), key).toBe(BEFORE_TUNABLES[key]);
          checked++;
        }
      }
    expect(checked).toBe(Object.keys(BEFORE_TUNABLES).length);
  });

  it('every configuration at the ends of the ranges builds a valid GoO', () => {
    for (const task of Object.values(TASKS))
      for (const size of sizesOf(task.id)) {
        const problem = task.generateProblem(size, 1);
        for (const scheme of Object.keys(task.schemes)) {
          const space = spaceOf(task, { scheme }, size);
          for (const end of ['first', 'last'] as const) {
            const params = Object.fromEntries(
              Object.entries(space).map(([n, p]) => [n, end === 'first' ? valuesOf(p)[0]! : valuesOf(p).at(-1)!]),
            );
            expect(
              () => validateGoO(gooFor(task, { scheme }, { size, problem, params })),
              `${task.id}/${scheme}/${size} ${end}`,
            ).not.toThrow();
          }
        }
      }
  });

  it('sorting GoT: the parameters change what they say (branches, improve rounds, no inner improve)', () => {
    const goo = gooFor(
      sortingTask,
      { scheme: 'got' },
      { size: 64, problem: undefined, params: { sortBranches: 2, mergeBranches: 13, mergeImproveBranches: 0, improveRounds: 3 } },
    );
    const of = (prompt: string) => goo.operations.filter((o) => 'prompt' in o && o.prompt === prompt);
    expect(of('sort').map((o) => ('k' in o ? o.k : undefined))).toEqual([2, 2, 2, 2]);
    expect(of('merge').map((o) => ('k' in o ? o.k : undefined))).toEqual([13, 13, 13]);
    // No improve after the inner merges; three final rounds of 10, one after the other.
    expect(of('improve').map((o) => ('k' in o ? o.k : undefined))).toEqual([10, 10, 10]);
    const final = goo.operations.find((o) => o.id === 'final')!;
    expect(goo.operations.filter((o) => o.type === 'keepBestN').at(-1)!.id).toBe('final');
    expect(final.inputs).toHaveLength(1);
  });

  it('refuses unknown parameters and values out of range, naming them', () => {
    const space = spaceOf(sortingTask, { scheme: 'got' }, 64);
    expect(() => resolveConfig(space, { sortBranches: 0 })).toThrow(/params\.sortBranches: expected a whole number from 1 to 10, got 0/);
    expect(() => resolveConfig(space, { branches: 3 })).toThrow(/params\.branches: no tunable parameter "branches"/);
    expect(() => gooFor(sortingTask, { scheme: 'io' }, { size: 32, problem: undefined, params: { k: 3 } })).toThrow(/this scheme has none/);
    expect(() => gooFor(sortingTask, { scheme: 'nope' }, { size: 32, problem: undefined })).toThrow(ValidationError);
    expect(configKey(space, {})).toBe(configKey(space, defaultsOf(space)));
    expect(configKey(space, { sortBranches: 4 })).not.toBe(configKey(space, {}));
  });
});

describe('a GoO file with a tunable section', () => {
  const document = () => ({
    ...sortingTask.schemes.got!({ size: 32 }),
    tunable: {
      sortBranches: { int: [1, 8], at: ['/operations/2/k', '/operations/6/k'] },
      mergePrompt: { choice: ['merge', 'mergeCot'], at: ['/operations/9/prompt'], description: 'which merge prompt' },
    },
  });

  it("reads the space (the file's values are the defaults) and applies a configuration to a copy", () => {
    const doc = document();
    expect(doc.operations[2]).toMatchObject({ prompt: 'sort', k: 5 });
    expect(doc.operations[9]).toMatchObject({ prompt: 'merge' });
    const t = readTunableGoO(doc);
    expect(t.space.sortBranches).toMatchObject({ kind: 'int', min: 1, max: 8, default: 5 });
    expect(t.space.mergePrompt).toMatchObject({ kind: 'choice', default: 'merge', description: 'which merge prompt' });
    expect('tunable' in t.goo).toBe(false);
    expect(applyConfig(t)).toEqual(sortingTask.schemes.got!({ size: 32 }));
    const tuned = applyConfig(t, { sortBranches: 2 }) as { operations: { k?: number }[] };
    expect([tuned.operations[2]!.k, tuned.operations[6]!.k]).toEqual([2, 2]);
    expect(t.goo).toEqual(sortingTask.schemes.got!({ size: 32 })); // untouched
    expect(() => validateGoO(tuned)).not.toThrow();
  });

  it('refuses pointers to nothing, places that differ, a default out of range and a spec without a range', () => {
    const bad = {
      ...sortingTask.schemes.got!({ size: 32 }),
      tunable: {
        a: { int: [1, 3], at: ['/operations/99/k'] },
        b: { int: [1, 9], at: ['/operations/2/k', '/operations/0/prompt'] },
        c: { int: [6, 9], at: ['/operations/2/k'] },
        d: { at: ['/operations/2/k'] },
      },
    };
    let issues: string[] = [];
    try {
      readTunableGoO(bad);
    } catch (e) {
      issues = (e as ValidationError).issues.map((i) => `${i.path}: ${i.message}`);
    }
    expect(issues).toHaveLength(4);
    expect(issues[0]).toMatch(/^tunable\.a\.at: nothing in the GoO at \/operations\/99\/k/);
    expect(issues[1]).toMatch(/^tunable\.b\.at: the places differ/);
    expect(issues[2]).toMatch(/^tunable\.c: .*the default is the value the GoO holds: 5/);
    expect(issues[3]).toMatch(/^tunable\.d: give either/);
  });
});
