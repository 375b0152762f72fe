import { describe, expect, it } from 'vitest';
import { GrsRecorder } from '../src/grs/recorder';

/** A recorded call of the given cost; everything else is the same for each. */
function call(key: number, costUsd: number) {
  return {
    kind: 'callRecorded' as const,
    key,
    call: {
      operationId: 'g',
      purpose: 'generate' as const,
      inputThoughts: [],
      outputThoughts: [],
      model: 'm',
      samples: 1,
      usage: { promptTokens: 10, completionTokens: 5 },
      costUsd,
      latencyMs: 1,
      startedAt: 0,
      finishedAt: 1,
      attempt: 1,
    },
  };
}

describe('a GRS total', () => {
  it('is the same whatever order the same calls finished in', () => {
    const costs = [0.1, 0.2, 0.3];
    const totalOf = (order: number[]) => {
      const grs = new GrsRecorder();
      grs.apply({ kind: 'init', task: 't', operations: [{ id: 'g', type: 'generate' }], finalOperations: ['g'] });
      for (const i of order) grs.apply(call(i, costs[i] as number));
      return grs.final().totals;
    };
    const forward = costs.map((_, i) => i);
    // The raw float sums of these two orders differ in their last bits.
    const sum = (order: number[]) => order.reduce((s, i) => s + (costs[i] as number), 0);
    const backward = [...forward].reverse();
    expect(sum(forward)).not.toBe(sum(backward));
    expect(totalOf(backward)).toEqual(totalOf(forward));
    expect(totalOf(forward).costUsd).toBeCloseTo(sum(forward), 12);
  });
});
