import type { ThoughtState } from '../../grs/types';
import type { LlmScorer } from '../task';
import { tagContent } from './parsers';
import type { LlmJudgeSpec, LocalScorerSpec } from './schema';
import { compileTemplate } from './templates';

/**
 * The built-in scorers of declared tasks: an LLM judge (a template, a rating scale, where the
 * ratings are in its answer and how they combine), and two local ones against a ground truth
 * field of the problem: exact match and the distance to a number.
 */

const NUMBER = /[-+]?(?:\d+(?:\.\d+)?|\.\d+)/g;

/** The last number in a text, if any; the scale of a rating written "7/10" or "7 out of 10" is not a rating. */
export function lastNumber(text: string): number | undefined {
  const all = text.replace(/(?:\/|\bout of)\s*\d+(?:\.\d+)?/gi, ' ').match(NUMBER);
  return all ? Number(all.at(-1)) : undefined;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** The harmonic mean; 0 as soon as one value is 0 or less (nothing of that quality). */
export function harmonicMean(xs: readonly number[]): number {
  if (xs.some((x) => x <= 0)) return 0;
  return xs.length / xs.reduce((s, x) => s + 1 / x, 0);
}

/** The judge's ratings in one answer, or undefined unless every rating is there and on the scale. */
export function readRatings(spec: Pick<LlmJudgeSpec, 'extract' | 'scale'>, text: string): number[] | undefined {
  const raw =
    spec.extract.kind === 'tags'
      ? spec.extract.tags.map((tag) => {
          const content = tagContent(text, tag);
          return content === undefined ? undefined : lastNumber(content);
        })
      : [lastNumber(text)];
  if (raw.some((r) => r === undefined || !Number.isFinite(r) || r < spec.scale.min || r > spec.scale.max)) return undefined;
  return raw as number[];
}

/** Each rating averaged over the samples, then the ratings combined into one score. */
export function combineSamples(combine: LlmJudgeSpec['combine'], samples: readonly (readonly number[])[]): number {
  const ratings = samples[0]!.map((_, i) => mean(samples.map((s) => s[i]!)));
  return combine === 'harmonicMean' ? harmonicMean(ratings) : mean(ratings);
}

export function compileJudge(spec: LlmJudgeSpec, higherIsBetter: boolean): LlmScorer<Record<string, unknown>> {
  const user = compileTemplate(spec.user);
  const system = spec.system === undefined ? undefined : compileTemplate(spec.system);
  const unparseableScore = spec.unparseableScore ?? (higherIsBetter ? spec.scale.min : spec.scale.max);
  return {
    buildPrompt(state, problem) {
      const values = { thoughts: [state], problem, scale: spec.scale };
      return [
        ...(system ? [{ role: 'system' as const, content: system.render(values) }] : []),
        { role: 'user', content: user.render(values) },
      ];
    },
    parseRatings: (text) => readRatings(spec, text),
    combine: (samples) => combineSamples(spec.combine, samples),
    unparseableScore,
  };
}

/** Texts compare trimmed with white space runs as one space (and case-folded when asked); anything else by canonical JSON. */
function normalise(value: unknown, ignoreCase: boolean): unknown {
  if (typeof value === 'string') {
    const s = value.trim().replace(/\s+/g, ' ');
    return ignoreCase ? s.toLowerCase() : s;
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, ignoreCase));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, normalise((value as Record<string, unknown>)[k], ignoreCase)]),
    );
  }
  return value;
}

/** A number from an answer: a number, a text that is one number, or a list of exactly one number. */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/.test(value)) return Number(value);
  if (Array.isArray(value) && value.length === 1) return asNumber(value[0]);
  return undefined;
}

export interface LocalScorer {
  score(state: ThoughtState, problem: Record<string, unknown>): number;
  groundTruth(state: ThoughtState, problem: Record<string, unknown>): boolean;
}

/**
 * exactMatch: `match`/`miss` scores follow the task's direction (1/0 when higher is better, 0/1
 * when lower is better). numeric: |answer − expected|, lower is better. A thought without a read
 * answer scores `noAnswerScore` and never solves the problem.
 */
export function compileLocalScorer(spec: LocalScorerSpec, higherIsBetter: boolean, noAnswerScore: number): LocalScorer {
  const has = (state: ThoughtState) => Object.hasOwn(state, 'output');
  if (spec.kind === 'exactMatch') {
    const matches = (state: ThoughtState, problem: Record<string, unknown>) =>
      has(state) &&
      JSON.stringify(normalise(state.output, spec.ignoreCase)) === JSON.stringify(normalise(problem[spec.expected], spec.ignoreCase));
    const [hit, miss] = higherIsBetter ? [1, 0] : [0, 1];
    return {
      score: (state, problem) => (!has(state) ? noAnswerScore : matches(state, problem) ? hit : miss),
      groundTruth: matches,
    };
  }
  const distance = (state: ThoughtState, problem: Record<string, unknown>) => {
    const answer = has(state) ? asNumber(state.output) : undefined;
    const expected = problem[spec.expected];
    return answer === undefined || typeof expected !== 'number' ? undefined : Math.abs(answer - expected);
  };
  return {
    score: (state, problem) => distance(state, problem) ?? noAnswerScore,
    groundTruth: (state, problem) => {
      const d = distance(state, problem);
      return d !== undefined && d <= spec.tolerance;
    },
  };
}
