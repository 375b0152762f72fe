// Writes the public contract (schema/) from the zod schemas: `npm run schema`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractFiles, renderContractFile } from '../src/run/contract';

const dir = new URL('../schema/', import.meta.url).pathname;
mkdirSync(dir, { recursive: true });
for (const [name, value] of Object.entries(contractFiles())) writeFileSync(join(dir, name), renderContractFile(value));
console.log(`wrote ${Object.keys(contractFiles()).length} files to ${dir}`);
