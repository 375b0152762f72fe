import {
  keptNote,
  type LaidOutBlock,
  type Layout,
  type MergedOutput,
  repeatedNote,
  segmentsOf,
  sourceLabel,
  UNSUPPORTED_MARK,
} from './layout';

/**
 * The merged text as HTML, each block beside its sources (a side column), unsupported sentences
 * marked, and the disagreements as a table: shared by the `.html` output and the run's GRS page
 * (`got inspect --format html`) so a reviewer sees the same thing in both. Everything from the run
 * is escaped. Pure.
 */

/** Text made safe for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Styles of the fragments below; every rule is scoped to `.merge-review`, so a host page's own rules are untouched. */
export const REVIEW_CSS = `
.merge-review { --unsupported: #b3261e; --mark: #fff1a8; --muted: #5b6475; font: 15px/1.55 Georgia, 'Times New Roman', serif; color: #1d2330; }
.merge-review .counts { font: 13px/1.4 system-ui, sans-serif; color: var(--muted); margin: 0 0 14px; }
.merge-review > .counts { padding: 6px 10px; background: #f4f6fa; border-radius: 4px; }
.merge-review .counts b.warn { color: var(--unsupported); }
.merge-review .doc { display: grid; grid-template-columns: minmax(0, 1fr) minmax(12rem, 18rem); column-gap: 22px; }
.merge-review .doc.plain { grid-template-columns: minmax(0, 1fr); }
.merge-review .doc > .text { grid-column: 1; padding: 2px 10px; border-left: 3px solid transparent; }
.merge-review .doc > .sources { grid-column: 2; font: 12px/1.4 system-ui, sans-serif; color: var(--muted); padding: 4px 0; border-top: 1px dotted #d8dce6; }
.merge-review .doc > .sources:empty { border-top: none; }
.merge-review .doc > .sources ul { list-style: none; margin: 0; padding: 0; }
.merge-review .doc > .sources .sim { color: #8a94a8; }
.merge-review .doc > .text.unsupported { border-left-color: var(--unsupported); background: #fdf3f2; }
.merge-review .doc > .sources .flag { color: var(--unsupported); font-weight: 600; margin: 2px 0 0; }
.merge-review mark.unsupported { background: var(--mark); text-decoration: underline wavy var(--unsupported); text-underline-offset: 3px; }
.merge-review .text h1, .merge-review .text h2, .merge-review .text h3 { font-family: system-ui, sans-serif; margin: 0.9em 0 0.2em; line-height: 1.25; }
.merge-review .text h1 { font-size: 1.5em; } .merge-review .text h2 { font-size: 1.2em; } .merge-review .text h3 { font-size: 1.05em; }
.merge-review .text p { margin: 0.35em 0; white-space: pre-line; }
.merge-review .text .num { font-weight: 600; margin-right: 0.4em; }
.merge-review .text.clause { padding-left: calc(10px + var(--depth, 0) * 1.2em); }
.merge-review h2.section { font: 600 1.2em/1.3 system-ui, sans-serif; margin: 1.6em 0 0.5em; }
.merge-review table.disagreements { border-collapse: collapse; width: 100%; font: 13px/1.4 system-ui, sans-serif; }
.merge-review table.disagreements th, .merge-review table.disagreements td { border: 1px solid #d8dce6; padding: 5px 8px; text-align: left; vertical-align: top; }
.merge-review table.disagreements th { background: #f1f3f8; }
.merge-review table.disagreements ul { margin: 0; padding-left: 1.1em; }
.merge-review table.disagreements .where, .merge-review table.disagreements .decided { color: var(--muted); }
.merge-review table.disagreements .dropped { color: var(--unsupported); }
@media print {
  .merge-review { font-size: 11pt; }
  .merge-review .doc { grid-template-columns: minmax(0, 1fr) 13rem; column-gap: 14px; }
  .merge-review .doc > .text, .merge-review .doc > .sources, .merge-review table.disagreements tr { break-inside: avoid; }
  .merge-review .text h1, .merge-review .text h2, .merge-review .text h3 { break-after: avoid; }
  .merge-review mark.unsupported { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`;

