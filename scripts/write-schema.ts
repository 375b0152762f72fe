// Writes the public contract (schema/) from the zod schemas: `npm run schema`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { contractFiles, renderContractFile } from '../src/run/contract';

const dir = new URL('../schema/', import.meta.url).pathname;
const files = contractFiles();
for (const [name, value] of Object.entries(files)) {
  mkdirSync(dirname(join(dir, name)), { recursive: true });
  writeFileSync(join(dir, name), renderContractFile(value));
}
console.log(`wrote ${Object.keys(files).length} files to ${dir}`);
