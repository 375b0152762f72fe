import { describe, expect, it } from 'vitest';
import { type GrsFact, GrsRecorder, ROOT_THOUGHT_ID } from '../src/grs/recorder';
import type { LlmCall, Thought } from '../src/grs/types';
import { keepBestN, keepValidOnly, select, uniqueThoughts } from '../src/operations/filters';

const t = (id: string, score?: number, extra: Partial<Thought> = {}): Thought => ({
  id,
  operationId: id.split('/')[0]!,
  parents: [],
  state: {},
  valid: true,
  ...(score === undefined ? {} : { score }),
  ...extra,
});
const ids = (ts: readonly Thought[]) => ts.map((x) => x.id);

describe('keepBestN', () => {
  const pool = [t('a', 5), t('b', 2), t('c', 9), t('d', 2), t('e', 7)];

  it.each([
    { higherIsBetter: false, n: 1, want: ['b'] },
    { higherIsBetter: false, n: 3, want: ['b', 'd', 'a'] },
    { higherIsBetter: true, n: 1, want: ['c'] },
    { higherIsBetter: true, n: 3, want: ['c', 'e', 'a'] },
    { higherIsBetter: true, n: 5, want: ['c', 'e', 'a', 'b', 'd'] },
  ])('keeps the $n best (higherIsBetter=$higherIsBetter)', ({ higherIsBetter, n, want }) => {
    expect(ids(keepBestN(pool, n, higherIsBetter))).toEqual(want);
  });

  it('ranks every valid thought before every invalid one when asked (validFirst), however they score', () => {
    const cut = [t('cut', 0, { valid: false }), t('ok', 6), t('unscored'), t('worse', 9)];
    expect(ids(keepBestN(cut, 1, false))).toEqual(['cut']);
    expect(ids(keepBestN(cut, 4, false, true))).toEqual(['ok', 'worse', 'unscored', 'cut']);
    expect(ids(keepBestN([t('cut', 10, { valid: false }), t('ok', 1)], 1, true, true))).toEqual(['ok']);
  });

  it('is stable on ties: equal scores keep input order in both directions', () => {
    const tied = [t('x', 1), t('y', 0), t('z', 1), t('w', 0)];
    expect(ids(keepBestN(tied, 4, false))).toEqual(['y', 'w', 'x', 'z']);
    expect(ids(keepBestN(tied, 4, true))).toEqual(['x', 'z', 'y', 'w']);
  });

  it.each([false, true])('ranks unscored thoughts after every scored one (higherIsBetter=%s)', (higherIsBetter) => {
    const mixed = [t('u1'), t('s1', 1000), t('u2'), t('s2', -1000)];
    const kept = ids(keepBestN(mixed, 4, higherIsBetter));
    expect(kept.slice(2)).toEqual(['u1', 'u2']);
    expect(new Set(kept.slice(0, 2))).toEqual(new Set(['s1', 's2']));
    expect(ids(keepBestN([t('u'), t('s', 300)], 1, higherIsBetter))).toEqual(['s']);
  });

  it('returns everything when n exceeds the input, and nothing for no input', () => {
    expect(ids(keepBestN(pool, 50, false))).toEqual(['b', 'd', 'a', 'e', 'c']);
    expect(keepBestN([], 3, false)).toEqual([]);
  });

  it('handles negative scores and zero', () => {
    expect(ids(keepBestN([t('a', 0), t('b', -3), t('c', 2)], 1, false))).toEqual(['b']);
    expect(ids(keepBestN([t('a', 0), t('b', -3), t('c', 2)], 1, true))).toEqual(['c']);
  });

  it('does not reorder its input array', () => {
    const input = [t('a', 3), t('b', 1)];
    keepBestN(input, 1, false);
    expect(ids(input)).toEqual(['a', 'b']);
  });
});

