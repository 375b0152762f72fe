import { createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { RunRequestInput } from '../src/run/request';
import { startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

/**
 * The API key lives in the worker's environment only: it must never reach a workflow's input, its
 * history, its result, the worker's logs or the error of a run the endpoint refused.
 */

const KEY = `sk-test-${randomBytes(24).toString('hex')}`;
/** The key, and pieces of it a masked or truncated echo would still give away. */
const KEY_FORMS = [KEY, KEY.slice(8, 28), KEY.slice(-16), Buffer.from(KEY).toString('base64').slice(0, 40)];
const leaks = (text: string | Buffer) => KEY_FORMS.filter((form) => text.includes(form));

const logLines: string[] = [];
/** What the endpoint saw of each request's Authorization header (a digest: the simulator keeps no key). */
const authorizationSent = () => h.llm.requestLog().map((r) => r.authorizationSha256);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
let h: Harness;

beforeAll(async () => {
  // This file's Runtime records every log line; the harness installs its own only when none is installed yet.
  expect(Runtime._instance).toBeUndefined();
  Runtime.install({
    logger: new DefaultLogger('DEBUG', (entry) =>
      logLines.push(`${entry.level} ${entry.message} ${inspect(entry.meta, { depth: 8, breakLength: Infinity })}`),
    ),
    telemetryOptions: { logging: { filter: { core: 'INFO', other: 'INFO' }, forward: {} } },
  });
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation(
      (...args: unknown[]) =>
        void logLines.push(`console.${level} ${args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 8 }))).join(' ')}`),
    );
  }
  h = await startHarness({ apiKey: KEY });
});
afterAll(async () => {
  await h?.close();
  vi.restoreAllMocks();
});

const sortingRun = (scheme: 'io' | 'got', size: number): RunRequestInput => ({
  task: 'sorting',
  problem: sortingTask.generateProblem(size, 5),
  goo: sortingTask.schemes[scheme]!({ size }),
  labels: { scheme, size, sample: 5 },
});

const rawHistory = async (workflowId: string) => {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  // No codec in this file: the serialised history holds every payload's JSON as the server stores it.
  return { history, bytes: Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish()) };
};

