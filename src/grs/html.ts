import { layoutOf, outputOfReview } from '../documents/output/layout';
import { escapeHtml, mergeReviewHtml, REVIEW_CSS } from '../documents/output/review-html';
import { describeFork } from '../fork/describe';
import { describeSteer } from '../steering/describe';
import { bestPath, formatScore, thoughtsById, volume } from './analysis';
import type { Grs } from './types';

/** What the GRS page shows besides the GRS: its title, the best thought, and answers as people read them. */
export interface HtmlOptions {
  title: string;
  bestId?: string;
  /** A thought's answer as a person reads it (the task's `answerText`). */
  answers?: Record<string, string>;
  higherIsBetter?: boolean;
}

/**
 * A self-contained page (no network, no libraries) that draws a GRS: thoughts as nodes in layers
 * by depth, parent links as edges, the best thought and its ancestry highlighted, scores on the
 * nodes, and a thought's full content in a side panel on click. The thoughts of each part a forEach
 * grew are drawn in columns of their own, inside a box named for the part (`F[0]`), nested parts
 * inside their part's box. A run whose answer the engine reviewed (a document merge) shows the
 * merged text first, each clause beside its sources, then the disagreements, then the graph.
 */
export function toHtml(grs: Grs, o: HtmlOptions): string {
  const index = thoughtsById(grs);
  const best = bestPath(grs, o.bestId);
  const data = {
    title: o.title,
    bestId: o.bestId ?? null,
    totals: grs.totals,
    budgetExhausted: grs.budgetExhausted,
    // What people asked of the run while it ran, in words (decision 100).
    steering: (grs.steering ?? []).map((s) => `${new Date(s.at).toISOString().slice(11, 19)} ${describeSteer(s)}`),
    // A fork says whose, and what it took from its parent without a call (decision 102).
    fork: describeFork(grs) ?? null,
    operations: grs.operations,
    calls: grs.calls,
    thoughts: grs.thoughts.map((t) => ({
      ...t,
      volume: volume(grs, t.id, index),
      onBestPath: best.has(t.id),
      answer: o.answers?.[t.id] ?? null,
      // Rounded here, once, so the node, the summary and the details panel print the same score.
      scoreText: t.score === undefined ? null : formatScore(t.score),
    })),
  };
  const review = reviewSection(grs, o);
  // Escaping "<" keeps any text inside thoughts from closing the script element.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(o.title)}</title>
<style>
  /* Header, then (document merges) the review, then the graph and its panel. Only the graph's row
     takes the free height: auto rows of a 100vh grid share it, which gave the header an empty band. */
  body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #1d2330; }
  body.graph-only { display: flex; flex-direction: column; height: 100vh; }
  header { flex: none; display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 18px; padding: 8px 14px; background: #1d2330; color: #fff; }
  header a { color: #ffd77a; }
  #run { display: grid; grid-template-columns: minmax(0, 1fr) 380px; grid-template-rows: minmax(0, 1fr); }
  body.graph-only #run { flex: 1 1 auto; min-height: 0; }
  body.with-review #run { height: 100vh; border-top: 1px solid #d8dce6; }
  #review { padding: 14px 24px 28px; max-width: 80rem; }
  #review > h2, #run-title { font: 600 16px/1.3 system-ui, sans-serif; margin: 8px 0 10px; }
  #run-title { padding: 14px 24px 0; }
  #review .note { color: #5b6475; margin: 0 0 10px; }
  #review a[data-thought] { color: #2458c6; cursor: pointer; }
  #graph { overflow: auto; background: #f7f8fb; }
  #panel { overflow: auto; padding: 10px 14px; border-left: 1px solid #d8dce6; background: #fff; }
  #panel pre { white-space: pre-wrap; word-break: break-word; background: #f4f6fa; padding: 8px; border-radius: 4px; }
  .node rect { fill: #fff; stroke: #8a94a8; rx: 6; }
  .node.invalid rect { fill: #fbe3e3; stroke: #c55; }
  .node.best rect { fill: #ffe9a8; stroke: #c47a12; stroke-width: 2; }
  .node.selected rect { stroke: #2458c6; stroke-width: 3; }
  .node text { font-size: 10px; pointer-events: none; }
  .node { cursor: pointer; }
  .edge { stroke: #b4bccb; fill: none; }
  .part rect { fill: #eef2fb; fill-opacity: 0.55; stroke: #7d8fbf; stroke-dasharray: 5 3; rx: 8; }
  .part text { font-size: 11px; fill: #3c4f86; font-weight: 600; }
  tr.grown td:first-child { padding-left: 16px; }
  .edge.best { stroke: #c47a12; stroke-width: 2; }
  #panel table { border-collapse: collapse; font-size: 12px; } #panel td, #panel th { padding: 2px 6px; border-bottom: 1px solid #eee; text-align: left; }
  @media print {
    body.graph-only { display: block; height: auto; }
    #run, body.with-review #run { display: block; height: auto; }
    #graph, #panel { overflow: visible; border: none; }
  }
${review ? REVIEW_CSS : ''}
</style>
</head>
<body class="${review ? 'with-review' : 'graph-only'}">
<header id="summary"></header>
${review ? `${review}\n<h2 id="run-title">Graph of thoughts</h2>\n` : ''}<main id="run">
<div id="graph"><svg id="svg" xmlns="http://www.w3.org/2000/svg"></svg></div>
<div id="panel"><div id="details"><p>Click a thought to see its full content.</p></div><div id="ops"></div></div>
</main>
<script id="grs-data" type="application/json">${json}</script>
<script>
(() => {
  const data = JSON.parse(document.getElementById('grs-data').textContent);
  const byId = new Map(data.thoughts.map((t) => [t.id, t]));
  const depth = new Map();
  const depthOf = (t) => {
    if (depth.has(t.id)) return depth.get(t.id);
    const d = t.parents.length ? 1 + Math.max(...t.parents.map((p) => (byId.has(p) ? depthOf(byId.get(p)) : 0))) : 0;
    depth.set(t.id, d);
    return d;
  };
  const layers = [];
  for (const t of data.thoughts) (layers[depthOf(t)] ||= []).push(t);
  const W = 124, H = 46, GX = 14, GY = 56, PAD = 20, BAND_GAP = 24;
  // The part a thought belongs to ('' outside every forEach): its operation's part, or, for a thought
  // a split made, the part it starts. Parts nest: 'F[0].G[1]' lies inside 'F[0]'.
  const ops = new Map(data.operations.map((o, i) => [o.id, { ...o, index: i }]));
  const partOfOp = (o) => (o && o.grownBy !== undefined ? o.grownBy + '[' + o.part + ']' : '');
  const made = new Map();
  for (const o of data.operations) (o.parts || []).forEach((p, i) => p.thoughts.forEach((id) => { if (byId.get(id)?.operationId === o.id) made.set(id, o.id + '[' + i + ']'); }));
  const partOf = (t) => made.get(t.id) ?? partOfOp(ops.get(t.operationId));
  const forEachOf = (key) => key.slice(0, key.lastIndexOf('['));
  const parentOf = (key) => partOfOp(ops.get(forEachOf(key)));
  const order = (key) => (key ? [...order(parentOf(key)), ops.get(forEachOf(key))?.index ?? 0, Number(key.slice(key.lastIndexOf('[') + 1, -1))] : []);
  const keys = new Set(['']);
  for (const t of data.thoughts) for (let k = partOf(t); k; k = parentOf(k)) keys.add(k);
  const before = (a, b) => { const x = order(a), y = order(b); for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i]; return x.length - y.length; };
  const bands = [...keys].sort(before);
  // Each part gets columns of its own, as wide as its widest layer, so its box overlaps no other.
  const widthOf = new Map(bands.map((k) => [k, Math.max(0, ...layers.map((l) => (l || []).filter((t) => partOf(t) === k).length))]));
  const bandX = new Map();
  let cursor = PAD;
  for (const k of bands) { if (cursor > PAD && widthOf.get(k)) cursor += BAND_GAP; bandX.set(k, cursor); cursor += widthOf.get(k) * (W + GX); }
  const pos = new Map();
  layers.forEach((layer, d) => {
    const used = new Map();
    (layer || []).forEach((t) => { const k = partOf(t), i = used.get(k) ?? 0; used.set(k, i + 1); pos.set(t.id, { x: bandX.get(k) + i * (W + GX), y: PAD + d * (H + GY) }); });
  });
  const svg = document.getElementById('svg');
  const width = cursor + PAD;
  const height = PAD * 2 + layers.length * (H + GY);
  svg.setAttribute('width', width); svg.setAttribute('height', height);
  const NS = 'http://www.w3.org/2000/svg';
  const el = (name, attrs, parent) => { const e = document.createElementNS(NS, name); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); parent.appendChild(e); return e; };
  // A box per part, behind the thoughts: around its own thoughts and those of the parts nested in it.
  const inside = (k, key) => k === key || k.startsWith(key + '.');
  const depthOfKey = (key) => (key.match(/\\[/g) || []).length;
  const deepest = Math.max(0, ...bands.map(depthOfKey));
  for (const key of bands.filter((k) => k)) {
    const mine = data.thoughts.filter((t) => inside(partOf(t), key)).map((t) => pos.get(t.id));
    if (!mine.length) continue;
    const m = 4 + 5 * (deepest - depthOfKey(key));
    const x0 = Math.min(...mine.map((p) => p.x)) - m, x1 = Math.max(...mine.map((p) => p.x)) + W + m;
    const y0 = Math.min(...mine.map((p) => p.y)) - m - 14, y1 = Math.max(...mine.map((p) => p.y)) + H + m;
    const g = el('g', { class: 'part', 'data-part': key }, svg);
    el('rect', { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, g);
    el('text', { x: x0 + 6, y: y0 + 12 }, g).textContent = key;
  }
  for (const t of data.thoughts) for (const p of t.parents) {
    const a = pos.get(p), b = pos.get(t.id); if (!a || !b) continue;
    const best = t.onBestPath && byId.get(p)?.onBestPath;
    el('path', { class: 'edge' + (best ? ' best' : ''), d: 'M' + (a.x + W / 2) + ',' + (a.y + H) + ' C' + (a.x + W / 2) + ',' + (a.y + H + GY / 2) + ' ' + (b.x + W / 2) + ',' + (b.y - GY / 2) + ' ' + (b.x + W / 2) + ',' + b.y }, svg);
  }
  let selected = null;
  for (const t of data.thoughts) {
    const p = pos.get(t.id);
    const g = el('g', { class: 'node' + (t.valid ? '' : ' invalid') + (t.onBestPath ? ' best' : ''), transform: 'translate(' + p.x + ',' + p.y + ')', 'data-id': t.id }, svg);
    el('rect', { width: W, height: H }, g);
    el('text', { x: 6, y: 14 }, g).textContent = t.id;
    el('text', { x: 6, y: 28 }, g).textContent = t.scoreText === null ? 'unscored' : 'score ' + t.scoreText;
    el('text', { x: 6, y: 40 }, g).textContent = (t.solved ? 'solved · ' : '') + (t.valid ? 'volume ' + t.volume : 'invalid');
    g.addEventListener('click', () => select(t.id));
  }
  function select(id) {
    const g = svg.querySelector('g.node[data-id="' + CSS.escape(id) + '"]');
    if (!g) return;
    if (selected) selected.classList.remove('selected');
    selected = g; g.classList.add('selected'); show(byId.get(id));
  }
  // Links from the review to the thought it reviewed: select it and bring the graph into view.
  for (const a of document.querySelectorAll('a[data-thought]')) a.addEventListener('click', (e) => {
    e.preventDefault(); select(a.dataset.thought); document.getElementById('run').scrollIntoView();
    selected?.scrollIntoView({ block: 'center', inline: 'center' });
  });
  // Lists of plain values on one line: a 128-number list should not take 128 lines.
  const compact = (v) => JSON.stringify(v, null, 2).replace(/\\[\\s+([^\\[\\]{}]*?)\\s+\\]/g, (m, inner) => '[' + inner.replace(/\\s+/g, ' ') + ']');
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  function show(t) {
    const call = data.calls.find((c) => c.id === t.callId);
    document.getElementById('details').innerHTML =
      '<h3>' + esc(t.id) + '</h3>' +
      '<p>operation <b>' + esc(t.operationId) + '</b>' + (partOf(t) ? ' (part ' + esc(partOf(t)) + ', grown at run time)' : '') + ' · ' + (t.valid ? 'valid' : 'invalid: ' + esc(t.error || '')) + '<br>' +
      'score ' + (t.scoreText === null ? '—' : '<span title="' + esc(t.score) + '">' + esc(t.scoreText) + '</span>') + (t.solved === undefined ? '' : ' · ' + (t.solved ? 'solved' : 'not solved')) + ' · volume ' + t.volume + '<br>' +
      'parents: ' + (t.parents.map(esc).join(', ') || '—') + '</p>' +
      (call ? '<p>LLM call ' + esc(call.id) + (call.reask ? ' (re-ask ' + call.reask + ': the answers before were unusable)' : '') + ': ' + call.usage.promptTokens + ' + ' + call.usage.completionTokens + (call.usage.estimated ? ' tokens (estimated)' : ' tokens') + ', $' + call.costUsd.toFixed(5) + ', ' + call.latencyMs + ' ms, attempt ' + call.attempt + '</p>' : '') +
      (t.answer !== null ? '<h4>Answer</h4><pre class="answer">' + esc(t.answer) + '</pre>' : '') +
      (t.said ? '<h4>What the model said</h4><pre class="answer">' + esc(t.said) + '</pre>' : '') +
      (t.reasoning ? '<h4>Reasoning</h4><pre class="answer">' + esc(t.reasoning) + '</pre>' : '') +
      '<h4>State</h4><pre>' + esc(compact(t.state)) + '</pre>';
  }
  const s = data.totals;
  const grown = data.operations.filter((o) => o.grownBy !== undefined);
  document.getElementById('summary').innerHTML = '<b>' + esc(data.title) + '</b>' +
    '<span>' + data.thoughts.length + ' thoughts</span><span>' + s.llmCalls + ' LLM calls</span><span>' + (s.promptTokens + s.completionTokens) + ' tokens</span><span>$' + s.costUsd.toFixed(4) + '</span>' +
    (data.bestId ? '<span>best: ' + esc(data.bestId) + ' (score ' + esc(byId.get(data.bestId)?.scoreText ?? '—') + ')</span>' : '') + (data.budgetExhausted ? '<span>budget exhausted</span>' : '') +
    data.steering.map((s) => '<span>steered: ' + esc(s) + '</span>').join('') +
    (data.fork ? '<span>' + esc(data.fork) + '</span>' : '') +
    (grown.length ? '<span>' + grown.length + ' operations grown at run time</span>' : '') +
    (document.getElementById('review') ? '<span><a href="#review">merged document</a> · <a href="#run-title">graph</a></span>' : '');
  // Grown operations are listed right after the forEach that grew them, part by part.
  const children = (id) => data.operations.filter((o) => o.grownBy === id);
  const listed = (o) => [o, ...children(o.id).flatMap(listed)];
  const row = (o) => '<tr class="' + (o.grownBy !== undefined ? 'grown' : '') + '" data-op="' + esc(o.id) + '"><td>' + esc(o.id) + '</td><td>' + esc(o.type) + (o.parts ? ' (' + o.parts.length + ' parts)' : '') + '</td><td>' + esc(o.status) + '</td><td>' + (o.endedAt !== undefined && o.startedAt !== undefined ? o.endedAt - o.startedAt : '') + '</td><td>' + o.outputThoughts.length + '</td></tr>';
  document.getElementById('ops').innerHTML = '<h4>Operations</h4><table><tr><th>id</th><th>type</th><th>status</th><th>ms</th><th>out</th></tr>' +
    data.operations.filter((o) => o.grownBy === undefined).flatMap(listed).map(row).join('') + '</table>';
})();
</script>
</body>
</html>
`;
}

/**
 * The review of a document merge, when the GRS has one: the merged text (with a person's decisions
 * applied, if any) beside its sources, and the disagreements. '' for other runs.
 */
function reviewSection(grs: Grs, o: HtmlOptions): string {
  const record = grs.review;
  if (!record) return '';
  const answer = record.decidedText ?? o.answers?.[record.thought];
  const thought = `<a href="#run" data-thought="${escapeHtml(record.thought)}">${escapeHtml(record.thought)}</a>`;
  const notes = [
    record.decisions ? `A person decided ${record.decisions.length} of the disagreements; the text below has their decisions applied.` : '',
    record.decisionsTimedOut
      ? 'The run waited for decisions on the disagreements; none came in time, so the merge stands as the model wrote it.'
      : '',
  ].filter(Boolean);
  const note = notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('\n');
  const output = outputOfReview(record, answer ?? '');
  const layout = layoutOf(output);
  // Without the answer's text (a GRS exported without answers) no clause can be placed; the counts and disagreements still show.
  const body = mergeReviewHtml(output, answer === undefined ? { ...layout, blocks: [] } : layout);
  return `<section id="review">\n<h2>Merged document — the run's answer (thought ${thought}), reviewed against its sources</h2>\n${note}\n${body}\n</section>`;
}
