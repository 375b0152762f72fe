import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isRunning, type ProcessRecord } from '../cluster/processes';
import { digestInputs, packageRoot, readManifest, writeFileAtomically } from '../util/build-manifest';
import type { WorkerChoice } from './settings';

/** A resident worker as its registry file records it (no secrets: its settings are a key). */
export interface ResidentWorker extends ProcessRecord {
  /** Its own queue, named by the `settingsKey` of what it serves. */
  taskQueue: string;
  /** The build it runs (`buildId`): a run of another build is not handed to it. */
  build: string;
  choice: WorkerChoice;
  /** It polls the local dev server (which `got server stop` stops), not a server the environment names. */
  localServer: boolean;
  startedAt: string;
}

/** Where resident workers register: beside the dev server's state, one file per task queue. */
export const residentsDir = (stateDir: string): string => join(stateDir, 'workers');
const fileOf = (stateDir: string, taskQueue: string) => join(residentsDir(stateDir), `${taskQueue}.json`);
export const residentLogOf = (stateDir: string, taskQueue: string): string => join(residentsDir(stateDir), `${taskQueue}.log`);

/** Records a resident worker once it polls; written whole, so a reader never sees half of it. */
export function registerResident(stateDir: string, worker: ResidentWorker): void {
  mkdirSync(residentsDir(stateDir), { recursive: true });
  writeFileAtomically(fileOf(stateDir, worker.taskQueue), `${JSON.stringify(worker, null, 2)}\n`);
}

/** Removes a worker's record, if it is still that worker's (a newer one on the queue keeps its own). */
export function unregisterResident(stateDir: string, taskQueue: string, pid: number): void {
  if (readRecord(fileOf(stateDir, taskQueue))?.pid === pid) rmSync(fileOf(stateDir, taskQueue), { force: true });
}

/** The resident worker of a task queue, when one is recorded and its process still runs. */
export function residentOn(stateDir: string, taskQueue: string): ResidentWorker | undefined {
  const record = readRecord(fileOf(stateDir, taskQueue));
  return record && isRunning(record) ? record : undefined;
}

/** Every resident worker recorded whose process still runs; records of exited ones are removed. */
export function listResidents(stateDir: string): ResidentWorker[] {
  let names: string[];
  try {
    names = readdirSync(residentsDir(stateDir)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const file = join(residentsDir(stateDir), name);
    const record = readRecord(file);
    if (record && isRunning(record)) return [record];
    rmSync(file, { force: true });
    return [];
  });
}

function readRecord(file: string): ResidentWorker | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ResidentWorker;
  } catch {
    return undefined;
  }
}

/**
 * The build this process runs: the digests of dist/'s code and of the workflow bundle, which change
 * with any source (`bin/compiled.js` rebuilds before a command runs). A command run from the sources
 * (tsx) digests them as they are, which is what a current build of them records, so the two agree.
 */
export function buildId(): string {
  const root = packageRoot(import.meta.url);
  const fromSources = runsFromSources();
  const digests = [join(root, 'dist', 'build.json'), join(root, 'dist', 'workflows', 'manifest.json')].map((path) => {
    const manifest = readManifest(path);
    if (!manifest) return 'none';
    return (fromSources ? digestInputs(root, manifest.files, manifest.packages) : manifest.digest)?.slice(0, 12) ?? 'none';
  });
  return digests.join('.');
}

/** Whether this process runs the TypeScript sources (tests, `tsx`) rather than dist/. */
export const runsFromSources = (): boolean => import.meta.url.endsWith('.ts');
