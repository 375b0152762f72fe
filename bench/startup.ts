import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startDevServer } from '../src/devserver/dev-server';
import { freePort } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import { shellFreeEnv } from './support';

/**
 * How long the compiled programs take to start (decision 22): `got --help`, a one-call run end to
 * end with the Temporal server already up, and a worker process until it polls. Each is a fresh
 * OS process, as a user starts it, timed from spawn; the median of `runs` after one warm-up.
 */

/** One measured start and its target. */
export interface StartupRow {
  measure: string;
  targetMs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  met: 'yes' | 'no';
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The targets of decision 22, in ms. */
export const STARTUP_TARGETS = { help: 500, ioRun: 2500, workerReady: 1500 } as const;

/** Runs `node <args>` and resolves with the ms from spawn until it exits (code 0) or prints `until`. */
function timeProcess(args: string[], env: NodeJS.ProcessEnv, until?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let seenAt: number | undefined;
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (until && seenAt === undefined && output.includes(until)) {
        seenAt = performance.now() - started;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.once('error', reject);
    child.once('exit', (code) => {
      if (until)
        return seenAt === undefined
          ? reject(new Error(`node ${args.join(' ')} exited (${code}) before printing "${until}": ${output}`))
          : resolve(seenAt);
      return code === 0 ? resolve(performance.now() - started) : reject(new Error(`node ${args.join(' ')} exited (${code}): ${output}`));
    });
  });
}

async function measure(name: string, targetMs: number, runs: number, once: () => Promise<number>): Promise<StartupRow> {
  await once(); // warm-up: the OS's file cache, the server's first calls
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  times.sort((a, b) => a - b);
  const medianMs = Math.round(times[Math.floor(times.length / 2)]!);
  return {
    measure: name,
    targetMs,
    medianMs,
    minMs: Math.round(times[0]!),
    maxMs: Math.round(times.at(-1)!),
    met: medianMs <= targetMs ? 'yes' : 'no',
  };
}

/** Builds dist/ if a source changed, starts a private dev server, and times the three starts. */
export async function measureStartup(runs = 5): Promise<StartupRow[]> {
  // The programs measured are the compiled ones: bring dist/ up to date first, outside the timings.
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
  const server = await startDevServer({ binary: await ensureTemporalCli(), port: await freePort(), ui: false });
  try {
    const env = { ...shellFreeEnv(), TEMPORAL_ADDRESS: server.address };
    return [
      await measure('`got --help`', STARTUP_TARGETS.help, runs, () => timeProcess(['bin/got.js', '--help'], env)),
      await measure('`got run --task sorting --scheme io --size 32`, end to end', STARTUP_TARGETS.ioRun, runs, () =>
        timeProcess(['bin/got.js', 'run', '--task', 'sorting', '--scheme', 'io', '--size', '32', '--no-progress'], env),
      ),
      await measure('`npm run worker` until it polls', STARTUP_TARGETS.workerReady, runs, () =>
        // The worker needs an endpoint only once a call comes; none comes on its own task queue.
        timeProcess(
          ['bin/got-worker.js'],
          { ...env, GOT_TASK_QUEUE: `startup-${randomUUID()}`, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
          'worker polling',
        ),
      ),
    ];
  } finally {
    await server.stop();
  }
}
