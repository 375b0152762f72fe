import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractFiles, renderContractFile } from '../src/run/contract';

const dir = new URL('../schema/', import.meta.url);

describe('the published contract in schema/', () => {
  const generated = contractFiles();

  it.each(Object.keys(generated))('%s matches the code (run `npm run schema` after changing the schemas)', (name) => {
    expect(readFileSync(new URL(name, dir), 'utf8')).toBe(renderContractFile(generated[name]));
  });

  it('has no files the code no longer generates', () => {
    const files = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((f) => f.isFile())
      .map((f) => relative(dir.pathname, join(f.parentPath, f.name)));
    expect(files.sort()).toEqual(Object.keys(generated).sort());
  });

  it('names the workflow type and task queue clients must use', () => {
    const contract = generated['contract.json'] as { workflowType: string; defaultTaskQueue: string; version: string };
    expect(contract.workflowType).toBe('graphOfThoughts');
    expect(contract.defaultTaskQueue).toBe('got');
    expect(contract.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
