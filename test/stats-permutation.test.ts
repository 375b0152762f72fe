import { describe, expect, it } from 'vitest';
import { pBelow } from '../src/tune/stats';

describe('the permutation test of one mean below another', () => {
  it('counts the splits of the pooled values as low as the one observed', () => {
    // C(6, 3) = 20 splits; only {1, 2, 3} sums to 6 or less.
    expect(pBelow([1, 2, 3], [4, 5, 6])).toBeCloseTo(1 / 20, 12);
    // {1, 3} and {1, 2} of C(4, 2) = 6 sum to 4 or less.
    expect(pBelow([1, 3], [2, 4])).toBeCloseTo(2 / 6, 12);
  });

  it('is one-sided: the opposite direction is never evidence', () => {
    expect(pBelow([4, 5, 6], [1, 2, 3])).toBe(1);
    expect(pBelow([2, 2], [2, 2])).toBe(1);
  });

  it('keeps float ties ties', () => {
    // 0.1 + 0.2 is not 0.3 in floats; the split {0.3, 0} must still count as tying {0.1, 0.2}.
    expect(pBelow([0.1, 0.2], [0.3, 0])).toBeCloseTo(pBelow([1, 2], [3, 0]), 12);
  });

  it('cannot reach 0.05 with two runs against two, whatever the scores', () => {
    expect(pBelow([0, 0], [100, 100])).toBeCloseTo(1 / 6, 12);
  });

  it("falls back to Welch's t past the exact test's limit, and still ranks the groups", () => {
    const low = Array.from({ length: 15 }, (_, i) => 10 + (i % 5));
    const high = Array.from({ length: 15 }, (_, i) => 20 + (i % 5));
    expect(pBelow(low, high)).toBeLessThan(1e-6);
    expect(pBelow(high, low)).toBeGreaterThan(1 - 1e-6);
    const same = pBelow(low, [...low].reverse());
    expect(same).toBeCloseTo(0.5, 6);
  });

  it('is 1 for an empty group', () => {
    expect(pBelow([], [1, 2])).toBe(1);
    expect(pBelow([1], [])).toBe(1);
  });
});
