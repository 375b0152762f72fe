import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

/** The loopback address local servers listen on. */
export const LOOPBACK = '127.0.0.1';

// How many lines of a child's output are kept for error messages.
const TAIL_LINES = 40;

/** Options of {@link spawnTracked}. */
export interface SpawnOptions {
  /** Append the child's stdout and stderr to this file (otherwise the last lines are kept in memory). */
  logFile?: string;
  /** Keep the child running after this Node process exits. */
  detached?: boolean;
  /** The child's environment; default this process's. */
  env?: NodeJS.ProcessEnv;
}

/** A child process with what is needed to report on it and stop it. */
export interface TrackedProcess {
  child: ChildProcess;
  /** True once the child has exited or failed to spawn. */
  exited: () => boolean;
  /** The child's last lines of output (from its log file if it has one). */
  logTail: () => Promise<string>;
  /** Detach our bookkeeping (exit hook) once the child is stopped deliberately. */
  dispose: () => void;
}

/** Spawns `binary` with its output kept for error messages; an attached child is killed when this process exits. */
export function spawnTracked(binary: string, args: string[], opts: SpawnOptions = {}): TrackedProcess {
  const recent: string[] = [];
  const logFd = opts.logFile ? openSync(opts.logFile, 'a') : undefined;
  const output = logFd ?? (opts.detached ? 'ignore' : 'pipe');

  const child = spawn(binary, args, { detached: opts.detached ?? false, env: opts.env, stdio: ['ignore', output, output] });
  if (logFd !== undefined) closeSync(logFd);

  let hasExited = false;
  child.once('exit', () => {
    hasExited = true;
  });
  child.once('error', (err) => {
    hasExited = true;
    recent.push(`spawn failed: ${err.message}`);
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => remember(recent, line));
  }

  // An attached child must not outlive us, even if the caller forgets to stop it.
  const killOnExit = () => child.kill('SIGKILL');
  if (opts.detached) child.unref();
  else process.once('exit', killOnExit);

  const { logFile } = opts;
  return {
    child,
    exited: () => hasExited,
    logTail: async () => (logFile ? tailFile(logFile) : recent.join('\n')),
    dispose: () => process.off('exit', killOnExit),
  };
}

function remember(lines: string[], line: string): void {
  lines.push(line);
  if (lines.length > TAIL_LINES) lines.shift();
}

async function tailFile(file: string, count = TAIL_LINES): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

/** Whether a process is running (a zombie, exited but not reaped, counts as dead). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited child of a non-reaping init (common in containers) lingers as a zombie.
  return !procState(pid)?.startsWith('Z');
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).trim();
  } catch {
    return undefined;
  }
}

/**
 * When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat): with its pid, it
 * tells a process from a later one that reused the pid. Undefined without procfs (macOS) or once it is gone.
 */
export function startTimeOf(pid: number): number | undefined {
  const fields = procState(pid)?.split(' ');
  // procState starts at field 3 (the state), so field 22 is at index 19.
  const ticks = Number(fields?.[19]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/** The command line of a process, arguments joined by NUL; undefined without procfs (macOS) or once it is gone. */
export function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Resolves true once `pid` has exited, false if it is still running after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
  return true;
}

/** Stops `pid`: SIGTERM, then SIGKILL if it is still running after `graceMs`. */
export async function terminate(pid: number, graceMs = 20_000): Promise<void> {
  signal(pid, 'SIGTERM');
  await waitForExit(pid, graceMs);
  signal(pid, 'SIGKILL');
}

function signal(pid: number, sig: NodeJS.Signals): void {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, sig);
  } catch {
    // Exited between the check and the signal.
  }
}

/** A TCP port on the loopback address that nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether `ip:port` can be listened on. */
export async function isPortFree(ip: string, port: number): Promise<boolean> {
  const server = createServer();
  const free = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, ip, () => resolve(true));
  });
  if (free) await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}
