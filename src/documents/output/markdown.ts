import { keptNote, type LaidOutBlock, layoutOf, type MergedOutput, noteText, repeatedNote, UNSUPPORTED_MARK } from './layout';

/**
 * The `.md` output: the merged text as Markdown (headings as `#` lines, clauses and paragraphs as
 * written), and with a review, each block's sources as a footnote (`[^1]`) and the disagreements as
 * a table at the end.
 */
export function toMarkdown(o: MergedOutput): string {
  const layout = layoutOf(o);
  const notes: string[] = [];
  const body = layout.blocks.map((b) => {
    const text = blockMarkdown(o.merged, b);
    const note = o.review ? footnote(o.merged, b) : '';
    if (!note) return text;
    notes.push(note);
    return `${text} [^${notes.length}]`;
  });
  const parts = [body.join('\n\n')];
  if (notes.length) parts.push(notes.map((n, i) => `[^${i + 1}]: ${n}`).join('\n'));
  if (layout.review) {
    const { clauses, supported, unsupported } = layout.review.counts;
    const rows = layout.review.disagreements.map(
      (d) =>
        `| ${cell(d.topic)} | ${d.values.map((v) => cell(`${v.name}: ${v.text}${v.where ? ` (${v.where})` : ''}`)).join('<br>')} | ${
          d.kept.length ? cell(d.kept.join('; ')) : '*dropped by the merge*'
        }${d.decided ? ` (${cell(d.decided)})` : ''} |`,
    );
    parts.push(
      [
        '## Disagreements',
        '',
        `${supported} of ${clauses} clauses found in the sources${unsupported ? `; ${unsupported} without a source — check` : ''}${repeatedNote(layout.review.counts)}${keptNote(layout.review)}.`,
        '',
        ...(rows.length
          ? ['| Topic | What each source says | The merge kept |', '| --- | --- | --- |', ...rows]
          : ['The sources agree on every term compared.']),
      ].join('\n'),
    );
  }
  return `${parts.join('\n\n')}\n`;
}

/** A heading as a `#` line (number kept); a clause or paragraph exactly as written. */
function blockMarkdown(merged: string, b: LaidOutBlock): string {
  if (b.kind !== 'heading') return safe(merged.slice(b.start, b.end));
  const words = merged.slice(b.textStart, b.end).replace(/\s+/g, ' ');
  return `${'#'.repeat(b.level)} ${b.marker ? `${b.marker} ` : ''}${safe(words)}`;
}

function footnote(merged: string, b: LaidOutBlock): string {
  const note = noteText(b);
  if (!note.sources && !note.unsupported) return '';
  const excerpts = b.unsupported.map((u) => `“${excerpt(merged.slice(u.start, u.end))}”`).join(', ');
  const flag = note.unsupported ? `**${UNSUPPORTED_MARK}**: ${safe(excerpts)}` : '';
  return [safe(note.sources), flag].filter(Boolean).join('. ');
}

const excerpt = (s: string) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
};

/** Text that renders as itself: a tag-like `<` would be raw HTML to a Markdown renderer. */
const safe = (s: string) => s.replace(/<(?=[A-Za-z/!?])/g, '\\<');

/** A table cell's text: one line, pipes escaped. */
const cell = (s: string) => safe(s.replace(/\s+/g, ' ').trim()).replace(/\|/g, '\\|');
