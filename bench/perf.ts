import { randomUUID } from 'node:crypto';
import { resultOf, startRun } from '../src/client/runs';
import type { GoO } from '../src/goo/schema';
import type { RunRequestInput } from '../src/run/request';
import { TASKS } from '../src/tasks/registry';
import { llmDepth, measuredCriticalPathMs } from './critical-path';
import { type BenchEnv, startBenchEnv } from './support';

export type FanOut = 'batched' | 'perSample';

function request(task: string, scheme: string, size: number, sample = 1, fanOut: FanOut = 'batched'): RunRequestInput {
  const t = TASKS[task]!;
  const problem = t.generateProblem(size, sample);
  return {
    task,
    problem: problem as RunRequestInput['problem'],
    goo: t.schemes[scheme]!({ size, problem }),
    llm: { fanOut },
    labels: { scheme, size, sample },
  };
}

async function timedRun(env: BenchEnv, taskQueue: string, req: RunRequestInput): Promise<number> {
  return (await measuredRun(env, taskQueue, req)).wallMs;
}

async function measuredRun(env: BenchEnv, taskQueue: string, req: RunRequestInput): Promise<{ wallMs: number; measuredPathMs: number }> {
  const started = performance.now();
  const result = await resultOf(await startRun(env.client, req, { taskQueue }));
  const wallMs = performance.now() - started;
  return { wallMs, measuredPathMs: measuredCriticalPathMs(req.goo as GoO, result.grs) };
}

export interface OverheadRow {
  config: string;
  latencyMs: number;
  depth: number;
  /** depth x the simulator's nominal latency */
  criticalPathMs: number;
  wallMs: number;
  ratio: number;
  /** the critical path with each call's measured latency (the simulator's own compute and HTTP included) */
  measuredPathMs: number;
  measuredRatio: number;
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
        const runs: { wallMs: number; measuredPathMs: number }[] = [];
        for (let i = 0; i < repeats; i++) runs.push(await measuredRun(env, taskQueue, { ...req, seed: i + 1 }));
        const { wallMs, measuredPathMs } = runs.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs.length / 2)]!;
        rows.push({
          config: `${task} ${scheme} ${size}`,
          latencyMs,
          depth,
          criticalPathMs: depth * latencyMs,
          wallMs: Math.round(wallMs),
          ratio: round(wallMs / (depth * latencyMs)),
          measuredPathMs: Math.round(measuredPathMs),
          measuredRatio: round(wallMs / measuredPathMs),
        });
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
  fanOut: FanOut;
  calls: number;
  latencyMs: number;
  sequentialMs: number;
  parallelMs: number;
  speedup: number;
}

/** The same GoO with the worker limited to one activity at a time, then unlimited, in one process. */
export async function measureSpeedup(
  configs: [string, string, number][],
  latencyMs: number,
  fanOuts: FanOut[] = ['batched', 'perSample'],
): Promise<SpeedupRow[]> {
  const env = await startBenchEnv({ latencyMs });
  const rows: SpeedupRow[] = [];
  try {
    const sequential = await env.worker({ maxConcurrentActivities: 1 });
    const parallel = await env.worker();
    for (const [task, scheme, size] of configs) {
      for (const fanOut of fanOuts) {
        const req = request(task, scheme, size, 1, fanOut);
        await timedRun(env, parallel.taskQueue, req);
        const sequentialMs = await timedRun(env, sequential.taskQueue, { ...req, seed: 7 });
        const before = await env.llm.requests();
        const parallelMs = await timedRun(env, parallel.taskQueue, { ...req, seed: 7 });
        const calls = (await env.llm.requests()) - before;
        rows.push({
          config: `${task} ${scheme} ${size}`,
          fanOut,
          calls,
          latencyMs,
          sequentialMs: Math.round(sequentialMs),
          parallelMs: Math.round(parallelMs),
          speedup: round(sequentialMs / parallelMs),
        });
      }
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
  /** The largest worker process's resident memory after the batches. */
  workerRssMiB: number | string;
}

/** Completed GoT sorting-32 runs per minute with many in flight, on 1..n worker processes sharing one task queue. */
export async function measureThroughput(workerCounts: number[], runs: number, latencyMs: number): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const workers of workerCounts) {
    const env = await startBenchEnv({ latencyMs });
    try {
      const taskQueue = `bench-${randomUUID()}`;
      const processes = await Promise.all(Array.from({ length: workers }, () => env.workerProcess(taskQueue)));
      const batch = (seed: number) =>
        Promise.all(Array.from({ length: runs }, (_, i) => timedRun(env, taskQueue, request('sorting', 'got', 32, seed + i))));
      await batch(10_000); // warm-up: a fresh worker process compiles its hot paths during its first runs
      // The median of three batches: a few seconds of a shared machine can be a slow few seconds.
      const times: number[] = [];
      for (const seed of [10, 1_010, 2_010]) {
        const started = performance.now();
        await batch(seed);
        times.push((performance.now() - started) / 1000);
      }
      const seconds = times.sort((a, b) => a - b)[1]!;
      const rss = processes.map((p) => p.rssMiB()).filter((m): m is number => m !== undefined);
      rows.push({
        workers,
        runs,
        inFlight: runs,
        latencyMs,
        seconds: round(seconds),
        runsPerMinute: Math.round((runs / seconds) * 60),
        workerRssMiB: rss.length ? Math.max(...rss) : '?',
      });
      await Promise.all(processes.map((p) => p.stop()));
    } finally {
      await env.close();
    }
  }
  return rows;
}

const round = (x: number) => Math.round(x * 100) / 100;
