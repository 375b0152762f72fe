import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { RunResult } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { type Harness, startHarness } from './support/harness';

const exec = promisify(execFile);
let h: Harness;
let python: string;
let temporal: string;
const dir = mkdtempSync(join(tmpdir(), 'got-backends-'));

beforeAll(async () => {
  h = await startHarness();
  // The official Python SDK from PyPI, in a user-level cached venv (about 20 s the first time).
  python = (await exec('bash', ['scripts/python-env.sh'])).stdout.trim();
  temporal = await ensureTemporalCli();
}, 600_000);
afterAll(async () => h?.close());

describe('starting runs from outside TypeScript', () => {
  it('a Python client that knows only the published JSON Schema merges documents and reads progress and result', async () => {
    const { documents } = docMergeTask.generateProblem(3, 21);
    const docs = documents.map((text, i) => {
      const path = join(dir, `nda-${i}.txt`);
      writeFileSync(path, text);
      return path;
    });
    const out = join(dir, 'merged.txt');
    const { stdout } = await exec(python, [
      'examples/python/start_merge.py',
      '--address',
      inject('temporalAddress'),
      '--task-queue',
      h.taskQueue,
      ...docs.flatMap((d) => ['--doc', d]),
      '--out',
      out,
    ]);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.event)).toEqual(['started', 'progress', 'completed']);
    expect((events[1]!.progress as { operationsTotal: number }).operationsTotal).toBe(9);
    const done = events[2] as { workflowId: string; bestScore: number; merged: string; llmCalls: number };
    expect(done.bestScore).toBeGreaterThan(0);
    expect(done.merged.length).toBeGreaterThan(500);
    expect(readFileSync(out, 'utf8')).toBe(done.merged);
    // The same run, seen from TypeScript: the Python client got exactly the workflow's answer.
    const result = (await h.client.workflow.getHandle(done.workflowId).result()) as RunResult;
    expect(result.best!.state.merged).toBe(done.merged);
    expect(result.grs.totals.llmCalls).toBe(done.llmCalls);
  });

  it('the Python client refuses a request the schema rejects, before contacting the server', async () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    // A budget that is not positive violates the published schema (exclusiveMinimum 0).
    const error = await exec(python, [
      'examples/python/start_merge.py',
      '--address',
      '127.0.0.1:1',
      '--doc',
      empty,
      '--doc',
      empty,
      '--budget-usd',
      '-1',
    ]).catch((e: { stderr: string; code: number }) => e);
    expect((error as { code: number }).code).not.toBe(0);
    expect((error as { stderr: string }).stderr).toMatch(/ValidationError.*-1/s);
  });

  it('the temporal CLI starts a run from a JSON file and queries it', async () => {
    const id = `got-cli-${Date.now()}`;
    const address = inject('temporalAddress');
    await exec(temporal, [
      'workflow',
      'start',
      '--address',
      address,
      '--type',
      'graphOfThoughts',
      '--task-queue',
      h.taskQueue,
      '--workflow-id',
      id,
      '--input-file',
      'examples/sorting-io-request.json',
    ]);
    const result = (await h.client.workflow.getHandle(id).result()) as RunResult;
    expect(result.task).toBe('sorting');
    expect(result.grs.calls).toHaveLength(1);
    expect(result.best?.score).toBeTypeOf('number');
    const { stdout } = await exec(temporal, [
      'workflow',
      'query',
      '--address',
      address,
      '--workflow-id',
      id,
      '--type',
      'progress',
      '--output',
      'json',
    ]);
    expect(stdout).toMatch(/"operationsDone":\s*4/);
  });
});
