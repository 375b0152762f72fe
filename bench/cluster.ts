import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ClusterInfo } from '../src/cluster/cluster';
import { clusterPorts, PORT_SPAN, portsInUse } from '../src/cluster/ports';
import type { ClusterState } from '../src/cluster/state';
import { isPortFree, LOOPBACK } from '../src/devserver/process';
import { shellFreeEnv } from './support';

/** What the benches that run `got cluster up` share: the CLI as a user runs it, and a cluster on free ports. */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The user's settings must not leak into the cluster or its clients.
const inherited = shellFreeEnv();
const exec = promisify(execFile);

/** `got <args>` as a user runs it (the compiled CLI); fails with its stderr. */
export async function got(args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    return (
      await exec(process.execPath, [join(ROOT, 'bin/got.js'), ...args], { env: { ...inherited, ...env }, maxBuffer: 64 * 1024 * 1024 })
    ).stdout;
  } catch (e) {
    const err = e as { code: number; stderr: string };
    throw new Error(`got ${args.join(' ')} exited with ${err.code}:\n${err.stderr}`);
  }
}

/** The first base from 18233 up whose whole range of ports (with `workers` workers) is free. */
async function freePortBase(workers: number): Promise<number> {
  for (let base = 18_233; base < 32_000; base += PORT_SPAN) {
    const ports = portsInUse(clusterPorts(base), workers).map((p) => p.port);
    if ((await Promise.all(ports.map((p) => isPortFree(LOOPBACK, p)))).every(Boolean)) return base;
  }
  throw new Error('no free range of ports from 18233');
}

/** `got cluster up --simulated` in `stateDir` on free ports: `workers` workers, the simulator at `latencyMs` a call. */
export async function simulatedClusterUp(stateDir: string, workers: number, latencyMs: number): Promise<ClusterInfo> {
  const portBase = await freePortBase(workers);
  const args = ['--state-dir', stateDir, '--port-base', String(portBase), '--workers', String(workers)];
  return JSON.parse(await got(['cluster', 'up', ...args, '--simulated', '--latency', String(latencyMs), '--json'])) as ClusterInfo;
}

/** `got cluster up` in `stateDir` on free ports, its workers calling the OpenAI-compatible endpoint at `baseURL`. */
export async function endpointClusterUp(stateDir: string, workers: number, baseURL: string): Promise<ClusterInfo> {
  const portBase = await freePortBase(workers);
  const args = ['--state-dir', stateDir, '--port-base', String(portBase), '--workers', String(workers)];
  return JSON.parse(await got(['cluster', 'up', ...args, '--json'], { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sim' })) as ClusterInfo;
}

/** The cluster's record of what it runs: the pid of every process it started. */
export const clusterState = (stateDir: string) => JSON.parse(readFileSync(join(stateDir, 'cluster.json'), 'utf8')) as ClusterState;
