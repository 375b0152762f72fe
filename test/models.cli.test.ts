import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTimeOf } from '../src/devserver/process';
import { cachedModelPath } from '../src/localllm/model';
import { LOCAL_MODELS } from '../src/localllm/models';
import { residentsDir } from '../src/resident/registry';
import { got } from './support/cli';

describe('got models: the built-in local models on this machine', () => {
  const cacheHome = mkdtempSync(join(tmpdir(), 'got-models-'));
  const stateDir = mkdtempSync(join(tmpdir(), 'got-models-state-'));
  const env = { XDG_CACHE_HOME: cacheHome, GOT_STATE_DIR: stateDir };
  const smollm = LOCAL_MODELS['smollm2-135m'];
  const cached = cachedModelPath(smollm, join(cacheHome, 'got-temporal', 'models'));

  /** A sparse file of the model's size where the cache keeps it: what `got models` takes for a fetched model. */
  const placeModel = () => {
    mkdirSync(dirname(cached), { recursive: true });
    writeFileSync(cached, '');
    truncateSync(cached, smollm.bytes);
  };

  it('lists every built-in model with its size and window, none on disk in an empty cache', async () => {
    const { code, stdout } = await got(['models'], env);
    expect(code).toBe(0);
    const all = stdout.trim().split('\n');
    const lines = all.filter((l) => !l.startsWith(' '));
    expect(lines).toHaveLength(Object.keys(LOCAL_MODELS).length);
    // Each model's line is followed by what it was measured to do here.
    for (const line of lines) expect(all[all.indexOf(line) + 1], line).toMatch(/^ {2}measured: \S/);
    expect(lines[0]).toMatch(
      /^smollm2-135m \(default\) · SmolLM2-135M-Instruct, Q4_1 · 98 MB · 2,048 of 8,192 tokens served · not fetched/,
    );
    expect(stdout).toMatch(/qwen2\.5-coder-1\.5b · .* · 1,117 MB · 8,192 of 32,768 tokens served · not fetched/);
  });

  it('says a cached model is on disk, and removes it', async () => {
    placeModel();
    expect((await got(['models'], env)).stdout).toContain(`on disk: ${cached}`);
    const pulled = await got(['models', 'pull', 'smollm2-135m'], env);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stderr).toContain(`smollm2-135m is already on disk: ${cached}`);
    const removed = await got(['models', 'rm', 'smollm2-135m'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toMatch(/Removed smollm2-135m \(98 MB\)/);
    expect((await got(['models'], env)).stdout.split('\n')[0]).toMatch(/not fetched/);
    expect((await got(['models', 'rm', 'smollm2-135m'], env)).stderr).toMatch(/smollm2-135m is not on disk/);
  });

  it('refuses to remove a model a resident worker holds, naming the worker', async () => {
    placeModel();
    // This test's own process stands for the worker: a live pid with its start time.
    mkdirSync(residentsDir(stateDir), { recursive: true });
    const startTime = startTimeOf(process.pid);
    writeFileSync(
      join(residentsDir(stateDir), 'got-local-smollm2-135m-resident-x.json'),
      JSON.stringify({
        pid: process.pid,
        ...(startTime !== undefined ? { startTime } : {}),
        log: '-',
        taskQueue: 'got-local-smollm2-135m-resident-x',
        key: 'x',
        build: 'b',
        choice: { llm: 'local', localModel: 'smollm2-135m' },
        localServer: true,
        startedAt: new Date().toISOString(),
      }),
    );
    expect((await got(['models'], env)).stdout.split('\n')[0]).toContain(`loaded by the resident worker pid ${process.pid}`);
    const refused = await got(['models', 'rm', 'smollm2-135m'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(new RegExp(`smollm2-135m is loaded by the resident worker pid ${process.pid}: stop it first`));
    expect((await got(['models'], env)).stdout).toContain(`on disk: ${cached}`);
  });

  it('refuses an unknown model by name, listing the built-in ones', async () => {
    const { code, stderr } = await got(['models', 'pull', 'gpt-5'], env);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no built-in model "gpt-5"; the built-in models are: smollm2-135m, qwen2\.5-coder-1\.5b, qwen2\.5-coder-0\.5b/);
  });
});
