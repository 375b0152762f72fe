import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput } from '../src/run/request';
import { TASKS } from '../src/tasks/registry';
import { llmDepth } from './critical-path';
import { startBenchEnv, type BenchEnv } from './support';

function request(task: string, scheme: string, size: number, sample = 1): RunRequestInput {
  const t = TASKS[task]!;
  const problem = t.generateProblem(size, sample);
  return { task, problem: problem as RunRequestInput['problem'], goo: t.schemes[scheme]!({ size, problem }), labels: { scheme, size, sample } };
}

async function timedRun(env: BenchEnv, taskQueue: string, req: RunRequestInput): Promise<number> {
  const started = performance.now();
  await resultOf(await startRun(env.client, req, { taskQueue }));
  return performance.now() - started;
}

export interface OverheadRow {
  config: string;
  latencyMs: number;
  depth: number;
  criticalPathMs: number;
  wallMs: number;
  ratio: number;
}

/** Wall time over the critical-path limit (median of `repeats` runs after one warm-up). */
export async function measureOverhead(configs: [string, string, number][], latencies: number[], repeats = 3): Promise<OverheadRow[]> {
  const rows: OverheadRow[] = [];
  for (const latencyMs of latencies) {
    const env = await startBenchEnv({ latencyMs });
    const { taskQueue, stop } = await env.worker();
    try {
      for (const [task, scheme, size] of configs) {
        const req = request(task, scheme, size);
        const depth = llmDepth(TASKS[task]!.schemes[scheme]!({ size, problem: req.problem }));
        await timedRun(env, taskQueue, req); // warm-up: bundle caches, connections, JIT
        const walls: number[] = [];
        for (let i = 0; i < repeats; i++) walls.push(await timedRun(env, taskQueue, { ...req, seed: i + 1 }));
        const wallMs = median(walls);
        rows.push({ config: `${task} ${scheme} ${size}`, latencyMs, depth, criticalPathMs: depth * latencyMs, wallMs: Math.round(wallMs), ratio: round(wallMs / (depth * latencyMs)) });
      }
    } finally {
      await stop();
      await env.close();
    }
  }
  return rows;
}

export interface SpeedupRow {
  config: string;
  latencyMs: number;
  sequentialMs: number;
  parallelMs: number;
  speedup: number;
}

/** The same GoO with the worker limited to one activity at a time, then unlimited, in one process. */
export async function measureSpeedup(configs: [string, string, number][], latencyMs: number): Promise<SpeedupRow[]> {
  const env = await startBenchEnv({ latencyMs });
  const rows: SpeedupRow[] = [];
  try {
    const sequential = await env.worker({ maxConcurrentActivities: 1 });
    const parallel = await env.worker();
    for (const [task, scheme, size] of configs) {
      const req = request(task, scheme, size);
      await timedRun(env, parallel.taskQueue, req);
      const sequentialMs = await timedRun(env, sequential.taskQueue, { ...req, seed: 7 });
      const parallelMs = await timedRun(env, parallel.taskQueue, { ...req, seed: 7 });
      rows.push({ config: `${task} ${scheme} ${size}`, latencyMs, sequentialMs: Math.round(sequentialMs), parallelMs: Math.round(parallelMs), speedup: round(sequentialMs / parallelMs) });
    }
    await sequential.stop();
    await parallel.stop();
  } finally {
    await env.close();
  }
  return rows;
}

export interface ThroughputRow {
  workers: number;
  runs: number;
  inFlight: number;
  latencyMs: number;
  seconds: number;
  runsPerMinute: number;
}

/** Completed GoT sorting-32 runs per minute with many in flight. */
export async function measureThroughput(workerCounts: number[], runs: number, latencyMs: number): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const workers of workerCounts) {
    const env = await startBenchEnv({ latencyMs });
    try {
      const first = await env.worker();
      const extra = await Promise.all(Array.from({ length: workers - 1 }, () => env.workerOn(first.taskQueue)));
      await timedRun(env, first.taskQueue, request('sorting', 'got', 32));
      const started = performance.now();
      await Promise.all(Array.from({ length: runs }, (_, i) => timedRun(env, first.taskQueue, request('sorting', 'got', 32, i + 10))));
      const seconds = (performance.now() - started) / 1000;
      rows.push({ workers, runs, inFlight: runs, latencyMs, seconds: round(seconds), runsPerMinute: Math.round((runs / seconds) * 60) });
      for (const e of extra) await e.stop();
      await first.stop();
    } finally {
      await env.close();
    }
  }
  return rows;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Math.round(x * 100) / 100;
