import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshness, manifestOf, writeManifest } from '../src/util/build-manifest';
import { prebuiltWorkflowBundle } from '../worker/bundle';

const exec = promisify(execFile);

/** Runs `node <args>` in the repository; resolves with its exit code and output. */
async function node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, args, {
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_'))),
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('the compiled got command (bin/got.js)', () => {
  beforeAll(async () => {
    // The same step `npm install` runs; a no-op when dist/ is current.
    await exec(process.execPath, ['scripts/build.mjs', '--if-stale']);
  });

  it('prints the help of every command and exits 0', async () => {
    const { code, stdout } = await node(['bin/got.js', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: got \[options\] \[command\]/);
    for (const command of ['run', 'demo', 'eval', 'inspect', 'status', 'setup', 'server', 'sim-llm', 'codec-server', 'codec-key'])
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  it('keeps the exit codes: a usage error is bad input (2)', async () => {
    const { code, stderr } = await node(['bin/got.js', 'run', '--task', 'poetry']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--task.*poetry.*Allowed choices/);
  });

  it('says to build when dist/ is missing, with exit code 3', async () => {
    // The launcher alone, in a folder with no dist/ beside it.
    const root = mkdtempSync(join(tmpdir(), 'got-bin-'));
    mkdirSync(join(root, 'bin'));
    for (const file of ['got.js', 'compiled.js']) copyFileSync(join('bin', file), join(root, 'bin', file));
    writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');
    const { code, stderr } = await node([join(root, 'bin', 'got.js'), '--help']);
    expect(code).toBe(3);
    expect(stderr).toMatch(/npm run build/);
  });
});

describe('a build output is used only while its inputs are unchanged', () => {
  /** A package root in a temporary folder: two sources and one installed package. */
  function fixture() {
    const root = mkdtempSync(join(tmpdir(), 'got-manifest-'));
    mkdirSync(join(root, 'workflows'));
    mkdirSync(join(root, 'node_modules', 'zod'), { recursive: true });
    writeFileSync(join(root, 'workflows', 'index.ts'), "export * from './got';\n");
    writeFileSync(join(root, 'workflows', 'got.ts'), 'export const step = 1;\n');
    writeFileSync(join(root, 'node_modules', 'zod', 'package.json'), '{"version": "4.0.0"}\n');
    return { root, manifest: manifestOf(root, ['workflows/got.ts', 'workflows/index.ts'], ['zod']) };
  }

  it('is current as built', () => {
    const { root, manifest } = fixture();
    expect(freshness(manifest, root)).toBe('current');
  });

  it('is stale once a source is edited', () => {
    const { root, manifest } = fixture();
    writeFileSync(join(root, 'workflows', 'got.ts'), 'export const step = 2;\n');
    expect(freshness(manifest, root)).toBe('stale');
  });

  it('is stale once a source is deleted', () => {
    const { root, manifest } = fixture();
    rmSync(join(root, 'workflows', 'index.ts'));
    expect(freshness(manifest, root)).toBe('stale');
  });

  it('is stale once a package it inlines is upgraded', () => {
    const { root, manifest } = fixture();
    writeFileSync(join(root, 'node_modules', 'zod', 'package.json'), '{"version": "4.0.1"}\n');
    expect(freshness(manifest, root)).toBe('stale');
  });

  it('is trusted where no source is present (an install that ships only dist/)', () => {
    const { root, manifest } = fixture();
    rmSync(join(root, 'workflows'), { recursive: true });
    expect(freshness(manifest, root)).toBe('no-sources');
  });

  it('gives the worker the prebuilt workflow bundle only while it is current', () => {
    const { root, manifest } = fixture();
    const dir = join(root, 'dist', 'workflows');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bundle-test.js'), '// code\n');
    writeManifest(join(dir, 'manifest.json'), { ...manifest, code: 'bundle-test.js' });
    expect(prebuiltWorkflowBundle(dir, root)).toBe(join(dir, 'bundle-test.js'));
    writeFileSync(join(root, 'workflows', 'got.ts'), 'export const step = 3;\n');
    expect(prebuiltWorkflowBundle(dir, root)).toBeUndefined();
  });
});
