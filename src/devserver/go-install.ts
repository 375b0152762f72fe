import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './process';

// How often a waiting or building process says it is still at it.
const PROGRESS_EVERY_MS = 60_000;
// How often a process waiting for another's build looks again.
const LOCK_POLL_MS = 2_000;

/** The per-user folder where tools built with Go are cached (`~/.cache/got-temporal`). */
export function toolCacheRoot(): string {
  const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cacheHome, 'got-temporal');
}

/** What {@link goInstallOnce} builds and where it puts it. */
export interface GoInstallOptions {
  /** The tool's name in messages, e.g. `MinIO`. */
  what: string;
  /** `module/path@version`, as `go install` takes it. */
  module: string;
  /** Where the binary ends up; its folder is the tool's cache folder. */
  binary: string;
  /** What to do when Go is missing or the build fails, appended to the error. */
  howToFix: string;
  log: (line: string) => void;
}

/** Where {@link ensureGoTool} looks for a tool before building it. */
export interface GoToolOptions extends GoInstallOptions {
  /** An environment variable naming an existing binary, which then wins (e.g. `MINIO_PATH`). */
  pathEnv: string;
  /** The binary's file name on PATH (e.g. `minio`). */
  fileName: string;
}

/**
 * The path of a usable binary of a tool: the one `pathEnv` names, else the cached build, else one on
 * PATH, else built now with Go into the cache (once per machine).
 */
export async function ensureGoTool(opts: GoToolOptions): Promise<string> {
  const fromEnv = process.env[opts.pathEnv];
  if (fromEnv) {
    if (!(await isExecutable(fromEnv))) {
      throw new Error(
        `${opts.pathEnv} is set to "${fromEnv}", but that file does not exist or is not executable. ` +
          `Point ${opts.pathEnv} at a ${opts.what} binary, or unset it to use the cached/PATH/built one.`,
      );
    }
    return fromEnv;
  }
  if (await isExecutable(opts.binary)) return opts.binary;
  const onPath = await findOnPath(opts.fileName);
  if (onPath) return onPath;
  await goInstallOnce(opts);
  return opts.binary;
}

/**
 * Builds `module` with `go install` into `binary` unless it is there. One build per machine: a
 * second caller waits for the first's (a lock folder holding the builder's pid; a dead builder's
 * lock is taken over), and the binary appears only once complete.
 */
export async function goInstallOnce(opts: GoInstallOptions): Promise<void> {
  const goBinary = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go');
  if (!goBinary) {
    throw new Error(`No ${opts.what} binary found and \`go\` is not on PATH, so it cannot be built. ${opts.howToFix}`);
  }
  const dir = dirname(opts.binary);
  await mkdir(dir, { recursive: true });
  const lock = join(dir, '.build-lock');
  // False when another process's build produced the binary while this one waited.
  if (!(await acquireLock(lock, opts))) return;
  try {
    if (await isExecutable(opts.binary)) return;
    await build(goBinary, opts);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function build(goBinary: string, opts: GoInstallOptions): Promise<void> {
  const { what, module, binary, log } = opts;
  // Built beside the cache folder's binary, then renamed: an interrupted build leaves no half-written binary.
  const staging = join(dirname(binary), `.build-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  const root = toolCacheRoot();
  // Sources and compiled packages stay under the tool cache, so a rebuild reuses them and a user's
  // own GOPATH is left alone; -modcacherw lets `rm -rf` clear that cache.
  const env = {
    ...process.env,
    GOBIN: staging,
    GOPATH: join(root, 'go'),
    GOCACHE: join(root, 'go-build'),
    GOFLAGS: [process.env.GOFLAGS, '-modcacherw'].filter(Boolean).join(' '),
  };
  log(`Building ${what} (${module}) with Go into ${dirname(binary)}.`);
  log('This takes several minutes the first time; later runs reuse the cached binary.');

  const output: string[] = [];
  const onLine = (line: string) => {
    log(line);
    output.push(line);
    if (output.length > 20) output.shift();
  };
  const startedAt = Date.now();
  const progress = setInterval(() => log(`Still building ${what} (${minutesSince(startedAt)} min so far)...`), PROGRESS_EVERY_MS);
  let exitCode: number;
  try {
    exitCode = await runStreaming(goBinary, ['install', module], env, onLine);
  } finally {
    clearInterval(progress);
  }
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  if (exitCode !== 0) {
    await rm(staging, { recursive: true, force: true });
    throw new Error(
      `Building ${what} failed: \`go install ${module}\` exited with code ${exitCode} after ${seconds}s. ${opts.howToFix}\n` +
        `Last go output:\n${output.join('\n')}`,
    );
  }
  const built = join(staging, basename(binary));
  if (!(await isExecutable(built))) throw new Error(`go install reported success, but ${built} was not produced. ${opts.howToFix}`);
  await rename(built, binary);
  await rm(staging, { recursive: true, force: true });
  log(`Built ${what} in ${seconds}s.`);
}

async function acquireLock(lock: string, opts: GoInstallOptions): Promise<boolean> {
  let waitingSince: number | undefined;
  let lastSaid = 0;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, 'pid'), String(process.pid));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await lockHolder(lock);
    if (holder === undefined || !isAlive(holder)) {
      // The builder died (or is just writing its pid: give it a moment before taking over).
      if (holder !== undefined || (await ageMs(lock)) > 10_000) await rm(lock, { recursive: true, force: true });
    } else {
      waitingSince ??= Date.now();
      if (Date.now() - lastSaid >= PROGRESS_EVERY_MS) {
        opts.log(
          `${opts.what} is being built by another process (pid ${holder}); waiting for it (${minutesSince(waitingSince)} min so far).`,
        );
        lastSaid = Date.now();
      }
    }
    // The binary is renamed into place only when complete, so once it is there nothing is left to wait for.
    if (await isExecutable(opts.binary)) return false;
    await sleep(LOCK_POLL_MS);
  }
}

async function lockHolder(lock: string): Promise<number | undefined> {
  const text = await readFile(join(lock, 'pid'), 'utf8').catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function ageMs(path: string): Promise<number> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return 0;
  }
}

function minutesSince(startedAt: number): number {
  return Math.round((Date.now() - startedAt) / 60_000);
}

/** Runs `command`, handing each line of its output to `log`; resolves with its exit code. */
export function runStreaming(command: string, args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    createInterface({ input: child.stdout }).on('line', log);
    createInterface({ input: child.stderr }).on('line', log);
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Whether `path` is an executable file. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The first executable called `name` in a PATH folder. */
export async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}
