import { describe, expect, it } from 'vitest';
import type { Operation } from '../src/goo/schema';
import type { Grs, OperationRecord, Thought } from '../src/grs/types';
import { noAnswerOf } from '../workflows/no-answer';

/** Where a run without a valid final thought lost its way: the reason a person reads first. */
const ops: Operation[] = [
  { id: 'split', type: 'generate', inputs: [], prompt: 'split', k: 1 },
  { id: 'sort', type: 'generate', inputs: ['split'], prompt: 'sort', k: 2 },
  { id: 'best', type: 'keepBestN', inputs: ['sort'], n: 1, higherIsBetter: false },
];
const thought = (id: string, valid: boolean, extra: Partial<Thought> = {}): Thought => ({
  id,
  operationId: id.split('/')[0]!,
  parents: [],
  state: {},
  valid,
  ...extra,
});
const record = (id: string, inputThoughts: string[], outputThoughts: string[], extra: Partial<OperationRecord> = {}): OperationRecord => ({
  id,
  type: ops.find((o) => o.id === id)!.type,
  status: 'done',
  inputThoughts,
  outputThoughts,
  ...extra,
});
const grs = (thoughts: Thought[], operations: OperationRecord[], budgetExhausted = false): Grs => ({
  task: 'sorting',
  finalOperations: ['best'],
  thoughts,
  operations,
  calls: [],
  totals: { llmCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 },
  budgetExhausted,
});

describe('noAnswerOf', () => {
  it('is undefined when a final thought is valid', () => {
    expect(noAnswerOf(grs([], []), [thought('best/0.0', true)], ops)).toBeUndefined();
  });

  it('names the first LLM operation that made no valid thought, its reason and what the model said', () => {
    const thoughts = [
      thought('root/0', true),
      thought('split/0.0', true),
      thought('sort/0.0', false, { error: 'no list of numbers in the answer', said: 'Sure!   Here is\nmy answer: none' }),
      thought('sort/0.1', false, { error: 'x' }),
    ];
    const graph = grs(thoughts, [
      record('split', ['root/0'], ['split/0.0']),
      record('sort', ['split/0.0'], ['sort/0.0', 'sort/0.1']),
      record('best', ['sort/0.0', 'sort/0.1'], ['sort/0.0']),
    ]);
    expect(noAnswerOf(graph, [thoughts[2]!], ops)).toEqual({
      operation: 'sort',
      reason: '2 thoughts, none valid: no list of numbers in the answer; the model said: "Sure! Here is my answer: none"',
    });
  });

  it('says when the budget was spent before the model was asked', () => {
    const graph = grs(
      [thought('root/0', true)],
      [
        record('split', ['root/0'], [], { status: 'skipped' }),
        record('sort', [], [], { status: 'pending' }),
        record('best', [], [], { status: 'pending' }),
      ],
      true,
    );
    expect(noAnswerOf(graph, [], ops)).toEqual({ operation: 'split', reason: 'the budget was spent before it could ask the model' });
  });
});
