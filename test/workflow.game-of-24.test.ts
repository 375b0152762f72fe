import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { RunResult } from '../src/run/request';
import { generateGame24Problem } from '../src/tasks/game-of-24/dataset';
import { type Game24State, game24Task } from '../src/tasks/game-of-24/index';
import { type Harness, startHarness } from './support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const PUZZLES = [0, 1, 2, 3, 4, 5].map(generateGame24Problem);
const run = async (scheme: 'tot' | 'io', sample: number): Promise<RunResult> =>
  resultOf(
    await startRun(
      h.client,
      { task: 'game-of-24', problem: PUZZLES[sample]!, goo: game24Task.schemes[scheme]!({ size: 4 }), seed: sample },
      { taskQueue: h.taskQueue },
    ),
  );

describe('Game of 24 on real Temporal', () => {
  it('ToT grows one value step per proposal at run time and keeps the best of each level', async () => {
    const result = await run('tot', 0);
    const ops = result.grs.operations;
    for (const level of [1, 2, 3]) {
      const proposals = result.grs.thoughts.filter((t) => t.operationId === `propose-${level}` && t.valid);
      const grown = ops.filter((o) => o.grownBy === `value-${level}`);
      // One value step per valid proposal, each judging its own thought.
      expect(grown.length, `level ${level}`).toBe(proposals.length);
      expect(grown.every((o) => o.status === 'done')).toBe(true);
      const keep = ops.find((o) => o.id === `keep-${level}`)!;
      const kept = result.grs.thoughts.filter((t) => keep.outputThoughts.includes(t.id));
      expect(kept.length).toBe(Math.min(level === 3 ? 1 : 5, proposals.length));
      // Each level combines two numbers into one: four numbers become three, two, one.
      for (const k of kept) expect((k.state as Game24State).left).toHaveLength(4 - level);
    }
    // Every judged proposal cost 3 judge samples (one call of n = 3).
    const judgeCalls = result.grs.calls.filter((c) => c.operationId.includes('.value'));
    expect(judgeCalls.length).toBe(ops.filter((o) => o.grownBy?.startsWith('value-')).length);
    const best = result.best!;
    expect((best.state as Game24State).steps).toHaveLength(3);
    expect(best.solved).toBe(game24Task.groundTruth!(best.state, PUZZLES[0]!));
  });

  it('solves more puzzles with ToT than in one go (6 puzzles)', async () => {
    const solved = async (scheme: 'tot' | 'io') =>
      (await Promise.all(PUZZLES.map((_, i) => run(scheme, i)))).filter((r) => r.best?.solved === true).length;
    const [tot, io] = [await solved('tot'), await solved('io')];
    console.log(`[game-of-24] solved: tot ${tot}/6, io ${io}/6`);
    expect(tot).toBeGreaterThan(io);
    expect(tot).toBeGreaterThanOrEqual(4);
  });
});
