import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
// The caller's own settings (GOT_*, an LLM endpoint) must not leak into the command: each test gives its own.
const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_') && k !== 'OPENAI_BASE_URL'));

export interface GotOutput {
  /** The exit code (0 on success). */
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (`src/cli/main.ts`) in a process of its own with `env` added, and resolves once it exits, whatever its exit code. */
export async function got(args: string[], env: Record<string, string>): Promise<GotOutput> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...inherited, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** A CLI process left running in the background (`gotInBackground`). */
export interface GotProcess {
  child: ChildProcess;
  /** What it has written so far. */
  stdout(): string;
  stderr(): string;
  /** Its exit code once it exits. */
  exited: Promise<number | null>;
}

/**
 * Starts the CLI in a process of its own with `env` added, and resolves once its stderr says `until`
 * (e.g. `Started <id>`); rejects if it exits first.
 */
export async function gotInBackground(args: string[], env: Record<string, string>, until: string): Promise<GotProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(until)) resolve();
    });
    void exited.then((code) => reject(new Error(`the command exited (${code}) before it said "${until}": ${stderr}`)));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}
