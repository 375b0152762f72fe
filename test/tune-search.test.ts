import { describe, expect, it } from 'vitest';
import { bestTrial, paretoFront, type TrialResult } from '../src/tune/results';
import { defaultSamplerOptions, type SamplerOptions, suggest, type TrialOutcome } from '../src/tune/sampler';
import { type Config, choiceParam, configIssues, configKey, intParam, type SearchSpace } from '../src/tune/space';
import { mean, sampleStd, tCdf, tInterval, tQuantile } from '../src/tune/stats';
import { DEFAULT_STOP_RULE, nextBatchSize, stopDecision } from '../src/tune/stopping';

describe('Student-t intervals', () => {
  it.each([
    [1, 12.7062],
    [2, 4.3027],
    [4, 2.7764],
    [9, 2.2622],
    [30, 2.0423],
    [1000, 1.9623],
  ])('the 97.5%% quantile with %i degrees of freedom is %f', (df, want) => {
    expect(tQuantile(0.975, df)).toBeCloseTo(want, 3);
  });

  it('has a CDF that is a distribution function, symmetric about 0', () => {
    expect(tCdf(0, 5)).toBeCloseTo(0.5, 12);
    expect(tCdf(-2, 5) + tCdf(2, 5)).toBeCloseTo(1, 12);
    expect(tQuantile(0.05, 7)).toBeCloseTo(-tQuantile(0.95, 7), 9);
    expect(tQuantile(0.995, 3)).toBeCloseTo(5.8409, 3);
  });

  it('gives the mean ± t × s / √n, and no width for fewer than two values', () => {
    const values = [2, 4, 4, 4, 5, 5, 7, 9];
    const i = tInterval(values, 0.95);
    expect(i.mean).toBe(5);
    expect(sampleStd(values)).toBeCloseTo(2.13809, 4);
    expect(i.halfWidth).toBeCloseTo((tQuantile(0.975, 7) * sampleStd(values)) / Math.sqrt(8), 12);
    expect(i.low).toBeCloseTo(5 - i.halfWidth, 12);
    expect(tInterval([3], 0.95).halfWidth).toBe(Number.POSITIVE_INFINITY);
    expect(tInterval([3, 3, 3], 0.95).halfWidth).toBe(0);
    expect(mean([])).toBeNaN();
  });
});

describe('the stopping rule', () => {
  const rule = { ...DEFAULT_STOP_RULE, minSamples: 3, batch: 2, relHalfWidth: 0.1 };

  it('runs the first minSamples, then batches, never past the budget', () => {
    expect([0, 3, 5, 7, 9, 10].map((done) => nextBatchSize(done, 10, rule))).toEqual([3, 2, 2, 2, 1, 0]);
    expect(nextBatchSize(0, 2, rule)).toBe(2);
  });

  it('stops once the interval is narrow, not before minSamples', () => {
    expect(stopDecision({ scores: [5, 5], costs: [1, 1], budget: 10, rule }).stop).toBe(false);
    expect(stopDecision({ scores: [5, 5, 5], costs: [1, 1, 1], budget: 10, rule })).toMatchObject({ stop: true, reason: 'narrow' });
    // ±10% of 5 is 0.5: a spread of 1 over 3 samples is far wider.
    expect(stopDecision({ scores: [4, 5, 6], costs: [1, 1, 1], budget: 10, rule }).stop).toBe(false);
    const wide = Array.from({ length: 10 }, (_, i) => (i % 2 ? 4 : 6));
    expect(stopDecision({ scores: wide, costs: wide.map(() => 1), budget: 10, rule })).toMatchObject({ stop: true, reason: 'budget' });
  });

  it('uses the absolute width for means near zero, and stops a clearly too costly configuration early', () => {
    expect(stopDecision({ scores: [0, 1, 0], costs: [1, 1, 1], budget: 10, rule }).stop).toBe(false);
    expect(stopDecision({ scores: [0, 1, 0], costs: [1, 1, 1], budget: 10, rule: { ...rule, absHalfWidth: 2 } }).reason).toBe('narrow');
    const costly = { scores: [4, 8, 1], costs: [0.031, 0.03, 0.032], budget: 10, rule };
    expect(stopDecision({ ...costly, maxCostPerSample: 0.02 })).toMatchObject({ stop: true, reason: 'infeasible' });
    // Within reach of the limit: go on.
    expect(stopDecision({ ...costly, costs: [0.01, 0.03, 0.02], maxCostPerSample: 0.02 }).stop).toBe(false);
  });
});

const SPACE: SearchSpace = {
  x: intParam(0, 20, 10, 'x'),
  y: intParam(0, 20, 10, 'y'),
  mode: choiceParam(['a', 'b', 'c'], 'a', 'mode'),
};
/** A toy objective (lower is better) with its optimum at x = 16, y = 3, mode = c. */
const objective = (c: Config) => ((c.x as number) - 16) ** 2 + ((c.y as number) - 3) ** 2 + (c.mode === 'c' ? 0 : 5);

