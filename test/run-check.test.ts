import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { GooBuilder } from '../src/goo/builder';
import type { GoO } from '../src/goo/schema';
import { validateGoO } from '../src/goo/validate';
import { costOf } from '../src/llm/cost';
import { classifyLlmError, retryAfterMs } from '../src/llm/errors';
import { checkRun } from '../src/run/check';
import { gooWidth } from '../src/run/footprint';
import type { RunRequestInput } from '../src/run/request';
import { TASKS } from '../src/tasks/registry';
import { sortingTask } from '../src/tasks/sorting';
import { validationIssues } from './support/tasks';

const validRun = (extra: Partial<Record<keyof RunRequestInput, unknown>> = {}): Record<string, unknown> => ({
  task: 'sorting',
  problem: { list: [3, 1, 2, 0, 9, 9, 4] },
  goo: sortingTask.schemes.io!({ size: 32 }),
  ...extra,
});

const issuesOf = (input: unknown) => validationIssues(() => checkRun(input));

describe('checkRun', () => {
  it('accepts a valid sorting run and fills the defaults', () => {
    const checked = checkRun(validRun());
    expect(checked.task.id).toBe('sorting');
    expect(checked.problem).toEqual({ list: [3, 1, 2, 0, 9, 9, 4] });
    expect(checked.request.seed).toBe(0);
    expect(checked.request.labels).toEqual({});
    expect(checked.request.budget).toBeUndefined();
    expect(checked.request.llm).toMatchObject({
      model: 'sim-got-1',
      temperature: 1,
      pricing: { inputPerMTok: 1.5, outputPerMTok: 2 },
      timeoutSeconds: 120,
      maxAttempts: 8,
    });
    expect(checked.analyzed.order).toEqual(['sort', 'score-1', 'groundtruth']);
    expect(checked.analyzed.sinks).toEqual(['groundtruth']);
  });

  it('keeps given settings and fills the rest of llm', () => {
    const checked = checkRun(
      validRun({ llm: { temperature: 0.2, model: 'gpt-x' }, seed: 5, budget: { maxCostUsd: 1.5 }, labels: { scheme: 'io', size: 32 } }),
    );
    expect(checked.request.llm).toMatchObject({ temperature: 0.2, model: 'gpt-x', maxAttempts: 8, pricing: { inputPerMTok: 1.5 } });
    expect(checked.request.seed).toBe(5);
    expect(checked.request.budget).toEqual({ maxCostUsd: 1.5 });
    expect(checked.request.labels).toEqual({ scheme: 'io', size: 32 });
  });

  it.each(Object.keys(sortingTask.schemes).flatMap((scheme) => sortingTask.sizes.map((size) => ({ scheme, size }))))(
    'accepts the $scheme scheme at $size',
    ({ scheme, size }) => {
      expect(() =>
        checkRun(validRun({ goo: sortingTask.schemes[scheme]!({ size }), problem: sortingTask.generateProblem(size, 1) })),
      ).not.toThrow();
    },
  );

  const withPrompt = () => {
    const b = new GooBuilder();
    b.score(b.generate(b.generate(null, { prompt: 'sort' }), { prompt: 'translate' }));
    return b.build();
  };
  const withLlmScorer = () => {
    const b = new GooBuilder();
    b.score(b.generate(null, { prompt: 'sort' }), { llm: { prompt: 'rate', samples: 2 } });
    return b.build();
  };
  const withCycle = {
    operations: [
      { id: 'g', type: 'generate', prompt: 'sort' },
      { id: 'a', type: 'score', inputs: ['g', 'b'] },
      { id: 'b', type: 'keepBestN', n: 1, higherIsBetter: false, inputs: ['a'] },
    ],
  };

  it.each([
    { name: 'an unknown task', input: validRun({ task: 'juggling' }), path: /^task$/, message: /unknown task "juggling".*sorting/ },
    { name: 'a missing task', input: (({ task: _t, ...rest }) => rest)(validRun()), path: /^task$/, message: /./ },
    { name: 'a problem without a list', input: validRun({ problem: { items: [1, 2] } }), path: /^problem/, message: /./ },
    { name: 'a problem list of strings', input: validRun({ problem: { list: ['1', '2'] } }), path: /^problem\.list\[0\]$/, message: /./ },
    { name: 'a problem list too short', input: validRun({ problem: { list: [1] } }), path: /^problem\.list$/, message: /at least 2/ },
    { name: 'a problem that is a bare list', input: validRun({ problem: [3, 1, 2] }), path: /^problem/, message: /./ },
    {
      name: 'a prompt the task does not have',
      input: validRun({ goo: withPrompt() }),
      path: /^goo\.operations\[1\]\.prompt$/,
      message: /no prompt "translate".*sort, sortCot/,
    },
    {
      name: 'an llm scorer on a task without one',
      input: validRun({ goo: withLlmScorer() }),
      path: /^goo\.operations\[1\]\.scorer$/,
      message: /LLM scorer "rate"/,
    },
    { name: 'a negative budget', input: validRun({ budget: { maxCostUsd: -1 } }), path: /^budget\.maxCostUsd$/, message: /positive/ },
    { name: 'a zero token budget', input: validRun({ budget: { maxTokens: 0 } }), path: /^budget\.maxTokens$/, message: /positive/ },
    { name: 'an empty budget', input: validRun({ budget: {} }), path: /^budget$/, message: /maxCostUsd or maxTokens/ },
    { name: 'a temperature above 2', input: validRun({ llm: { temperature: 2.5 } }), path: /^llm\.temperature$/, message: /./ },
    { name: 'a negative temperature', input: validRun({ llm: { temperature: -0.1 } }), path: /^llm\.temperature$/, message: /./ },
    {
      name: 'a negative price',
      input: validRun({ llm: { pricing: { inputPerMTok: -1 } } }),
      path: /^llm\.pricing\.inputPerMTok$/,
      message: /./,
    },
    { name: 'a negative seed', input: validRun({ seed: -1 }), path: /^seed$/, message: /./ },
    { name: 'an unknown top-level field', input: validRun({ apiKey: 'sk-...' } as never), path: /^$/, message: /apiKey/ },
    { name: 'a GoO with a cycle', input: validRun({ goo: withCycle }), path: /^goo\.operations$/, message: /cycle: .*a.*b|cycle: .*b.*a/ },
    {
      name: 'a GoO with an unknown operation type',
      input: validRun({ goo: { operations: [{ id: 'x', type: 'dance' }] } }),
      path: /^goo\.operations\[0\]\.type$/,
      message: /./,
    },
  ])('refuses $name', ({ input, path, message }) => {
    const issues = issuesOf(input);
    const hit = issues.find((i) => path.test(i.path) && message.test(i.message));
    expect(hit, `issues were ${JSON.stringify(issues)}`).toBeDefined();
  });

  it('reports a bad problem and an unknown prompt together', () => {
    const paths = issuesOf(validRun({ problem: { list: [1] }, goo: withPrompt() })).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['problem.list', 'goo.operations[1].prompt']));
  });
});

