import type { TopLevelSpec } from 'vega-lite';
import { isCompleted, type StudyResult } from './results';

/**
 * A study's figure: every completed trial as a point of mean cost per sample (x) against mean score
 * (y) with its confidence interval, feasible and infeasible apart, the Pareto front joined by a
 * line (ringed), the paper's configuration as a diamond, the front, the baseline and the best
 * feasible trial named, and the cost limit as a dashed rule.
 * Rendered by `renderFigure` (src/eval/figure.ts) to SVG and PNG.
 */
export function paretoSpec(result: StudyResult, title: string): TopLevelSpec {
  const front = new Set(result.pareto);
  const points = result.trials.filter(isCompleted).map((t) => ({
    trial: t.index,
    // Only the points a reader looks for are named: the rest would pile up where many trials score alike.
    label: t.baseline ? `${t.index} (paper)` : t.index === result.best ? `${t.index} (best)` : front.has(t.index) ? String(t.index) : '',
    role: t.baseline ? "the paper's configuration" : 'proposed',
    cost: t.cost.mean,
    score: t.score.mean,
    low: t.score.low,
    high: t.score.high,
    kind: t.feasible ? 'feasible' : 'over the cost limit',
    front: front.has(t.index),
  }));
  const scoreTitle = result.higherIsBetter ? 'mean score (higher is better)' : 'mean score: errors (lower is better)';
  // Padding keeps the points off the axes: many trials share the best score, often 0.
  const x = { field: 'cost', type: 'quantitative' as const, title: 'mean cost per sample (USD)', scale: { zero: false, padding: 14 } };
  const y = { field: 'score', type: 'quantitative' as const, title: scoreTitle, scale: { zero: false, padding: 14 } };
  const color = {
    field: 'kind',
    type: 'nominal' as const,
    title: null,
    scale: { domain: ['feasible', 'over the cost limit'], range: ['#3a6ea5', '#c0504d'] },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, fontSize: 15 },
    config: { font: 'DejaVu Sans', view: { stroke: '#ccc' }, legend: { labelLimit: 320 } },
    width: 520,
    height: 340,
    data: { values: points },
    layer: [
      {
        mark: { type: 'rule', opacity: 0.45 },
        encoding: { x, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' }, color },
      },
      {
        transform: [{ filter: 'datum.front' }, { window: [{ op: 'row_number', as: 'order' }], sort: [{ field: 'cost' }] }],
        mark: { type: 'line', color: '#888', strokeDash: [4, 3], interpolate: 'step-after' },
        encoding: { x, y, order: { field: 'order' } },
      },
      {
        mark: { type: 'point', filled: true, size: 90 },
        encoding: {
          x,
          y,
          color,
          shape: {
            field: 'role',
            type: 'nominal',
            title: null,
            scale: { domain: ["the paper's configuration", 'proposed'], range: ['diamond', 'circle'] },
          },
        },
      },
      {
        transform: [{ filter: 'datum.front' }],
        mark: { type: 'point', size: 220, color: '#333', strokeWidth: 1.2 },
        encoding: { x, y },
      },
      // The paper's label goes below its point, the others above: the best is often just beside it.
      {
        transform: [{ filter: "datum.role !== 'proposed'" }],
        mark: { type: 'text', dx: 9, dy: 12, align: 'left', fontSize: 10 },
        encoding: { x, y, text: { field: 'label' } },
      },
      {
        transform: [{ filter: "datum.role === 'proposed'" }],
        mark: { type: 'text', dx: 9, dy: -9, align: 'left', fontSize: 10 },
        encoding: { x, y, text: { field: 'label' } },
      },
      ...(result.maxCostPerSample !== undefined
        ? [
            {
              data: { values: [{ limit: result.maxCostPerSample }] },
              mark: { type: 'rule' as const, color: '#c0504d', strokeDash: [6, 4] },
              encoding: { x: { field: 'limit', type: 'quantitative' as const } },
            },
          ]
        : []),
    ],
  } as TopLevelSpec;
}