/** "14 of 15 clauses found in the sources; 1 without a source — check" as HTML, with the sources named. */
export function reviewCountsHtml(layout: Layout, sources: readonly string[]): string {
  const review = layout.review;
  if (!review) return '';
  const { clauses, supported, unsupported } = review.counts;
  const missing = unsupported ? `; <b class="warn">${unsupported} without a source — check</b>` : '';
  const named = sources.length ? ` · sources: ${sources.map((s, i) => `${i + 1}. ${escapeHtml(s)}`).join(', ')}` : '';
  const repeated = review.counts.repeated ? `<b class="warn">${escapeHtml(repeatedNote(review.counts))}</b>` : '';
  return `<p class="counts">${supported} of ${clauses} clauses found in the sources${missing}${repeated}${escapeHtml(keptNote(review))}${named}</p>`;
}

/**
 * The merged text, block by block: a heading, clause or paragraph in the first column, its sources
 * in the second; a block with an unsupported clause gets a red rule, the clause a marked background
 * and the side note "no source found — check".
 */
export function mergedDocumentHtml(o: MergedOutput, layout: Layout): string {
  const rows = layout.blocks.map((b, i) => blockHtml(o.merged, b, i, layout.review !== undefined)).join('\n');
  return `<div class="doc${layout.review ? '' : ' plain'}">\n${rows}\n</div>`;
}

function blockHtml(merged: string, b: LaidOutBlock, i: number, reviewed: boolean): string {
  const words = segmentsOf(merged, b)
    .map((s) => (s.unsupported ? `<mark class="unsupported">${escapeHtml(s.text)}</mark>` : escapeHtml(s.text)))
    .join('');
  const num = b.marker ? `<span class="num">${escapeHtml(b.marker)}</span>` : '';
  const body = b.kind === 'heading' ? `<h${b.level}>${num}${words}</h${b.level}>` : `<p>${num}${words}</p>`;
  const flagged = b.unsupported.length > 0;
  const cls = `text ${b.kind}${flagged ? ' unsupported' : ''}`;
  const depth = b.kind === 'clause' ? ` style="--depth: ${b.level - 1}"` : '';
  const text = `<div class="${cls}" id="block-${i}" data-block="${i}"${depth}>${body}</div>`;
  if (!reviewed) return text;
  const list = b.sources.length
    ? `<ul>${b.sources
        .map(
          (s) =>
            `<li>${escapeHtml(sourceLabel(s))} <span class="sim" title="how closely the source's words match the clause">${Math.round(s.similarity * 100)}% match</span></li>`,
        )
        .join('')}</ul>`
    : '';
  const flag = flagged ? `<p class="flag">${UNSUPPORTED_MARK}</p>` : '';
  return `${text}\n<aside class="sources" data-block="${i}" aria-label="sources of block ${i + 1}">${list}${flag}</aside>`;
}

/** The disagreements: each topic, each source's value and where it says so, and what the merge kept (or a person decided). */
export function disagreementsHtml(layout: Layout): string {
  const rows = layout.review?.disagreements ?? [];
  if (!layout.review) return '';
  if (rows.length === 0)
    return '<p class="counts">The sources agree on every term compared (durations, notice periods, amounts, dates, governing law, parties).</p>';
  const body = rows
    .map((d) => {
      const values = d.values
        .map(
          (v) =>
            `<li>${escapeHtml(v.name)}: ${escapeHtml(v.text)}${v.where ? ` <span class="where">(${escapeHtml(v.where)})</span>` : ''}</li>`,
        )
        .join('');
      const kept = d.kept.length ? d.kept.map(escapeHtml).join('; ') : '<span class="dropped">dropped by the merge</span>';
      const decided = d.decided ? `<br><span class="decided">${escapeHtml(d.decided)}</span>` : '';
      return `<tr data-disagreement="${escapeHtml(d.id)}"><td>${escapeHtml(d.topic)}</td><td><ul>${values}</ul></td><td>${kept}${decided}</td></tr>`;
    })
    .join('\n');
  return `<table class="disagreements">\n<thead><tr><th>Topic</th><th>What each source says</th><th>The merge kept</th></tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

/** The whole review fragment: counts, the merged text with its sources, and the disagreements (under an `<h2>`). */
export function mergeReviewHtml(o: MergedOutput, layout: Layout): string {
  const disagreements = layout.review ? `\n<h2 class="section">Disagreements</h2>\n${disagreementsHtml(layout)}` : '';
  return `<section class="merge-review">\n${reviewCountsHtml(layout, o.sources)}\n${mergedDocumentHtml(o, layout)}${disagreements}\n</section>`;
}