describe('keepValidOnly', () => {
  it('keeps valid thoughts in order', () => {
    const ts = [t('a'), t('b', 1, { valid: false, error: 'x' }), t('c'), t('d', undefined, { valid: false })];
    expect(ids(keepValidOnly(ts))).toEqual(['a', 'c']);
    expect(keepValidOnly([t('z', 0, { valid: false })])).toEqual([]);
  });
});

describe('select', () => {
  const ts = [
    t('p/0.0', undefined, { state: { part: 0, kind: 'sort', final: false } }),
    t('p/0.1', undefined, { state: { part: 1, kind: 'sort', final: true } }),
    t('p/0.2', undefined, { state: { part: 1, kind: 'merge', final: true } }),
    t('p/0.3', undefined, { state: { part: '1', kind: 'sort', final: true } }),
    t('p/0.4', undefined, { state: {} }),
  ];

  it.each<{ where: Record<string, string | number | boolean>; want: string[] }>([
    { where: { part: 1 }, want: ['p/0.1', 'p/0.2'] },
    { where: { part: 1, kind: 'sort' }, want: ['p/0.1'] },
    { where: { part: 1, kind: 'sort', final: true }, want: ['p/0.1'] },
    { where: { final: false }, want: ['p/0.0'] },
    { where: { part: '1' }, want: ['p/0.3'] },
    { where: { part: 2 }, want: [] },
    { where: { part: 0, kind: 'merge' }, want: [] },
    { where: {}, want: ['p/0.0', 'p/0.1', 'p/0.2', 'p/0.3', 'p/0.4'] },
  ])('where $where', ({ where, want }) => {
    expect(ids(select(ts, where))).toEqual(want);
  });
});

describe('uniqueThoughts', () => {
  it('drops repeated ids, keeping the first occurrence and the order', () => {
    const a = t('a', 1);
    const b = t('b', 2);
    const aAgain = t('a', 99);
    const out = uniqueThoughts([a, b, aAgain, t('c'), b]);
    expect(ids(out)).toEqual(['a', 'b', 'c']);
    expect(out[0]).toBe(a);
  });
});

const call = (operationId: string, promptTokens: number, completionTokens: number, costUsd: number): Omit<LlmCall, 'id'> => ({
  operationId,
  purpose: 'generate',
  inputThoughts: [ROOT_THOUGHT_ID],
  outputThoughts: [],
  model: 'sim',
  samples: 2,
  usage: { promptTokens, completionTokens },
  costUsd,
  latencyMs: 5,
  startedAt: 1_000,
  finishedAt: 1_005,
  attempt: 1,
});

function recorder() {
  const r = new GrsRecorder().init('sorting', [
    { id: 'sort', type: 'generate' },
    { id: 'score', type: 'score' },
    { id: 'keep', type: 'keepBestN' },
    { id: 'gt', type: 'groundTruth' },
  ]);
  r.addRoot({ unsorted: [2, 1], list: [2, 1] });
  return r;
}