describe('the API key', () => {
  it('is sent to the endpoint on every call, and is nowhere in the input, history, result or logs of a run', async () => {
    h.llm.resetStats();
    const handle = await startRun(h.client, sortingRun('got', 32), { taskQueue: h.taskQueue });
    const result = await resultOf(handle);
    const { history, bytes } = await rawHistory(handle.workflowId);

    // It was in use: every LLM request carried it.
    expect(h.llm.stats().requests).toBeGreaterThan(3);
    expect(authorizationSent()).toHaveLength(h.llm.stats().requests);
    expect(new Set(authorizationSent())).toEqual(new Set([sha256(`Bearer ${KEY}`)]));

    const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!.map((p) => Buffer.from(p.data!).toString());
    expect(input.join('')).toContain('"task":"sorting"');
    expect(leaks(input.join(''))).toEqual([]);
    // The history scanned holds the run's content (the problem, the thoughts), so a key there would be found.
    expect(bytes.includes(Buffer.from(JSON.stringify(result.best!.state.answer ?? result.best!.state)))).toBe(true);
    expect(leaks(bytes)).toEqual([]);
    expect(leaks(JSON.stringify(result))).toEqual([]);

    // Log lines reach the Runtime's logger a little after the run ends: wait for the run's last one.
    await vi.waitFor(() => expect(logLines.some((l) => /^DEBUG Workflow completed/.test(l) && l.includes(handle.workflowId))).toBe(true), {
      timeout: 15_000,
    });
    expect(
      logLines.filter((l) => /Activity completed/.test(l) && l.includes(handle.workflowId) && l.includes('callLlm')).length,
    ).toBeGreaterThan(3);
    expect(leaks(logLines.join('\n'))).toEqual([]);
  });

  it('is not in the error, the history or the logs of a run the endpoint refused with 401', async () => {
    h.llm.injectFaults([
      { status: 401, message: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.' },
    ]);
    const linesBefore = logLines.length;
    const handle = await startRun(h.client, sortingRun('io', 32), { taskQueue: h.taskQueue });
    const error = await resultOf(handle).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const causes: string[] = [];
    for (let e: unknown = error; e instanceof Error; e = e.cause) causes.push(e.message, e.stack ?? '');
    expect(causes.join('\n')).toMatch(/API key rejected by http:\/\/127\.0\.0\.1:\d+\/v1 \(401\)/);
    expect(leaks(causes.join('\n'))).toEqual([]);
    expect(leaks(inspect(error, { depth: 12 }))).toEqual([]);

    const { bytes } = await rawHistory(handle.workflowId);
    expect(bytes.includes(Buffer.from('API key rejected'))).toBe(true);
    expect(leaks(bytes)).toEqual([]);

    // Log lines reach the Runtime's logger a little after the run ends.
    await vi.waitFor(() => expect(logLines.some((l) => /^\w+ Workflow failed/.test(l) && l.includes(handle.workflowId))).toBe(true), {
      timeout: 15_000,
    });
    const lines = logLines.slice(linesBefore).join('\n');
    expect(lines).toMatch(/Activity failed[\s\S]*API key rejected by http/);
    expect(leaks(lines)).toEqual([]);
    expect(authorizationSent().at(-1)).toBe(sha256(`Bearer ${KEY}`));
  });

  it('is redacted when the endpoint echoes it in its refusal', async () => {
    h.llm.injectFaults([{ status: 401, message: `Incorrect API key provided: ${KEY}.` }]);
    const handle = await startRun(h.client, sortingRun('io', 32), { taskQueue: h.taskQueue });
    const error = await resultOf(handle).catch((e: unknown) => e);
    const causes: string[] = [];
    for (let e: unknown = error; e instanceof Error; e = e.cause) causes.push(e.message);
    expect(causes.join('\n')).toMatch(/Incorrect API key provided: \[redacted\]/);
    expect(leaks(causes.join('\n'))).toEqual([]);
    expect(leaks((await rawHistory(handle.workflowId)).bytes)).toEqual([]);
  });
});

describe('the simulated LLM', () => {
  it('never echoes the Authorization header, whatever it answers', async () => {
    const sim = await startSimulatedLlm();
    try {
      const problem = sortingTask.generateProblem(32, 1);
      const prompt = sortingTask.buildPrompt({ prompt: 'sort', problem, thoughts: [sortingTask.rootState(problem)], params: {} });
      const call = (path: string, init: RequestInit = {}) =>
        fetch(`http://127.0.0.1:${sim.port}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-api-key': KEY },
        });
      const chat = (body: string) => call('/v1/chat/completions', { method: 'POST', body });
      sim.injectFaults([{ status: 401 }]);
      const answers = [
        [await chat(JSON.stringify({ model: 'm', messages: prompt })), 401],
        [await chat(JSON.stringify({ model: 'm', messages: prompt })), 200],
        [await chat(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'what is the weather?' }] })), 400],
        [await chat('{not json'), 400],
        [await call('/v1/embeddings', { method: 'POST', body: '{}' }), 404],
        [await call('/v1/models'), 200],
        [await call('/stats'), 200],
      ] as const;
      for (const [response, status] of answers) {
        expect(response.status).toBe(status);
        const text = `${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${await response.text()}`;
        expect(text.length).toBeGreaterThan(20);
        expect(leaks(text)).toEqual([]);
      }
      // Nor does it keep the key: its request log holds a digest of the header only.
      expect(sim.requestLog().filter((r) => r.authorizationSha256 === sha256(`Bearer ${KEY}`)).length).toBeGreaterThan(3);
      expect(leaks(JSON.stringify(sim.requestLog()))).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});
