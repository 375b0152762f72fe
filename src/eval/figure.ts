import { writeFileSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { EvalRow } from './results';

export interface FigureOptions {
  task: string;
  schemes: string[];
  higherIsBetter: boolean;
  /** Scores above this are drawn at it (the paper clamps errors at the problem size). */
  plotMax?: (size: number) => number;
}

/**
 * The paper's figures 5-8: per problem size, a box plot of the score of every scheme, with the
 * total cost of all its runs as a bar on a second axis beside it. Runs that cost nothing (a local
 * model) show their total tokens there instead: what they spent, in the unit they spent it.
 */
export function figureSpec(rows: EvalRow[], o: FigureOptions): TopLevelSpec {
  const sizes = [...new Set(rows.map((r) => r.size))].sort((a, b) => a - b);
  const values = rows
    .filter((r) => (r.status === 'completed' || r.status === 'noAnswer') && r.score !== null)
    .map((r) => ({
      scheme: r.scheme,
      size: r.size,
      score: o.plotMax ? Math.min(r.score!, o.plotMax(r.size)) : r.score,
      cost: r.costUsd,
      kiloTokens: (r.promptTokens + r.completionTokens) / 1000,
    }));
  const free = values.length > 0 && values.every((v) => v.cost === 0);
  const spend = free
    ? { field: 'kiloTokens', what: 'total tokens', title: 'total tokens of the runs (thousands)' }
    : { field: 'cost', what: 'total cost', title: 'total cost of the runs (USD)' };
  const scoreTitle = o.higherIsBetter ? 'score (higher is better)' : 'score: errors (lower is better)';
  const x = { field: 'scheme', type: 'nominal' as const, sort: o.schemes, title: null, axis: { labelAngle: 0 } };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: `${o.task}: score per scheme and ${spend.what}`, fontSize: 15 },
    config: { font: 'DejaVu Sans', view: { stroke: '#ccc' } },
    data: { values },
    hconcat: sizes.map((size) => ({
      title: `size ${size} (${values.filter((v) => v.size === size).length / Math.max(1, o.schemes.length)} samples each)`,
      width: 60 * o.schemes.length,
      height: 260,
      transform: [{ filter: `datum.size === ${size}` }],
      layer: [
        {
          transform: [{ aggregate: [{ op: 'sum', field: spend.field, as: 'totalCost' }], groupby: ['scheme'] }],
          mark: { type: 'bar', color: '#f2a541', opacity: 0.35, width: { band: 0.8 } },
          encoding: {
            x,
            y: {
              field: 'totalCost',
              type: 'quantitative',
              title: spend.title,
              axis: { orient: 'right', titleColor: '#c47a12' },
            },
          },
        },
        {
          mark: { type: 'boxplot', extent: 1.5, size: 22, color: '#3a6ea5', median: { color: 'white' } },
          encoding: { x, y: { field: 'score', type: 'quantitative', title: scoreTitle, scale: { zero: true } } },
        },
      ],
      resolve: { scale: { y: 'independent' } },
    })),
  } as TopLevelSpec;
}

const FONTS = { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' };

/** Renders the figure to SVG and PNG files (no browser: vega renders to SVG, resvg rasterises it). */
export async function renderFigure(spec: TopLevelSpec, svgPath: string, pngPath: string): Promise<void> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = trimmed(await view.toSVG());
  view.finalize();
  writeFileSync(svgPath, svg);
  writeFileSync(pngPath, new Resvg(svg, { fitTo: { mode: 'zoom', value: 2 }, background: 'white', font: FONTS }).render().asPng());
}

/** The margin kept around what a figure draws. */
const MARGIN = 8;

/**
 * Vega's SVG cut to what it draws. Without a canvas vega estimates text widths, too wide for DejaVu
 * Sans, and sizes the figure by them: a long title left the right half of a one-size figure blank.
 * Resvg, with the fonts the PNG is drawn in, measures what is really drawn.
 */
export function trimmed(svg: string): string {
  const open = /^<svg([^>]*)>(<rect width="[\d.]+" height="[\d.]+" fill="white"\/>)?/.exec(svg);
  if (!open) return svg;
  const body = svg.slice(open[0].length);
  const box = new Resvg(`<svg${open[1]}>${body}`, { font: FONTS }).getBBox();
  if (!box || box.width <= 0 || box.height <= 0) return svg;
  const x = Math.floor(box.x - MARGIN);
  const y = Math.floor(box.y - MARGIN);
  const w = Math.ceil(box.width + 2 * MARGIN);
  const h = Math.ceil(box.height + 2 * MARGIN);
  const attrs = open[1]!
    .replace(/ width="[^"]*"/, ` width="${w}"`)
    .replace(/ height="[^"]*"/, ` height="${h}"`)
    .replace(/ viewBox="[^"]*"/, ` viewBox="${x} ${y} ${w} ${h}"`);
  return `<svg${attrs}><rect x="${x}" y="${y}" width="${w}" height="${h}" fill="white"/>${body}`;
}
