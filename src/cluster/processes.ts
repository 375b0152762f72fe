import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, startTimeOf, waitForExit } from '../devserver/process';

/** A process a cluster started, as cluster.json records it. */
export interface ProcessRecord {
  pid: number;
  /** Its start time (clock ticks since boot), so that a later process reusing the pid is never taken for it. */
  startTime?: number;
  /** Its log file (stdout and stderr). */
  log: string;
}

/** Options of {@link spawnDetached}. */
export interface DetachedOptions {
  logFile: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this user and group (PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
}

/** Starts a process that outlives this one (its own process group), its output appended to `logFile`. */
export function spawnDetached(binary: string, args: string[], o: DetachedOptions): ProcessRecord {
  const fd = openSync(o.logFile, 'a');
  try {
    const child = spawn(binary, args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: o.env,
      ...(o.cwd ? { cwd: o.cwd } : {}),
      ...(o.uid !== undefined ? { uid: o.uid } : {}),
      ...(o.gid !== undefined ? { gid: o.gid } : {}),
    });
    // A failed spawn (e.g. a missing binary) surfaces as a dead pid in the readiness wait, with the log.
    child.once('error', () => undefined);
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${binary}`);
    return { pid: child.pid, startTime: startTimeOf(child.pid), log: o.logFile };
  } finally {
    closeSync(fd);
  }
}

/** Whether the recorded process is still the one that was started. */
export function isRunning(record: ProcessRecord | undefined): boolean {
  if (!record || !isAlive(record.pid)) return false;
  // Without procfs there is no start time to compare: trust the pid.
  return record.startTime === undefined || startTimeOf(record.pid) === record.startTime;
}

/** Stops a recorded process: `signal` (default SIGTERM), then SIGKILL if it still runs after `graceMs`. Nothing if it is gone. */
export async function stopProcess(record: ProcessRecord | undefined, o: { signal?: NodeJS.Signals; graceMs?: number } = {}): Promise<void> {
  if (!record || !isRunning(record)) return;
  signal(record.pid, o.signal ?? 'SIGTERM');
  if (await waitForExit(record.pid, o.graceMs ?? 20_000)) return;
  if (isRunning(record)) signal(record.pid, 'SIGKILL');
  await waitForExit(record.pid, 5_000);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Exited between the check and the signal.
  }
}

/** The last lines of a log file, for error messages. */
export async function logTail(file: string, lines = 30): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * Polls `check` until it holds; fails at `timeoutMs`, or at once when the process it waits for
 * has exited, quoting the end of that process's log.
 */
export async function waitUntilReady(
  what: string,
  check: () => Promise<boolean>,
  o: { timeoutMs: number; process?: ProcessRecord; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    if (await check()) return;
    if (o.process && !isRunning(o.process))
      throw new Error(`${what} exited before it was ready. End of ${o.process.log}:\n${await logTail(o.process.log)}`);
    if (Date.now() > deadline) {
      const tail = o.process ? ` End of ${o.process.log}:\n${await logTail(o.process.log)}` : '';
      throw new Error(`${what} was not ready within ${o.timeoutMs / 1000}s.${tail}`);
    }
    await sleep(o.intervalMs ?? 250);
  }
}

/** True when `url` answers a GET with a 2xx status within two seconds. */
export async function httpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
