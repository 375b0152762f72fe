import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { taskQueueFor } from '../src/cli/llm-source';
import { isAlive } from '../src/devserver/process';
import { listResidents } from '../src/resident/registry';
import { residentTaskQueue, settingsKey } from '../src/resident/settings';
import { got } from './support/cli';

describe("a resident worker's settings", () => {
  const sim = { llm: 'sim', latencyMs: 0 } as const;

  it('change with what the worker serves or reads: model, latency, codec keys, store, endpoint', () => {
    const base = settingsKey(sim, {});
    expect(settingsKey({ ...sim, latencyMs: 5 }, {})).not.toBe(base);
    expect(settingsKey({ llm: 'local', localModel: 'smollm2-135m' }, {})).not.toBe(
      settingsKey({ llm: 'local', localModel: 'qwen2.5-coder-1.5b' }, {}),
    );
    for (const env of [
      { GOT_CODEC_KEYS: 'k1:abc' },
      { GOT_STORE: '/tmp/x' },
      { OPENAI_BASE_URL: 'http://h/v1' },
      { TEMPORAL_ADDRESS: 'h:7233' },
    ])
      expect(settingsKey(sim, env), JSON.stringify(env)).not.toBe(base);
  });

  it("do not change with a run's own settings (model name, temperature, prices, budgets, state folder), nor with unrelated variables", () => {
    const base = settingsKey(sim, {});
    const runOnly = {
      GOT_MODEL: 'm',
      GOT_TEMPERATURE: '1',
      GOT_PRICE_INPUT: '3',
      GOT_BUDGET_USD: '1',
      GOT_STUCK_AFTER: '2',
      GOT_STATE_DIR: '/tmp/s',
      GOT_VERBOSE: '1',
      HOME: '/home/x',
    };
    expect(settingsKey(sim, runOnly)).toBe(base);
  });

  it('give the resident worker a task queue of its own, and each local model its own queue', () => {
    expect(residentTaskQueue('got-sim', 'abc')).toBe('got-sim-resident-abc');
    expect(taskQueueFor('local', 'qwen2.5-coder-1.5b', {})).toBe('got-local-qwen2.5-coder-1.5b');
    expect(taskQueueFor('local', undefined, {})).toBe('got-local-smollm2-135m');
    expect(taskQueueFor('sim', undefined, {})).toBe('got-sim');
  });
});

