import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLlmSettings } from '../src/cli/llm-source';
import { resultOf, startRun } from '../src/client/runs';
import { ensureLocalModel, LOCAL_MODEL_ENV } from '../src/localllm/model';
import { type LocalLlm, startLocalLlm } from '../src/localllm/server';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { TASKS } from '../src/tasks/registry';
import { type Harness, startHarness } from './support/harness';

/**
 * Whole runs on a real model (SmolLM2-135M on the CPU): what is asserted is the machinery, never the
 * quality. Usage comes from the model's tokenizer, every unusable answer is recorded with its reason
 * and what the model said, re-asks are recorded calls, and every run ends with a clear status.
 */
let llm: LocalLlm;
let h: Harness;
beforeAll(async () => {
  const modelPath = await ensureLocalModel({ env: { ...process.env, [LOCAL_MODEL_ENV]: '' }, log: (line) => console.log(line) });
  llm = await startLocalLlm({ modelPath, port: 0 });
  // Streamed, as `--llm local` runs it: every call heartbeats on the tokens it receives.
  h = await startHarness({ endpoint: () => llm.baseURL, stream: true });
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

function request(task: string, scheme: string, size: number, maxTokens: number): RunRequestInput {
  const t = TASKS[task]!;
  const problem = t.generateProblem(size, 1);
  return {
    task,
    problem: problem as RunRequestInput['problem'],
    goo: t.schemes[scheme]!({ size, problem }),
    llm: { ...localLlmSettings(), model: llm.model, maxTokens, temperature: 0.8 },
    labels: { scheme, size, sample: 1 },
  };
}

/** What every run on a real model must show, whatever the model answered. */
function expectHonestRun(result: RunResult, maxTokens: number) {
  const { calls, thoughts, totals } = result.grs;
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    // Counted by the model's tokenizer, not estimated; never more than was allowed.
    expect(call.usage.estimated).toBeUndefined();
    expect(call.usage.promptTokens).toBeGreaterThan(0);
    expect(call.usage.completionTokens).toBeGreaterThan(0);
    expect(call.usage.completionTokens).toBeLessThanOrEqual(maxTokens * call.samples);
  }
  expect(totals.promptTokens).toBe(calls.reduce((sum, c) => sum + c.usage.promptTokens, 0));
  // An unusable answer is an invalid thought that says why and what the model said.
  for (const t of thoughts.filter((t) => t.callId && !t.valid)) {
    expect(t.error, t.id).toBeTruthy();
  }
  // A step asks again only after an unusable round, and its re-asks are numbered in order.
  const byStep = new Map<string, number[]>();
  for (const c of calls) byStep.set(c.id.replace(/-r\d+$/, ''), [...(byStep.get(c.id.replace(/-r\d+$/, '')) ?? []), c.reask ?? 0]);
  for (const [, reasks] of byStep) expect(reasks).toEqual(reasks.map((_, i) => i));
  // What the model did, for the log: a 135M model often answers badly, and that is allowed here.
  const reasks = calls.filter((c) => c.reask).length;
  console.log(
    `${result.labels.scheme} ${result.task}-${result.labels.size}: ${result.status} · ${calls.length} calls (${reasks} re-asks) · ${thoughts.filter((t) => t.callId && !t.valid).length} of ${thoughts.filter((t) => t.callId).length} thoughts unusable · best score ${result.best?.score}${result.noAnswer ? ` · ${result.noAnswer.operation}: ${result.noAnswer.reason}` : ''}`,
  );
  expect(['answered', 'noAnswer']).toContain(result.status);
  if (result.status === 'noAnswer') expect(result.noAnswer?.operation).toBeTruthy();
  else expect(result.final.some((t) => t.valid)).toBe(true);
}

describe('a streamed answer from a real model', () => {
  it('arrives token by token, with every sample and the usage the model counted', async () => {
    const { LlmClient } = await import('../src/llm/client');
    const seen: number[] = [];
    const client = new LlmClient({ baseURL: llm.baseURL, apiKey: 'local', supportsN: true, stream: true });
    const completion = await client.complete({
      model: llm.model,
      messages: [{ role: 'user', content: 'Name three colours.' }],
      samples: 2,
      temperature: 0.7,
      maxTokens: 24,
      seed: 3,
      onTokens: (n) => seen.push(n),
    });
    expect(completion.texts).toHaveLength(2);
    expect(completion.texts.every((t) => t.length > 0)).toBe(true);
    expect(completion.usage.estimated).toBeUndefined();
    expect(completion.usage.completionTokens).toBeGreaterThan(0);
    expect(completion.usage.completionTokens).toBeLessThanOrEqual(48);
    // Progress came in many steps, each at least the one before.
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.every((n, i) => i === 0 || n >= seen[i - 1]!)).toBe(true);
  });
});

describe('runs on a real model', () => {
  it('sorts 8 numbers with IO', async () => {
    const result = await resultOf(await startRun(h.client, request('sorting', 'io', 8, 48), { taskQueue: h.taskQueue }));
    expectHonestRun(result, 48);
  });

  it('sorts 8 numbers with GoT', async () => {
    const result = await resultOf(await startRun(h.client, request('sorting', 'got', 8, 48), { taskQueue: h.taskQueue }));
    expectHonestRun(result, 48);
    expect(result.grs.operations.every((o) => o.status === 'done' || o.status === 'skipped')).toBe(true);
  }, 300_000);

  it('merges two documents with IO, judged by the model', async () => {
    const result = await resultOf(await startRun(h.client, request('doc-merge', 'io', 2, 96), { taskQueue: h.taskQueue }));
    expectHonestRun(result, 96);
    expect(result.grs.calls.some((c) => c.purpose === 'score')).toBe(result.final.some((t) => t.valid));
  }, 300_000);
});
