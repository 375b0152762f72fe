import { bestPath, thoughtsById, volume } from './analysis';
import type { Grs, Thought } from './types';

/**
 * Text exports of a GRS: thoughts are nodes (labelled with id, score and validity), parent links
 * are edges, and the best thought with its ancestry is highlighted.
 */

const label = (t: Thought) =>
  `${t.id}${t.score === undefined ? '' : `\\nscore ${round(t.score)}`}${t.valid ? '' : '\\ninvalid'}${t.solved ? '\\nsolved' : ''}`;
const round = (n: number) => Math.round(n * 100) / 100;

export function toDot(grs: Grs, bestId?: string): string {
  const best = bestPath(grs, bestId);
  const lines = [`digraph GRS {`, `  rankdir=TB; node [shape=box, style="rounded,filled", fillcolor="#f4f6fa", fontname="Helvetica"];`];
  for (const t of grs.thoughts) {
    const attrs = [`label="${label(t).replace(/"/g, '\\"')}"`];
    if (best.has(t.id)) attrs.push('fillcolor="#ffe08a"', 'penwidth=2');
    else if (!t.valid) attrs.push('fillcolor="#f6c6c6"');
    lines.push(`  "${t.id}" [${attrs.join(', ')}];`);
  }
  for (const t of grs.thoughts) {
    for (const p of t.parents) lines.push(`  "${p}" -> "${t.id}"${best.has(t.id) && best.has(p) ? ' [penwidth=2, color="#c47a12"]' : ''};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

export function toMermaid(grs: Grs, bestId?: string): string {
  const best = bestPath(grs, bestId);
  const node = (id: string) => `t_${id.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const lines = ['flowchart TD'];
  for (const t of grs.thoughts) lines.push(`  ${node(t.id)}["${label(t).replace(/\\n/g, '<br/>').replace(/"/g, '#quot;')}"]`);
  for (const t of grs.thoughts) for (const p of t.parents) lines.push(`  ${node(p)} --> ${node(t.id)}`);
  lines.push('  classDef best fill:#ffe08a,stroke:#c47a12,stroke-width:2px', '  classDef invalid fill:#f6c6c6');
  const bestNodes = grs.thoughts.filter((t) => best.has(t.id)).map((t) => node(t.id));
  const invalid = grs.thoughts.filter((t) => !t.valid && !best.has(t.id)).map((t) => node(t.id));
  if (bestNodes.length) lines.push(`  class ${bestNodes.join(',')} best`);
  if (invalid.length) lines.push(`  class ${invalid.join(',')} invalid`);
  return `${lines.join('\n')}\n`;
}

/** The GRS as JSON with each thought's volume added (the paper's measure of how much reasoning fed it). */
export function toJson(grs: Grs, bestId?: string): string {
  const index = thoughtsById(grs);
  const thoughts = grs.thoughts.map((t) => ({ ...t, volume: volume(grs, t.id, index) }));
  return `${JSON.stringify({ ...grs, bestThought: bestId ?? null, thoughts }, null, 2)}\n`;
}
