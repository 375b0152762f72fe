import { hashSeed, type Random, seededRandom } from '../util/random';
import { type Config, configKey, type ParamSpec, type ParamValue, type SearchSpace, valuesOf } from './space';

/**
 * The study's search method: a small tree-structured Parzen estimator (TPE, Bergstra et al. 2011;
 * the method Framework of Thoughts runs through Optuna), for spaces of whole numbers and choices.
 *
 * - The first `startupTrials` configurations are drawn uniformly (after the baseline, which the
 *   study evaluates first).
 * - Then the trials so far are ranked: completed feasible trials by their mean score (best first),
 *   then infeasible ones by how far their cost exceeds the limit, failed trials last (as Optuna's
 *   constrained TPE ranks them). The best `gamma` share (at least one) is "good", the rest "bad".
 * - Per parameter (univariate, like Optuna's default), a Parzen density over the parameter's values
 *   is fitted to the good trials (l) and to the bad ones (g): a discrete Gaussian kernel around each
 *   observed whole number, counts for choices, each mixed with one uniform prior observation.
 * - `candidates` configurations are drawn from l and the one with the highest l/g (summed logs over
 *   the parameters) is proposed, preferring configurations not tried yet.
 *
 * Pure and deterministic: the draws come from a PRNG seeded by (seed, trial index), never from
 * `Math.random` or a clock, so the study workflow proposes the same configuration on replay and a
 * study rerun with the same seed and the same results proposes the same sequence.
 */

/** What the sampler knows of a finished trial. */
export interface TrialOutcome {
  config: Config;
  /** The trial's mean score; undefined when it failed. */
  score?: number;
  feasible: boolean;
  /** Mean cost per sample above the limit (0 when feasible). */
  costExcess: number;
}

/** The sampler's settings. */
export interface SamplerOptions {
  seed: number;
  higherIsBetter: boolean;
  /** Uniform draws before the densities are used. */
  startupTrials: number;
  /** The share of trials that counts as good. */
  gamma: number;
  /** Configurations drawn from l per proposal. */
  candidates: number;
}

/** Startup: a quarter of the trials, between 3 and 10; gamma 0.25; 24 candidates (Optuna's default count). */
export function defaultSamplerOptions(o: { seed: number; higherIsBetter: boolean; trials: number }): SamplerOptions {
  return {
    seed: o.seed,
    higherIsBetter: o.higherIsBetter,
    startupTrials: Math.min(10, Math.max(3, Math.round(o.trials / 4))),
    gamma: 0.25,
    candidates: 24,
  };
}

/** The configuration to evaluate as trial `index`, given the trials done so far. */
export function suggest(space: SearchSpace, done: readonly TrialOutcome[], index: number, o: SamplerOptions): Config {
  const random = seededRandom(hashSeed('tune', o.seed, index));
  const tried = new Set(done.map((t) => configKey(space, t.config)));
  const names = Object.keys(space);
  if (names.length === 0) return {};
  const ranked = rank(done, o.higherIsBetter);
  if (done.length < o.startupTrials || !ranked.some((t) => t.score !== undefined)) {
    let config = uniform(space, random);
    for (let attempt = 0; attempt < 32 && tried.has(configKey(space, config)); attempt++) config = uniform(space, random);
    return config;
  }
  const nGood = Math.max(1, Math.ceil(o.gamma * ranked.length));
  const good = ranked.slice(0, nGood).map((t) => t.config);
  const bad = ranked.slice(nGood).map((t) => t.config);
  const densities = Object.fromEntries(
    names.map((name) => {
      const spec = space[name]!;
      const values = valuesOf(spec);
      return [name, { values, l: parzen(spec, values, good, name), g: parzen(spec, values, bad, name) }];
    }),
  );
  let best: { config: Config; gain: number; fresh: boolean } | undefined;
  for (let c = 0; c < o.candidates; c++) {
    const config: Config = {};
    let gain = 0;
    for (const name of names) {
      const { values, l, g } = densities[name]!;
      const i = draw(l, random);
      config[name] = values[i]!;
      gain += Math.log(l[i]!) - Math.log(g[i]!);
    }
    const fresh = !tried.has(configKey(space, config));
    if (!best || (fresh && !best.fresh) || (fresh === best.fresh && gain > best.gain)) best = { config, gain, fresh };
  }
  return best!.config;
}

/** Best first: feasible by score, then infeasible by cost excess, then failed. */
function rank(done: readonly TrialOutcome[], higherIsBetter: boolean): TrialOutcome[] {
  const tier = (t: TrialOutcome) => (t.score === undefined ? 2 : t.feasible ? 0 : 1);
  return [...done]
    .map((t, i) => ({ t, i }))
    .sort((a, b) => {
      const byTier = tier(a.t) - tier(b.t);
      if (byTier) return byTier;
      if (tier(a.t) === 0) {
        const d = higherIsBetter ? b.t.score! - a.t.score! : a.t.score! - b.t.score!;
        if (d) return d;
      } else if (tier(a.t) === 1 && a.t.costExcess !== b.t.costExcess) return a.t.costExcess - b.t.costExcess;
      return a.i - b.i; // stable: earlier trials first
    })
    .map(({ t }) => t);
}

/** A density over a parameter's values: kernels around the observed values plus one uniform prior observation. */
function parzen(spec: ParamSpec, values: ParamValue[], observed: readonly Config[], name: string): number[] {
  const weights = values.map(() => 1 / values.length); // the prior
  const seen = observed.map((c) => c[name] ?? spec.default);
  if (spec.kind === 'int') {
    // Bandwidth shrinks as observations accumulate, never below one step.
    const bandwidth = Math.max(1, (spec.max - spec.min) / (1 + seen.length));
    for (const x of seen) {
      const kernel = values.map((v) => Math.exp(-0.5 * (((v as number) - (x as number)) / bandwidth) ** 2));
      const total = kernel.reduce((a, b) => a + b, 0);
      kernel.forEach((k, i) => {
        weights[i]! += k / total;
      });
    }
  } else {
    for (const x of seen) {
      const i = values.indexOf(x);
      if (i >= 0) weights[i]! += 1;
    }
  }
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

function draw(probabilities: readonly number[], random: Random): number {
  let u = random();
  for (let i = 0; i < probabilities.length; i++) {
    u -= probabilities[i]!;
    if (u < 0) return i;
  }
  return probabilities.length - 1;
}

function uniform(space: SearchSpace, random: Random): Config {
  return Object.fromEntries(
    Object.entries(space).map(([name, spec]) => {
      const values = valuesOf(spec);
      return [name, values[Math.floor(random() * values.length)]!];
    }),
  );
}