function study(trials: number, o: SamplerOptions, pick = suggest): { best: number; configs: Config[] } {
  const done: TrialOutcome[] = [];
  for (let i = 0; i < trials; i++) {
    const config = pick(SPACE, done, i, o);
    done.push({ config, score: objective(config), feasible: true, costExcess: 0 });
  }
  return { best: Math.min(...done.map((t) => t.score!)), configs: done.map((t) => t.config) };
}

describe('the TPE sampler', () => {
  const options = (seed: number) => defaultSamplerOptions({ seed, higherIsBetter: false, trials: 30 });

  it('proposes configurations inside the space, the same ones for the same seed and results', () => {
    const a = study(30, options(1));
    const b = study(30, options(1));
    expect(a.configs).toEqual(b.configs);
    for (const c of a.configs) expect(configIssues(SPACE, c)).toEqual([]);
    expect(study(30, options(2)).configs).not.toEqual(a.configs);
  });

  it('prefers configurations not tried yet', () => {
    const { configs } = study(30, options(3));
    expect(new Set(configs.map((c) => configKey(SPACE, c))).size).toBeGreaterThanOrEqual(28);
  });

  it('finds better configurations than uniform draws with the same number of trials (10 seeds)', () => {
    const uniform: typeof suggest = (space, done, index, o) => suggest(space, done, index, { ...o, startupTrials: 1000 });
    const seeds = Array.from({ length: 10 }, (_, i) => i + 100);
    const tpe = seeds.map((s) => study(30, options(s)).best);
    const random = seeds.map((s) => study(30, options(s), uniform).best);
    expect(mean(tpe)).toBeLessThan(mean(random));
    expect(tpe.filter((t, i) => t <= random[i]!).length).toBeGreaterThanOrEqual(7);
  });

  it('ranks infeasible trials below feasible ones: proposals move from the better but costly region to the limit', () => {
    // The score rewards a large x, but every trial with x > 10 costs too much.
    const run = (constrained: boolean) => {
      const done: TrialOutcome[] = [];
      for (let i = 0; i < 40; i++) {
        const config = suggest(SPACE, done, i, options(9));
        const x = config.x as number;
        const feasible = !constrained || x <= 10;
        done.push({ config, score: -x, feasible, costExcess: feasible ? 0 : x - 10 });
      }
      return done;
    };
    const lateX = (done: TrialOutcome[]) => mean(done.slice(-10).map((t) => t.config.x as number));
    const constrained = run(true);
    expect(lateX(constrained)).toBeLessThan(lateX(run(false)) - 4);
    expect(Math.abs(lateX(constrained) - 10)).toBeLessThan(3);
    expect(Math.max(...constrained.filter((t) => t.feasible).map((t) => t.config.x as number))).toBe(10);
  });
});

const trial = (index: number, score: number, cost: number, o: Partial<TrialResult> = {}): TrialResult => ({
  index,
  config: {},
  baseline: index === 0,
  workflowId: `t${index}`,
  status: 'completed',
  samples: [],
  score: { mean: score, halfWidth: 0, low: score, high: score },
  cost: { mean: cost, halfWidth: 0, low: cost, high: cost },
  feasible: true,
  stoppedBecause: 'narrow',
  llmCalls: 0,
  cachedCalls: 0,
  promptTokens: 0,
  completionTokens: 0,
  costUsd: 0,
  paidUsd: 0,
  solvedShare: 0,
  ...o,
});

describe('comparing trials', () => {
  const trials = [
    trial(0, 3, 0.02),
    trial(1, 2, 0.03),
    trial(2, 3, 0.015),
    trial(3, 1, 0.06, { feasible: false }),
    trial(4, 2, 0.03),
    trial(5, 5, 0.01),
    trial(6, 4, 0.05),
    { ...trial(7, 0, 0), status: 'failed' as const, feasible: false, score: undefined, cost: undefined },
  ];

  it('the best is the best feasible mean score, ties to the cheaper then the earlier', () => {
    expect(bestTrial(trials, false)).toBe(1);
    expect(bestTrial(trials, true)).toBe(5);
    expect(bestTrial([trial(0, 2, 0.02), trial(1, 2, 0.01)], false)).toBe(1);
    expect(bestTrial([trial(0, 1, 0.02, { feasible: false })], false)).toBeUndefined();
  });

  it('the Pareto front holds the completed trials nothing beats on both score and cost, cheapest first', () => {
    // Lower is better: 5 is cheapest; 2 beats 0 (same score, cheaper); 1 and 4 tie (the earlier stays); 3 is best but costly.
    expect(paretoFront(trials, false)).toEqual([5, 2, 1, 3]);
    expect(paretoFront(trials, true)).toEqual([5]);
  });
});