describe('classifyLlmError', () => {
  const url = 'http://llm.example:8080/v1';
  const headers = (h: Record<string, string> = {}) => new Headers(h);
  const body = (message: string) => ({ error: { message, type: 'x' } });

  it.each([
    { status: 429, kind: 'rate-limited', retryable: true },
    { status: 500, kind: 'server-error', retryable: true },
    { status: 502, kind: 'server-error', retryable: true },
    { status: 503, kind: 'server-error', retryable: true },
    { status: 408, kind: 'server-error', retryable: true },
    { status: 409, kind: 'server-error', retryable: true },
    { status: 400, kind: 'rejected', retryable: false },
    { status: 401, kind: 'rejected', retryable: false },
    { status: 403, kind: 'rejected', retryable: false },
    { status: 404, kind: 'rejected', retryable: false },
    { status: 422, kind: 'rejected', retryable: false },
    { status: 418, kind: 'rejected', retryable: false },
  ])('status $status is $kind (retryable: $retryable)', ({ status, kind, retryable }) => {
    const error = OpenAI.APIError.generate(status, body(`boom ${status}`), undefined, headers());
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const fault = classifyLlmError(error, url);
    expect(fault).toMatchObject({ kind, retryable });
    expect(fault.message).toContain(url);
    expect(fault.message).toContain(`boom ${status}`);
    if (!fault.retryable) expect(fault.status).toBe(status);
  });

  it.each([
    { status: 401, cause: 'API key rejected' },
    { status: 403, cause: 'access forbidden (API key lacks permission)' },
    { status: 404, cause: 'model or endpoint not found' },
    { status: 400, cause: 'request rejected as invalid' },
    { status: 418, cause: 'request refused with status 418' },
  ])('a $status names its cause and the base URL', ({ status, cause }) => {
    const fault = classifyLlmError(OpenAI.APIError.generate(status, body('nope'), undefined, headers()), url);
    expect(fault.message).toContain(`${cause} by ${url}`);
  });

  it('a 401 says "API key rejected by <url>"', () => {
    const error = new OpenAI.AuthenticationError(401, { message: 'Incorrect API key provided' }, undefined, headers());
    const fault = classifyLlmError(error, url);
    expect(fault).toEqual({
      retryable: false,
      kind: 'rejected',
      status: 401,
      message: expect.stringContaining(`API key rejected by ${url}`) as unknown as string,
    });
  });

  it('treats connection failures and timeouts as retryable', () => {
    const conn = classifyLlmError(new OpenAI.APIConnectionError({ message: 'Connection error.', cause: new Error('ECONNREFUSED') }), url);
    expect(conn).toMatchObject({ retryable: true, kind: 'connection' });
    expect(conn.message).toContain(url);
    const timeout = classifyLlmError(new OpenAI.APIConnectionTimeoutError(), url);
    expect(timeout).toMatchObject({ retryable: true, kind: 'timeout' });
    expect(timeout.message).toContain(url);
    // APIError.generate without a status or headers is a connection error
    expect(classifyLlmError(OpenAI.APIError.generate(undefined, new Error('socket hang up'), undefined, undefined), url)).toMatchObject({
      retryable: true,
      kind: 'connection',
    });
  });

  it('treats an unknown failure as retryable, naming it', () => {
    const fault = classifyLlmError(new TypeError('fetch failed'), url);
    expect(fault).toMatchObject({ retryable: true });
    expect(fault.message).toContain('fetch failed');
    expect(fault.message).toContain(url);
  });

  it('reads retry-after seconds from a rate limit', () => {
    const error = new OpenAI.RateLimitError(429, { message: 'slow down' }, undefined, new Headers({ 'retry-after': '2' }));
    expect(classifyLlmError(error, url)).toMatchObject({ retryable: true, kind: 'rate-limited', retryAfterMs: 2000 });
  });

  it('prefers retry-after-ms', () => {
    const error = new OpenAI.RateLimitError(
      429,
      { message: 'slow down' },
      undefined,
      new Headers({ 'retry-after-ms': '350', 'retry-after': '9' }),
    );
    expect(classifyLlmError(error, url)).toMatchObject({ retryAfterMs: 350 });
  });

  it('reads retry-after as an HTTP date', () => {
    const at = Date.now() + 60_000;
    const error = new OpenAI.RateLimitError(
      429,
      { message: 'slow down' },
      undefined,
      new Headers({ 'retry-after': new Date(at).toUTCString() }),
    );
    const fault = classifyLlmError(error, url);
    expect(fault.retryable && fault.retryAfterMs).toBeGreaterThan(55_000);
    expect(fault.retryable && fault.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('leaves retryAfterMs undefined without a usable header', () => {
    const error = new OpenAI.RateLimitError(429, { message: 'slow down' }, undefined, new Headers());
    const fault = classifyLlmError(error, url);
    expect(fault.retryable && fault.retryAfterMs).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each<{ h: Record<string, string>; want: number | undefined }>([
    { h: {}, want: undefined },
    { h: { 'retry-after': '2' }, want: 2000 },
    { h: { 'retry-after': '0.5' }, want: 500 },
    { h: { 'retry-after': '0' }, want: 0 },
    { h: { 'retry-after-ms': '1500' }, want: 1500 },
    { h: { 'retry-after-ms': '250', 'retry-after': '10' }, want: 250 },
    { h: { 'retry-after-ms': 'soon', 'retry-after': '3' }, want: 3000 },
    { h: { 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, want: 30_000 },
    { h: { 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, want: 0 },
    { h: { 'retry-after': 'whenever' }, want: undefined },
  ])('$h -> $want', ({ h, want }) => {
    expect(retryAfterMs(new Headers(h), now)).toBe(want);
  });

  it('is undefined without headers', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('costOf', () => {
  it.each([
    { usage: { promptTokens: 1_000_000, completionTokens: 0 }, prices: { inputPerMTok: 1.5, outputPerMTok: 2 }, want: 1.5 },
    { usage: { promptTokens: 0, completionTokens: 1_000_000 }, prices: { inputPerMTok: 1.5, outputPerMTok: 2 }, want: 2 },
    { usage: { promptTokens: 1000, completionTokens: 500 }, prices: { inputPerMTok: 1.5, outputPerMTok: 2 }, want: 0.0025 },
    { usage: { promptTokens: 2000, completionTokens: 3000 }, prices: { inputPerMTok: 10, outputPerMTok: 30 }, want: 0.11 },
    { usage: { promptTokens: 0, completionTokens: 0 }, prices: { inputPerMTok: 1.5, outputPerMTok: 2 }, want: 0 },
    { usage: { promptTokens: 123, completionTokens: 456 }, prices: { inputPerMTok: 0, outputPerMTok: 0 }, want: 0 },
  ])('$usage at $prices costs $want', ({ usage, prices, want }) => {
    expect(costOf(usage, prices)).toBeCloseTo(want, 12);
  });
});

describe('a run whose payloads would not fit Temporal', () => {
  const docMerge = TASKS['doc-merge']!;
  const merge = (count: number, chars: number): RunRequestInput => {
    const documents = Array.from({ length: count }, (_, i) =>
      `NON-DISCLOSURE AGREEMENT ${i}. ${'The receiving party shall keep the information confidential. '.repeat(Math.ceil(chars / 61))}`.slice(
        0,
        chars,
      ),
    );
    const problem = { documents };
    return { task: 'doc-merge', problem, goo: docMerge.schemes.got!({ size: count, problem }) };
  };

  it('is refused before it starts, naming the problem, the widest step and the limit', () => {
    // Eight documents of 95,000 characters: the judge scores ten aggregated merges at once, each call carrying all eight.
    const issues = validationIssues(() => checkRun(merge(8, 95_000)));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('problem');
    expect(issues[0]!.message).toMatch(
      /is 0\.76 MB, and operation "\S+" starts up to 10 LLM calls at once, each carrying it: 7\.\d\d MB in one workflow task, over the 3\.00 MB/,
    );
  });

  it('accepts it with a payload store: the documents are stored once and steps carry a reference', () => {
    expect(() => checkRun(merge(8, 95_000), { storeThreshold: 32 * 1024 })).not.toThrow();
  });

  it('accepts, with a store, even a very wide step: the Controller bounds what its calls carry inline', () => {
    const wide = { ...merge(8, 95_000), llm: { fanOut: 'perSample' as const } };
    wide.goo = { operations: [{ id: 'fan', type: 'generate', prompt: 'merge', k: 100 }] };
    expect(() => checkRun(wide, { storeThreshold: 32 * 1024 })).not.toThrow();
    expect(validationIssues(() => checkRun(wide)).map((i) => i.path)).toEqual(['problem']);
  });

  it('accepts the same merge when it fits', () => {
    expect(() => checkRun(merge(4, 20_000))).not.toThrow();
    expect(gooWidth(validateGoO(merge(8, 95_000).goo as GoO), false)).toEqual({ widestCalls: 10, widestOperation: expect.any(String) });
  });

  it('counts the calls of the widest step through the GoO (sorting GoT 128: 8 parts sorted at once)', () => {
    const goo = sortingTask.schemes.got!({ size: 128 });
    expect(gooWidth(validateGoO(goo), false).widestCalls).toBe(8);
    expect(gooWidth(validateGoO(goo), true).widestCalls).toBe(40); // 8 parts × k = 5 samples, one call each
  });
});
