import { layoutOf, type MergedOutput } from './layout';
import { escapeHtml, mergeReviewHtml, REVIEW_CSS } from './review-html';

/**
 * The `.html` output: one standalone page (no scripts, no network) that reads and prints well: the
 * merged text with each block's sources in a side column, unsupported clauses flagged, and the
 * disagreements table.
 */
export function toHtmlDocument(o: MergedOutput): string {
  const layout = layoutOf(o);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="durable-got">
<title>${escapeHtml(layout.title)}</title>
<style>
  body { margin: 0; background: #f4f5f8; }
  main { max-width: 72rem; margin: 0 auto; padding: 28px 36px 48px; background: #fff; min-height: 100vh; box-sizing: border-box; }
  @media print { body { background: #fff; } main { max-width: none; padding: 0; min-height: 0; } @page { margin: 18mm 16mm; } }
${REVIEW_CSS}
</style>
</head>
<body>
<main>
${mergeReviewHtml(o, layout)}
</main>
</body>
</html>
`;
}
