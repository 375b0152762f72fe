import { describe, expect, it } from 'vitest';
import type { Thought } from '../src/grs/types';
import type { RunResult } from '../src/run/request';
import { fitPayloadLimit } from '../workflows/result';

const thought = (id: string, size: number): Thought => ({
  id,
  operationId: id.split('/')[0]!,
  parents: [],
  state: { text: 'x'.repeat(size) },
  valid: true,
  score: 1,
});

function result(thoughts: Thought[]): RunResult {
  const last = thoughts.at(-1)!;
  return {
    task: 'sorting',
    labels: {},
    final: [last],
    best: last,
    grs: {
      task: 'sorting',
      finalOperations: [],
      thoughts,
      operations: [],
      calls: [],
      totals: { llmCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 },
      budgetExhausted: false,
    },
  };
}

describe("a run result within Temporal's payload limit", () => {
  it('is returned unchanged when it fits', () => {
    const small = result([thought('a/0.0', 1000), thought('b/0.0', 1000)]);
    expect(fitPayloadLimit(small)).toBe(small);
  });

  it('drops non-final thought states, keeping the graph and the final thoughts, when it does not', () => {
    const thoughts = Array.from({ length: 40 }, (_, i) => thought(`op/${i}.0`, 50_000));
    const fitted = fitPayloadLimit(result(thoughts));
    expect(JSON.stringify(fitted).length).toBeLessThan(1_500_000);
    expect(fitted.grs.statesOmitted).toBe(true);
    expect(fitted.grs.thoughts).toHaveLength(40);
    expect(fitted.grs.thoughts.at(-1)!.state).toEqual(thoughts.at(-1)!.state);
    expect(fitted.grs.thoughts[0]!.state).toEqual({});
    expect(fitted.grs.thoughts[0]!.score).toBe(1);
  });
});
