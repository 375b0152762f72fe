import { describe, expect, it } from 'vitest';
import { steerOf } from '../src/cli/commands/steer';
import { describeSteer } from '../src/steering/describe';
import { hasAnswerLeft, leavesNothing, type PruneGraph } from '../src/steering/reach';
import { readSteer } from '../src/steering/read';
import { type SteerableGraph, type SteerableRun, steeringRefusal } from '../src/steering/refusal';
import { SteerRequest } from '../src/steering/types';

/** gen → fix → score-fix ┐
 *  gen → score-gen ───────┴→ best (the one final operation); gen done with two thoughts, the rest pending. */
const ops: Record<string, string[]> = {
  gen: [],
  fix: ['gen'],
  'score-fix': ['fix'],
  'score-gen': ['gen'],
  best: ['score-fix', 'score-gen'],
};
const done: Record<string, string[]> = { gen: ['gen/0.0', 'gen/0.1'], 'score-gen': ['gen/0.0', 'gen/0.1'] };
const reach: PruneGraph = { sinks: ['best'], inputsOf: (id) => ops[id]!, outputsOf: (id) => done[id] };
const none = { operations: new Set<string>(), thoughts: new Set<string>() };

const graph = (pruned = none): SteerableGraph => ({
  statusOf: (id) => (id in done ? 'done' : id in ops ? 'pending' : undefined),
  gooOperations: Object.keys(ops),
  hasThought: (id) => done.gen!.includes(id),
  readByPending: (id) => done.gen!.includes(id),
  prunedOperation: (id) => pruned.operations.has(id),
  prunedThought: (id) => pruned.thoughts.has(id),
  leavesNothing: (prune) => leavesNothing(reach, pruned, prune),
});
const run = (pruned = none): SteerableRun => ({
  steerable: true,
  started: true,
  graphDone: false,
  paused: false,
  spent: { costUsd: 0, tokens: 0 },
  budgetExhausted: false,
  graph: graph(pruned),
});

describe('prune and instruct as the workflow reads them (decision 103)', () => {
  it('takes what the contract schema takes', () => {
    const examples = [
      { action: 'prune', operation: 'fix', by: 'Ann' },
      { action: 'prune', thought: 'gen/0.1', reason: 'off topic' },
      { action: 'instruct', operation: 'merge[3]', text: ' Keep the 30-day notice. ' },
    ];
    for (const e of examples) expect(readSteer(e)).toEqual({ steer: SteerRequest.parse(e) });
  });

  it('names the field that is wrong, as the schema refuses it too', () => {
    const bad: [unknown, RegExp][] = [
      [{ action: 'prune' }, /^prune: give operation or thought, one of them/],
      [{ action: 'prune', operation: 'a', thought: 'b' }, /^prune: give operation or thought/],
      [{ action: 'prune', operation: '' }, /^operation: expected text/],
      [{ action: 'instruct', operation: 'fix' }, /^text: expected text of 1 to 4000/],
      [{ action: 'instruct', text: 'x' }, /^operation: expected text/],
      [{ action: 'pause', operation: 'fix' }, /^operation: the action "pause" takes no operation/],
      [{ action: 'prune', operation: 'fix', text: 'x' }, /^text: the action "prune" takes no text/],
      [{ action: 'stop' }, /^action: expected "pause", "resume", "budget", "prune", "instruct" or "add"/],
    ];
    for (const [input, message] of bad) {
      const read = readSteer(input);
      expect('problem' in read && read.problem, JSON.stringify(input)).toMatch(message);
      expect(SteerRequest.safeParse(input).success, JSON.stringify(input)).toBe(false);
    }
  });
});

