import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * The identity of a command's work, kept in its output folder (`file`, e.g. `evaluation.json`):
 * workflow ids derive from it, so rerunning into the same folder reattaches to the same workflows,
 * and a new folder starts anew. `<prefix><folder name>-<8 random hex digits>`.
 */
export function outputFolderId(out: string, file: string, prefix = ''): string {
  const path = join(out, file);
  if (existsSync(path)) return (JSON.parse(readFileSync(path, 'utf8')) as { id: string }).id;
  const id = `${prefix}${basename(out)}-${randomUUID().slice(0, 8)}`;
  writeFileSync(path, `${JSON.stringify({ id, createdAt: new Date().toISOString() }, null, 2)}\n`);
  return id;
}
