import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnDetached, stopProcess, waitUntilReady } from '../../cluster/processes';
import { startTimeOf } from '../../devserver/process';
import {
  buildId,
  listResidents,
  type ResidentWorker,
  registerResident,
  residentLogOf,
  residentOn,
  residentsDir,
  runsFromSources,
  unregisterResident,
} from '../../resident/registry';
import { describeChoice, residentTaskQueue, settingsKey } from '../../resident/settings';
import { packageRoot } from '../../util/build-manifest';
import type { LlmSource } from '../llm-source';
import { startRuntime, taskQueueOf, workerChoiceOf } from '../runtime';
import { stateDir } from '../state-dir';

/** `got worker start`'s options: the LLM the worker serves, as `got run` chooses it. */
export interface WorkerStartOptions {
  llm: LlmSource;
  localModel?: string;
  latency: number;
  /** Serve in this process until Ctrl-C or SIGTERM, instead of in the background. */
  foreground: boolean;
  /** Poll this task queue instead of the settings' own: a run started elsewhere that waits on it (`got status` names it). */
  taskQueue?: string;
}

/** How long a background worker may take to poll: the first use of a local model fetches and checks its weights. */
const START_TIMEOUT_MS = 15 * 60_000;

/** The resident worker these options describe: what it serves and its own task queue (named by its settings' key). */
function residentOf(o: WorkerStartOptions) {
  const choice = workerChoiceOf(o.llm, { simulatedLatencyMs: o.latency, ...(o.localModel ? { localModel: o.localModel } : {}) });
  return {
    choice,
    taskQueue:
      o.taskQueue ??
      residentTaskQueue(taskQueueOf({ llm: o.llm, ...(o.localModel ? { localModel: o.localModel } : {}) }), settingsKey(choice)),
  };
}

/**
 * Starts a resident worker for these settings, in the background (kept running, like the dev
 * server), unless one of this build already runs; one of another build is stopped and replaced,
 * and the new one finishes the runs the old one had in flight (they wait on its task queue).
 */
export async function startResidentWorker(o: WorkerStartOptions, log: (line: string) => void): Promise<ResidentWorker> {
  const { choice, taskQueue } = residentOf(o);
  const build = buildId();
  const running = residentOn(stateDir(), taskQueue);
  if (running?.build === build) {
    log(`A resident worker (pid ${running.pid}) already serves ${describeChoice(choice)} on task queue ${taskQueue}.`);
    return running;
  }
  if (running) {
    log(`Stopping the resident worker (pid ${running.pid}) of another build on ${taskQueue}...`);
    await stopProcess(running);
  }
  if (o.foreground) return serveResidentWorker(o, log);
  const logFile = residentLogOf(stateDir(), taskQueue);
  const args = ['worker', 'start', '--foreground', '--llm', o.llm, '--latency', String(o.latency)];
  if (o.localModel) args.push('--local-model', o.localModel);
  if (o.taskQueue) args.push('--task-queue', o.taskQueue);
  mkdirSync(residentsDir(stateDir()), { recursive: true });
  // The same code as this command: the compiled CLI, or the sources when this runs from them (tests).
  const root = packageRoot(import.meta.url);
  const entry = runsFromSources() ? ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')] : [join(root, 'bin', 'got.js')];
  const child = spawnDetached(process.execPath, [...entry, ...args], {
    logFile,
    env: { ...process.env, GOT_STATE_DIR: stateDir() },
    cwd: process.cwd(),
  });
  log(`Starting a resident worker (pid ${child.pid}) for ${describeChoice(choice)}; its log: ${logFile}`);
  // Ready once a worker of this build polls the queue: this one, or one a concurrent start registered first.
  await waitUntilReady('The resident worker', async () => residentOn(stateDir(), taskQueue)?.build === build, {
    timeoutMs: START_TIMEOUT_MS,
    process: child,
    intervalMs: 100,
  });
  const started = residentOn(stateDir(), taskQueue)!;
  log(
    `Resident worker (pid ${started.pid}) polls task queue ${taskQueue}: \`got run\`, \`got eval\` and the other commands with these settings hand their runs to it. \`got worker stop\` stops it.`,
  );
  return started;
}

/** The resident worker itself: a worker in this process, registered while it polls, until SIGINT or SIGTERM. */
async function serveResidentWorker(o: WorkerStartOptions, log: (line: string) => void): Promise<never> {
  const { choice, taskQueue } = residentOf(o);
  const runtime = await startRuntime({
    inProcessWorker: true,
    taskQueue,
    simulatedLatencyMs: o.latency,
    llm: o.llm,
    ...(o.localModel ? { localModel: o.localModel } : {}),
    log,
  });
  // Two starts at once: the first to register keeps the queue, the other leaves.
  const first = residentOn(stateDir(), taskQueue);
  if (first && first.pid !== process.pid) {
    await runtime.close();
    log(`The resident worker (pid ${first.pid}) started meanwhile serves these settings; this one stops.`);
    process.exit(0);
  }
  const startTime = startTimeOf(process.pid);
  const record: ResidentWorker = {
    pid: process.pid,
    ...(startTime !== undefined ? { startTime } : {}),
    log: residentLogOf(stateDir(), taskQueue),
    taskQueue,
    build: buildId(),
    choice,
    localServer: runtime.localServer,
    startedAt: new Date().toISOString(),
  };
  registerResident(stateDir(), record);
  log(`Resident worker (pid ${process.pid}) polling task queue ${taskQueue} for ${describeChoice(choice)}; Ctrl-C stops it.`);
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  let exitCode = 0;
  try {
    await Promise.race([stopped, runtime.worker]);
  } catch (error) {
    log(`The worker failed: ${error instanceof Error ? error.message : String(error)}`);
    exitCode = 1;
  } finally {
    unregisterResident(stateDir(), taskQueue, process.pid);
    await runtime.close().catch(() => undefined);
  }
  log('Resident worker stopped.');
  process.exit(exitCode);
}

/**
 * Stops the resident workers of this state folder (each finishes its calls in flight first), or only
 * those polling the local dev server; returns those stopped.
 */
export async function stopResidentWorkers(o: { localServerOnly?: boolean } = {}): Promise<ResidentWorker[]> {
  const residents = listResidents(stateDir()).filter((r) => !o.localServerOnly || r.localServer);
  // Each unregisters itself as it stops; the record of one that had to be killed is dropped by the next listing.
  await Promise.all(residents.map((resident) => stopProcess(resident)));
  return residents;
}

/** What `got worker stop` and `got server stop` say of the resident workers they stopped. */
export const stoppedLine = (stopped: readonly ResidentWorker[]): string =>
  `Stopped ${stopped.length} resident worker${stopped.length === 1 ? '' : 's'}.`;

/** One line per resident worker: what it serves, where, since when, and whether it runs this build. */
export function residentLines(): string[] {
  const build = buildId();
  return listResidents(stateDir()).map(
    (r) =>
      `pid ${r.pid} · ${describeChoice(r.choice)} · task queue ${r.taskQueue} · since ${r.startedAt}${r.build === build ? '' : ' · another build (`got worker start` replaces it)'} · log ${r.log}`,
  );
}