describe('whether a prune or an instruction applies to the graph as it stands', () => {
  it('prunes an operation that has not started unless it takes the last way to an answer', () => {
    expect(steeringRefusal(run(), { action: 'prune', operation: 'fix' })).toBeUndefined();
    expect(steeringRefusal(run(), { action: 'prune', operation: 'best' })).toMatch(/leaves the run nothing to answer with/);
    expect(steeringRefusal(run(), { action: 'prune', operation: 'gen' })).toBe(
      'operation "gen" has ended: only one that has not started can be pruned',
    );
    expect(steeringRefusal(run(), { action: 'prune', operation: 'nope' })).toMatch(/^operation: the run has no operation "nope"/);
    const fixPruned = { operations: new Set(['fix']), thoughts: new Set<string>() };
    expect(steeringRefusal(run(fixPruned), { action: 'prune', operation: 'fix' })).toBe('operation "fix" is pruned already');
  });

  it('prunes a thought, but not the last one an answer could come from', () => {
    const fixPruned = { operations: new Set(['fix']), thoughts: new Set<string>() };
    expect(steeringRefusal(run(fixPruned), { action: 'prune', thought: 'gen/0.0' })).toBeUndefined();
    const oneLeft = { operations: new Set(['fix']), thoughts: new Set(['gen/0.0']) };
    expect(steeringRefusal(run(oneLeft), { action: 'prune', thought: 'gen/0.1' })).toMatch(/leaves the run nothing/);
    expect(steeringRefusal(run(), { action: 'prune', thought: 'gen/9.9' })).toBe('thought: the run has no thought "gen/9.9"');
    expect(hasAnswerLeft(reach, oneLeft)).toBe(true);
  });

  it('takes instructions for an operation that has not ended, or a part not grown yet; refuses one that ended', () => {
    expect(steeringRefusal(run(), { action: 'instruct', operation: 'fix', text: 'x' })).toBeUndefined();
    expect(steeringRefusal(run(), { action: 'instruct', operation: 'best[2]', text: 'x' })).toBeUndefined();
    expect(steeringRefusal(run(), { action: 'instruct', operation: 'gen', text: 'x' })).toMatch(
      /has ended: fork the run with these instructions/,
    );
    expect(steeringRefusal(run(), { action: 'instruct', operation: 'nope', text: 'x' })).toBe('operation: the run has no operation "nope"');
  });

  it('adds operations with new ids reading the graph or each other, without a cycle or a person (decision 104)', () => {
    const add = (operations: { id: string; type: string; inputs?: string[]; scorer?: { kind: string } }[]) =>
      steeringRefusal(run(), { action: 'add', operations } as never);
    expect(
      add([
        { id: 'polish', type: 'improve', inputs: ['best'] },
        { id: 'final', type: 'keepBestN', inputs: ['polish', 'best'] },
      ]),
    ).toBeUndefined();
    expect(add([{ id: 'fix', type: 'improve', inputs: ['best'] }])).toBe('operations.0.id: the run has an operation "fix" already');
    expect(
      add([
        { id: 'a', type: 'improve', inputs: ['best'] },
        { id: 'a', type: 'score', inputs: ['a'] },
      ]),
    ).toBe('operations.1.id: "a" is added twice');
    expect(add([{ id: 'a', type: 'improve', inputs: ['nowhere'] }])).toBe('operations.0.inputs: the run has no operation "nowhere"');
    expect(
      add([
        { id: 'a', type: 'improve', inputs: ['b'] },
        { id: 'b', type: 'improve', inputs: ['a'] },
      ]),
    ).toMatch(/a cycle/);
    expect(add([{ id: 'a', type: 'score', inputs: ['best'], scorer: { kind: 'human' } }])).toMatch(/a person's score cannot join/);
    expect(readSteer({ action: 'add', operations: [{ id: 'a', type: 'forEach' }] })).toEqual({
      problem: expect.stringMatching(/^operations\.0\.type: expected one of generate/),
    });
    expect(readSteer({ action: 'add', operations: [] })).toEqual({ problem: 'operations: expected 1 to 50 operations' });
  });

  it('refuses both on a run whose generation cannot change its graph', () => {
    const { graph: _graph, ...older } = run();
    expect(steeringRefusal(older, { action: 'prune', operation: 'fix' })).toMatch(/cannot change its graph/);
  });
});

describe('prunes and instructions in words and from the command line', () => {
  it('says what changed', () => {
    expect(describeSteer({ action: 'prune', operation: 'fix', by: 'Ann' })).toBe('pruned operation fix: it does not run by Ann');
    expect(describeSteer({ action: 'prune', thought: 'gen/0.1' })).toBe('pruned thought gen/0.1: no operation starting later reads it');
    expect(describeSteer({ action: 'instruct', operation: 'merge[3]', text: 'Keep it short.' })).toBe(
      'instructions for merge[3]: "Keep it short."',
    );
  });

  it('builds the request from flags, naming the flag at fault', () => {
    expect(steerOf('prune', { operation: 'fix', by: 'Ann', json: false })).toEqual({ action: 'prune', operation: 'fix', by: 'Ann' });
    expect(steerOf('instruct', { operation: 'merge[3]', text: 'Shorter.', by: 'Ann', json: false })).toMatchObject({ text: 'Shorter.' });
    expect(() => steerOf('prune', { json: false })).toThrow(/--operation\/--thought: give operation or thought/);
    expect(() => steerOf('pause', { operation: 'fix', json: false })).toThrow(/--operation: `got steer <id> pause` takes no --operation/);
    expect(() => steerOf('instruct', { operation: 'fix', json: false })).toThrow(/--text/);
  });
});
