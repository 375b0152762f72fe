import { readFileSync, writeFileSync } from 'node:fs';

/** Rows as a Markdown table, one column per key of the first row. */
export function table<T extends object>(rows: T[]): string {
  const keys = Object.keys(rows[0] ?? {}) as (keyof T)[];
  return [
    `| ${keys.join(' | ')} |`,
    `|${keys.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${keys.map((k) => String(r[k])).join(' | ')} |`),
  ].join('\n');
}

/** Replaces one section of BENCHMARKS.md (or adds it), leaving the others as they are. */
export function replaceSection(title: string, section: string): void {
  const path = new URL('../BENCHMARKS.md', import.meta.url);
  const current = readFileSync(path, 'utf8');
  const at = current.indexOf(`## ${title}`);
  const next = at < 0 ? -1 : current.indexOf('\n## ', at + 1);
  writeFileSync(
    path,
    at < 0 ? `${current.trimEnd()}\n\n${section}` : `${current.slice(0, at)}${section}${next < 0 ? '' : current.slice(next)}`,
  );
  console.log(section);
}