describe('got worker start: commands hand their runs to a resident worker with their settings', () => {
  const address = inject('temporalAddress');
  const stateDir = mkdtempSync(join(tmpdir(), 'got-resident-'));
  const env = { TEMPORAL_ADDRESS: address, OPENAI_BASE_URL: '', GOT_STATE_DIR: stateDir, GOT_STORE: join(stateDir, 'store') };
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connection: await Connection.connect({ address }) });
  });
  afterAll(async () => {
    await got(['worker', 'stop'], env);
    await client.connection.close();
  });

  const taskQueueOf = async (workflowId: string) => (await client.workflow.getHandle(workflowId).describe()).taskQueue;

  it('starts one in the background, and a run with the same settings goes to it, with no worker of its own', async () => {
    const started = await got(['worker', 'start', '--latency', '0'], env);
    expect(started.code, started.stderr).toBe(0);
    const [resident] = listResidents(stateDir);
    expect(resident).toMatchObject({ choice: { llm: 'sim', latencyMs: 0 } });
    expect(resident!.taskQueue).toMatch(/^got-sim-resident-/);
    expect(isAlive(resident!.pid)).toBe(true);

    const again = await got(['worker', 'start', '--latency', '0'], env);
    expect(again.stderr).toContain(`(pid ${resident!.pid}) already serves`);
    expect(listResidents(stateDir)).toHaveLength(1);

    const run = await got(['run', '--scheme', 'io', '--size', '8', '--json', '--no-progress', '--workflow-id', 'resident-1'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`Runs go to the resident worker (pid ${resident!.pid})`);
    expect(run.stderr).not.toMatch(/Using the simulated LLM/);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'answered' });
    expect(await taskQueueOf('resident-1')).toBe(resident!.taskQueue);
  });

  it('is left running by `got server stop` when it polls a server the environment names', async () => {
    const [resident] = listResidents(stateDir);
    const stop = await got(['server', 'stop'], env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).not.toMatch(/resident worker/);
    expect(isAlive(resident!.pid)).toBe(true);
    expect(resident!.localServer).toBe(false);
  });

  it('is not used by a run with other settings, nor by one that names its task queue', async () => {
    const slower = await got(
      ['run', '--scheme', 'io', '--size', '8', '--latency', '5', '--json', '--no-progress', '--workflow-id', 'resident-2'],
      env,
    );
    expect(slower.code, slower.stderr).toBe(0);
    expect(slower.stderr).toMatch(/Using the simulated LLM .* \(5 ms per call\)/);
    expect(await taskQueueOf('resident-2')).toBe('got-sim');

    const named = await got(
      ['run', '--scheme', 'io', '--size', '8', '--task-queue', 'mine', '--json', '--no-progress', '--workflow-id', 'resident-3'],
      env,
    );
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).not.toMatch(/resident worker/);
    expect(await taskQueueOf('resident-3')).toBe('mine');
  });

  it('a run whose resident worker is killed mid-run finishes once one is started again', async () => {
    // 400 ms per call: the run is in its LLM calls when the worker dies.
    const slow = { ...env, GOT_SIM_LATENCY_MS: '400' };
    expect((await got(['worker', 'start'], slow)).code).toBe(0);
    const first = listResidents(stateDir).find((r) => r.choice.latencyMs === 400)!;
    const command: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'run',
        '--scheme',
        'got',
        '--size',
        '16',
        '--json',
        '--no-progress',
        '--workflow-id',
        'resident-4',
      ],
      { env: { ...process.env, ...slow }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    command.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => command.once('exit', resolve));
    const handle = client.workflow.getHandle('resident-4');
    for (;;) {
      const started = await handle.fetchHistory().then(
        (h) => h.events!.some((e) => e.activityTaskStartedEventAttributes),
        () => false,
      );
      if (started) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    process.kill(first.pid, 'SIGKILL');
    expect((await got(['worker', 'start'], slow)).code).toBe(0);
    const second = listResidents(stateDir).find((r) => r.choice.latencyMs === 400)!;
    expect(second.pid).not.toBe(first.pid);
    expect(second.taskQueue).toBe(first.taskQueue);
    expect(await exited).toBe(0);
    const report = JSON.parse(stdout) as { status: string; llmCalls: number };
    expect(report.status).toBe('answered');
    expect(await taskQueueOf('resident-4')).toBe(first.taskQueue);
  });

  it('--keep-worker (or GOT_KEEP_WORKER) starts one when none runs and hands the run to it; the next command finds it', async () => {
    const fast = { ...env, GOT_SIM_LATENCY_MS: '1' };
    expect(listResidents(stateDir).some((r) => r.choice.latencyMs === 1)).toBe(false);
    const first = await got(
      ['run', '--scheme', 'io', '--size', '8', '--keep-worker', '--json', '--no-progress', '--workflow-id', 'resident-6'],
      fast,
    );
    expect(first.code, first.stderr).toBe(0);
    const started = listResidents(stateDir).find((r) => r.choice.latencyMs === 1)!;
    expect(first.stderr).toContain(`Runs go to the resident worker (pid ${started.pid})`);
    expect(await taskQueueOf('resident-6')).toBe(started.taskQueue);
    const second = await got(['run', '--scheme', 'io', '--size', '8', '--json', '--no-progress', '--workflow-id', 'resident-7'], {
      ...fast,
      GOT_KEEP_WORKER: 'true',
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`(pid ${started.pid}) already serves`);
    expect(listResidents(stateDir).filter((r) => r.choice.latencyMs === 1)).toHaveLength(1);
  });

  it('--keep-worker yields to --task-queue, saying so', async () => {
    const named = await got(['run', '--scheme', 'io', '--size', '8', '--task-queue', 'mine', '--json', '--no-progress'], {
      ...env,
      GOT_KEEP_WORKER: 'true',
      GOT_SIM_LATENCY_MS: '2',
    });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).toContain('--keep-worker not used: --task-queue names where the runs go.');
    expect(listResidents(stateDir).some((r) => r.choice.latencyMs === 2)).toBe(false);
  });

  it('got worker stop stops them all; a run then starts its own worker again', async () => {
    const residents = listResidents(stateDir);
    expect(residents.length).toBeGreaterThan(0);
    const stopped = await got(['worker', 'stop'], env);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toMatch(new RegExp(`Stopped ${residents.length} resident worker`));
    for (const r of residents) expect(isAlive(r.pid)).toBe(false);
    expect(listResidents(stateDir)).toEqual([]);
    expect((await got(['worker', 'list'], env)).stdout).toMatch(/No resident worker is running/);

    const run = await got(['run', '--scheme', 'io', '--size', '8', '--json', '--no-progress', '--workflow-id', 'resident-5'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Using the simulated LLM/);
  });
});
