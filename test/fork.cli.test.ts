import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { got } from './support/cli';

describe('got fork', () => {
  it('forks a finished run without a call, then at an operation with calls only from there on; refuses a bad point and instruction', async () => {
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), OPENAI_BASE_URL: '' };
    const parent = `got-fork-${randomUUID().slice(0, 8)}`;
    const run = await got(
      ['run', '--llm', 'sim', '--scheme', 'got', '--size', '32', '--workflow-id', parent, '--json', '--no-progress'],
      env,
    );
    expect(run.code).toBe(0);
    const parentCalls = JSON.parse(run.stdout).llmCalls as number;

    const same = await got(['fork', parent, '--json', '--by', 'Ann'], env);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ parent, callsMade: 0, callsInherited: parentCalls, costUsd: 0 });

    const at = await got(['fork', parent, '--at', 'merge-1', '--json'], env);
    const forked = JSON.parse(at.stdout) as { callsMade: number; callsInherited: number };
    expect(forked.callsInherited).toBeGreaterThan(0);
    expect(forked.callsMade + forked.callsInherited).toBe(parentCalls);

    const nowhere = await got(['fork', parent, '--at', 'nowhere'], env);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('fork.at: names no operation of the GoO');
    const badInstruction = await got(['fork', parent, '--instruct', 'no equals sign'], env);
    expect(badInstruction.code).toBe(2);
    expect(badInstruction.stderr).toContain('--instruct (1): expected <operation>=<text>');
  }, 300_000);
});