describe('GrsRecorder', () => {
  it('is a fold over its facts: replaying the facts rebuilds the same GRS', () => {
    const facts: GrsFact[] = [];
    const live = new GrsRecorder((f) => facts.push(f)).init('sorting', [{ id: 'sort', type: 'generate' }]);
    live.addRoot({ list: [2, 1] });
    live.startOperation('sort', ['root/0'], 10);
    const call = live.recordCall(0, {
      operationId: 'sort',
      purpose: 'generate',
      inputThoughts: ['root/0'],
      outputThoughts: [],
      model: 'm',
      samples: 1,
      usage: { promptTokens: 3, completionTokens: 4 },
      costUsd: 0.5,
      latencyMs: 1,
      startedAt: 1,
      finishedAt: 2,
      attempt: 1,
    });
    const [t] = live.addThoughts('sort', 0, [{ state: { list: [1, 2] }, parents: ['root/0'], valid: true, callId: call.id }]);
    live.linkCallOutputs(call.id, [t!.id]);
    live.setScore(t!.id, 0);
    live.finishOperation('sort', [t!.id], 20);
    const rebuilt = new GrsRecorder();
    for (const f of facts) rebuilt.apply(f);
    expect(rebuilt.snapshot()).toEqual(live.snapshot());
    expect(facts.map((f) => f.kind)).toEqual([
      'init',
      'root',
      'operationStarted',
      'callRecorded',
      'thoughtsCreated',
      'callLinked',
      'scored',
      'operationFinished',
    ]);
  });

  it('names thoughts by position: <op>/<key>.<i>', () => {
    const r = recorder();
    const made = r.addThoughts('sort', 0, [
      { state: { list: [1, 2] }, parents: [ROOT_THOUGHT_ID], valid: true },
      { state: {}, parents: [ROOT_THOUGHT_ID], valid: false, error: 'no list' },
    ]);
    const more = r.addThoughts('sort', 'b3', [{ state: { list: [1] }, parents: [ROOT_THOUGHT_ID], valid: true }]);
    expect(ids(made)).toEqual(['sort/0.0', 'sort/0.1']);
    expect(ids(more)).toEqual(['sort/b3.0']);
    expect(r.thought('sort/0.1')).toMatchObject({ operationId: 'sort', valid: false, error: 'no list', parents: [ROOT_THOUGHT_ID] });
    expect(r.thought(ROOT_THOUGHT_ID)).toMatchObject({ id: 'root/0', operationId: 'root', valid: true, parents: [] });
    expect(() => r.thought('sort/9.9')).toThrow(/unknown thought/);
  });

  it('adds up totals over recordCall and names calls by position', () => {
    const r = recorder();
    const c0 = r.recordCall(0, call('sort', 100, 40, 0.25));
    const c1 = r.recordCall('x', call('score', 7, 3, 0.125));
    const c2 = r.recordCall(2, call('sort', 0, 10, 0.5));
    expect([c0.id, c1.id, c2.id]).toEqual(['sort/call-0', 'score/call-x', 'sort/call-2']);
    expect(r.spent).toEqual({ llmCalls: 3, promptTokens: 107, completionTokens: 53, costUsd: 0.875 });
    const snap = r.snapshot();
    expect(snap.calls.map((c) => c.id)).toEqual(['sort/call-0', 'score/call-x', 'sort/call-2']);
    expect(snap.totals).toEqual(r.spent);
    // spent is a copy
    r.spent.llmCalls = 99;
    expect(r.spent.llmCalls).toBe(3);
  });

  it('links a call to the thoughts it produced', () => {
    const r = recorder();
    const c = r.recordCall(0, call('sort', 1, 1, 0));
    const made = r.addThoughts('sort', 0, [
      { state: {}, parents: [ROOT_THOUGHT_ID], valid: true, callId: c.id },
      { state: {}, parents: [ROOT_THOUGHT_ID], valid: true, callId: c.id },
    ]);
    r.linkCallOutputs(c.id, ids(made));
    expect(r.snapshot().calls[0]!.outputThoughts).toEqual(['sort/0.0', 'sort/0.1']);
    // a fact about an unknown call is a broken fact stream, not something to skip silently
    expect(() => r.linkCallOutputs('nope/call-0', ['x'])).toThrow();
    expect(r.snapshot().calls.map((x) => x.outputThoughts)).toEqual([['sort/0.0', 'sort/0.1']]);
  });

  it('sets score, solved and validity (clearing the error when valid again)', () => {
    const r = recorder();
    const [th] = r.addThoughts('sort', 0, [{ state: { list: [1, 2] }, parents: [ROOT_THOUGHT_ID], valid: true }]);
    r.setScore(th!.id, 3);
    r.setSolved(th!.id, false);
    r.setValidity(th!.id, false, 'descending');
    expect(r.thought(th!.id)).toMatchObject({ score: 3, solved: false, valid: false, error: 'descending' });
    r.setScore(th!.id, 0);
    r.setSolved(th!.id, true);
    r.setValidity(th!.id, true);
    const after = r.thought(th!.id);
    expect(after).toMatchObject({ score: 0, solved: true, valid: true });
    expect('error' in after).toBe(false);
    expect(() => r.setScore('ghost/0.0', 1)).toThrow(/unknown thought/);
  });

  it('counts done and skipped operations as finished, not running or failed ones', () => {
    const r = recorder();
    expect(r.finishedOperations).toBe(0);
    r.startOperation('sort', [ROOT_THOUGHT_ID], 1000);
    expect(r.operation('sort')).toMatchObject({ status: 'running', inputThoughts: [ROOT_THOUGHT_ID], startedAt: 1000 });
    expect(r.finishedOperations).toBe(0);
    r.finishOperation('sort', ['sort/0.0'], 1500);
    r.finishOperation('score', [], 1600, 'skipped', 'budget exhausted');
    r.finishOperation('keep', [], 1700, 'failed');
    expect(r.finishedOperations).toBe(2);
    expect(r.operation('sort')).toMatchObject({ status: 'done', outputThoughts: ['sort/0.0'], endedAt: 1500 });
    expect(r.operation('score')).toMatchObject({ status: 'skipped', note: 'budget exhausted' });
    expect(r.operation('gt').status).toBe('pending');
    expect(() => r.operation('nope')).toThrow(/unknown operation/);
  });

  it('snapshots a deep copy: mutating it leaves the recorder unchanged', () => {
    const r = recorder();
    const c = r.recordCall(0, call('sort', 10, 5, 0.01));
    r.addThoughts('sort', 0, [{ state: { list: [1, 2] }, parents: [ROOT_THOUGHT_ID], valid: true, callId: c.id }]);
    r.linkCallOutputs(c.id, ['sort/0.0']);
    r.startOperation('sort', [ROOT_THOUGHT_ID], 1);
    r.finishOperation('sort', ['sort/0.0'], 2);
    r.markBudgetExhausted();

    const snap = r.snapshot();
    expect(snap.task).toBe('sorting');
    expect(snap.budgetExhausted).toBe(true);
    expect(snap.thoughts.map((x) => x.id)).toEqual([ROOT_THOUGHT_ID, 'sort/0.0']);
    expect(snap.operations.map((o) => o.id)).toEqual(['sort', 'score', 'keep', 'gt']);

    (snap.thoughts[1]!.state.list as number[]).push(99);
    snap.thoughts[1]!.parents.push('x');
    snap.thoughts[1]!.score = 42;
    snap.operations[0]!.outputThoughts.push('x');
    snap.operations[0]!.status = 'failed';
    snap.calls[0]!.outputThoughts.push('x');
    snap.calls[0]!.usage.promptTokens = 1e6;
    snap.totals.costUsd = 100;
    snap.thoughts.pop();
    snap.calls.pop();

    const again = r.snapshot();
    expect(again.thoughts).toHaveLength(2);
    expect(again.thoughts[1]).toMatchObject({ state: { list: [1, 2] }, parents: [ROOT_THOUGHT_ID] });
    expect(again.thoughts[1]!.score).toBeUndefined();
    expect(again.operations[0]).toMatchObject({ status: 'done', outputThoughts: ['sort/0.0'] });
    expect(again.calls).toHaveLength(1);
    expect(again.calls[0]!.outputThoughts).toEqual(['sort/0.0']);
    expect(again.calls[0]!.usage.promptTokens).toBe(10);
    expect(again.totals.costUsd).toBe(0.01);
    expect(r.spent.costUsd).toBe(0.01);
  });

  it('replaying the same facts yields the same GRS', () => {
    const feed = (r: GrsRecorder) => {
      const c = r.recordCall(0, call('sort', 10, 5, 0.01));
      const made = r.addThoughts('sort', 0, [{ state: { list: [1, 2] }, parents: [ROOT_THOUGHT_ID], valid: true, callId: c.id }]);
      r.linkCallOutputs(c.id, ids(made));
      r.setScore(made[0]!.id, 0);
      return r.snapshot();
    };
    expect(feed(recorder())).toEqual(feed(recorder()));
  });
});
