import type { Info } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createActivities, type GotActivities, type LlmStep, type LlmStepResult, type PreparedRun } from '../activities';
import type { ValidationError } from '../src/goo/validate';
import type { ResponseCache } from '../src/llm/cache';
import { type Completion, LlmClient } from '../src/llm/client';
import { LlmSettings, type RunRequestInput } from '../src/run/request';
import { FAILURE } from '../src/run/wire';
import { sortingTask } from '../src/tasks/sorting';
import { SORTING_MARKERS } from '../src/tasks/sorting/prompts';
import { UNPARSEABLE_SCORE } from '../src/tasks/sorting/score';
import { eventually } from './support/faults';
import { type ScriptedLlm, startScriptedLlm } from './support/scripted-llm';

// How a step's result is read: the parsed thoughts per answer, and the local checks of each thought.
const thoughtsOf = (result: LlmStepResult) =>
  result.answers.map((thoughts) =>
    thoughts.map(({ state, valid, error }) => ({ state, valid, ...(error === undefined ? {} : { error }) })),
  );
const checksOf = (result: LlmStepResult) => result.answers.map((thoughts) => thoughts.map((t) => t.checks));

const API_KEY = 'sk-test-0123456789';
const UNSORTED = [3, 1, 2];

/** A sort step on one input thought, as the Controller sends it. */
function sortStep(o: Partial<LlmStep> = {}): LlmStep {
  return {
    task: 'sorting',
    purpose: 'generate',
    prompt: 'sort',
    params: {},
    thoughts: [sortingTask.rootState({ list: UNSORTED })],
    problem: { list: UNSORTED },
    samples: 1,
    llm: LlmSettings.parse({}),
    seed: 42,
    ...o,
  };
}

/** The ApplicationFailure an activity run fails with. */
async function failureOf(run: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

class MemoryCache implements ResponseCache {
  readonly entries = new Map<string, Completion>();
  async get(key: string) {
    return this.entries.get(key);
  }
  async put(key: string, completion: Completion) {
    this.entries.set(key, structuredClone(completion));
  }
}

describe('activities in a mock activity environment', () => {
  let llm: ScriptedLlm;
  let cache: MemoryCache;
  let activities: GotActivities;
  // Failing activities are the point of several tests: only errors are logged.
  const env = (info: Partial<Info> = {}) => new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  // The environment's `run` cannot infer an activity's result type; these name it once.
  const callLlm = (step: LlmStep, environment = env()) =>
    environment.run<[LlmStep], LlmStepResult, GotActivities['callLlm']>(activities.callLlm, step);
  const prepareRun = (input: unknown, environment = env()) =>
    environment.run<[unknown], PreparedRun, GotActivities['prepareRun']>(activities.prepareRun, input);

  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm?.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
    cache = new MemoryCache();
    activities = createActivities({
      llm: new LlmClient({ baseURL: llm.baseURL, apiKey: API_KEY, supportsN: true }),
      cache,
      heartbeatIntervalMs: 100,
    });
  });

  describe('callLlm', () => {
    it('sends the task prompt with the step settings and parses each answer into thoughts', async () => {
      llm.reply({
        choices: [{ content: '[1, 2, 3]' }, { content: 'Output: [1, 3, 2]' }],
        usage: { prompt_tokens: 1000, completion_tokens: 200 },
      });
      const result = await callLlm(sortStep({ samples: 2, llm: LlmSettings.parse({ maxTokens: 64, temperature: 0.5 }) }));

      expect(llm.requests).toHaveLength(1);
      const { body } = llm.requests[0]!;
      expect(body).toMatchObject({ model: 'sim-got-1', n: 2, seed: 42, temperature: 0.5, max_tokens: 64 });
      expect(body.messages).toHaveLength(1);
      expect(body.messages[0]!.role).toBe('user');
      expect(body.messages[0]!.content).toContain(SORTING_MARKERS.sort);
      expect(body.messages[0]!.content).toMatch(/Input: \[3, 1, 2\]$/);

      expect(thoughtsOf(result)).toEqual([
        [{ state: { unsorted: UNSORTED, list: [1, 2, 3] }, valid: true }],
        [{ state: { unsorted: UNSORTED, list: [1, 3, 2] }, valid: true }],
      ]);
      expect(result.usage).toEqual({ promptTokens: 1000, completionTokens: 200 });
      // Default prices: 1.5 USD per million input tokens, 2 per million output tokens.
      expect(result.costUsd).toBeCloseTo((1000 * 1.5 + 200 * 2) / 1e6, 12);
      expect(result.attempt).toBe(1);
      expect(result.faults).toBeUndefined();
      expect(result.cached).toBeUndefined();
    });

    it('computes the local checks on each new thought only when the step asks for them', async () => {
      const answers = { choices: [{ content: '[1, 2, 3]' }, { content: '[1, 3, 2]' }, { content: 'no idea' }] };
      llm.reply(answers, answers, answers);

      const unchecked = await callLlm(sortStep({ samples: 3 }));
      expect(checksOf(unchecked)).toEqual([[undefined], [undefined], [undefined]]);

      const checked = await callLlm(sortStep({ samples: 3, checks: ['score', 'validate', 'groundTruth'] }));
      expect(checksOf(checked)).toEqual([
        [{ score: 0, valid: true, solved: true }],
        // One pair out of order.
        [{ score: 1, valid: false, solved: false }],
        [{ score: UNPARSEABLE_SCORE, valid: false, solved: false }],
      ]);

      const scoreOnly = await callLlm(sortStep({ samples: 3, checks: ['score'] }));
      expect(checksOf(scoreOnly)).toEqual([[{ score: 0 }], [{ score: 1 }], [{ score: UNPARSEABLE_SCORE }]]);
    });

    it('turns an unusable answer into an invalid thought that says why', async () => {
      llm.reply({
        choices: [
          { content: 'I would rather not sort numbers today.' },
          { content: '   ' },
          { content: 'Output: [1, 2, 3]\nLet me check: [1, 2', finishReason: 'length' },
          { content: '', finishReason: 'content_filter' },
        ],
      });
      const result = await callLlm(sortStep({ samples: 4 }));
      const [unparseable, empty, truncated, refused] = thoughtsOf(result).map((thoughts) => {
        expect(thoughts).toHaveLength(1);
        return thoughts[0]!;
      });
      expect(unparseable).toMatchObject({ valid: false, error: expect.stringMatching(/no list of numbers/) });
      expect(empty).toMatchObject({ valid: false, error: 'the model returned an empty answer' });
      // A cut-off answer may still parse; when the cut broke a structure after it, it is not the model's whole answer (decision 66).
      expect(truncated).toMatchObject({ state: { list: [1, 2, 3] }, valid: false, error: 'answer truncated at max tokens' });
      expect(refused).toMatchObject({ valid: false, error: 'the model refused to answer (content filter)' });
      // The invalid thought keeps the problem part it was about.
      expect(empty!.state).toMatchObject({ unsorted: UNSORTED });
    });

    it('fails a rejected request (400) as non-retryable, without the API key in the message', async () => {
      llm.reply({ status: 400, message: `Invalid request for key ${API_KEY}` });
      const failure = await failureOf(callLlm(sortStep()));
      expect(failure.type).toBe(FAILURE.llmRequestRejected);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain('(400)');
      expect(failure.message).toContain(llm.baseURL);
      expect(failure.message).toContain('[redacted]');
      expect(failure.message).not.toContain(API_KEY);
    });

    it("sends a rate-limited request (429) again inside the call after the endpoint's Retry-After, and says so", async () => {
      llm.reply({ status: 429, message: 'slow down', headers: { 'retry-after': '0.4' } }, { choices: [{ content: '[1, 2, 3]' }] });
      const started = Date.now();
      const result = await callLlm(sortStep());
      expect(Date.now() - started).toBeGreaterThanOrEqual(380);
      expect(llm.requests).toHaveLength(2);
      expect(result.attempt).toBe(1);
      expect(result.refused).toEqual({ requests: 1, byKind: { '429': 1 }, waitedMs: 400 });
      expect(thoughtsOf(result)).toHaveLength(1);
    });

    it('gives up when a request is refused for llm.giveUpSeconds straight, naming the counts, and not to be retried', async () => {
      // No reply queued: the endpoint answers every request with a 500.
      const failure = await failureOf(callLlm(sortStep({ llm: LlmSettings.parse({ giveUpSeconds: 0.5 }) })));
      expect(failure.type).toBe(FAILURE.llmUnavailable);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toMatch(/gave up on http:.*refused or failed for 0.5 s without a break.*refused \d+ times \(\d+ × 500\)/);
      expect(llm.requests.length).toBeGreaterThanOrEqual(2);
      expect(llm.requests.length).toBeLessThan(8);
    });

    it('aborts the HTTP call when the activity is cancelled', async () => {
      llm.reply({ hold: true, choices: [{ content: '[1, 2, 3]' }] });
      const environment = env();
      const running = callLlm(sortStep(), environment);
      await eventually('the request to reach the endpoint', () => llm.requests.length === 1);
      environment.cancel();
      await expect(running).rejects.toBeInstanceOf(CancelledFailure);
      await eventually('the endpoint to see the client hang up', () => llm.requests[0]!.abandoned);
      llm.release();
    });

    it("carries the earlier attempts' faults in its heartbeats and its result", async () => {
      const earlier = ['attempt 1: rate limited', 'attempt 2: server error'];
      // Attempt 3 runs with what attempt 2 reported when it failed.
      const environment = env({ attempt: 3, heartbeatDetails: { attempt: 2, faults: earlier, failed: true } });
      const beats: unknown[] = [];
      environment.on('heartbeat', (details: unknown) => beats.push(details));
      llm.reply({ hold: true, choices: [{ content: '[1, 2, 3]' }] });
      const running = callLlm(sortStep(), environment);
      await eventually('a heartbeat during the call', () => beats.length > 0);
      llm.release();
      const result = await running;
      expect(beats[0]).toEqual({ attempt: 3, faults: earlier });
      expect(result.attempt).toBe(3);
      expect(result.faults).toEqual(earlier);
    });

    it('asks only for the samples an earlier attempt did not receive, and pays only for those', async () => {
      // Attempt 1 received the first of three one-sample requests (seed 42) before its worker was lost.
      const progress = {
        answered: [
          { seed: 42, model: 'm', choices: [{ text: '[1, 2, 3]', finish: 'stop' }], usage: { promptTokens: 10, completionTokens: 5 } },
        ],
        round: { seeds: [42, 43, 44], n: 1 },
      };
      const environment = env({ attempt: 2, heartbeatDetails: { attempt: 1, faults: [], progress } });
      llm.reply({ choices: [{ content: '[1, 3, 2]' }] }, { choices: [{ content: '[2, 1, 3]' }] });
      const result = await callLlm(sortStep({ samples: 3, llm: LlmSettings.parse({ fanOut: 'perSample' }) }), environment);
      expect(llm.requests.map((r) => r.body.seed).sort()).toEqual([43, 44]);
      expect(result.resumed).toBe(1);
      // The kept sample first, in seed order; its tokens were paid by attempt 1 and are counted once.
      expect(result.answers.map((a) => a[0]!.state.list)).toEqual([
        [1, 2, 3],
        [1, 3, 2],
        [2, 1, 3],
      ]);
      expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 15 });
    });

    it("reports the prompt tokens the endpoint took from its cache, as part of the prompt's", async () => {
      llm.reply({
        choices: [{ content: '[1, 2, 3]' }],
        usage: { prompt_tokens: 120, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 96 } },
      });
      const result = await callLlm(sortStep());
      expect(result.usage).toEqual({ promptTokens: 120, completionTokens: 7, cachedPromptTokens: 96 });
    });

    it('counts an attempt that left no fault behind as one that timed out', async () => {
      // Attempt 1 beat once and was never heard of again; attempt 2 never beat at all.
      const environment = env({ attempt: 3, heartbeatDetails: { attempt: 1, faults: [] } });
      llm.reply({ choices: [{ content: '[1, 2, 3]' }] });
      const result = await callLlm(sortStep(), environment);
      expect(result.faults).toEqual([
        'attempt 1: no answer before the call timed out (or its worker was lost)',
        'attempt 2: no answer before the call timed out (or its worker was lost)',
      ]);
    });

    it('adds its own fault to the heartbeat details the next attempt gets', async () => {
      const environment = env({ attempt: 2, heartbeatDetails: { attempt: 1, faults: ['attempt 1: reset'], failed: true } });
      const beats: unknown[] = [];
      environment.on('heartbeat', (details: unknown) => beats.push(details));
      llm.reply({ status: 401, message: 'bad key' });
      await failureOf(callLlm(sortStep(), environment));
      expect(beats.at(-1)).toEqual({ attempt: 2, faults: ['attempt 1: reset', expect.stringMatching(/^attempt 2: .*401/)], failed: true });
    });

    it('serves a repeated call from the response cache: no request, no usage, no cost', async () => {
      llm.reply({ choices: [{ content: '[1, 2, 3]' }] });
      const step = sortStep({ llm: LlmSettings.parse({ cache: true }) });
      const first = await callLlm(step);
      const second = await callLlm(step);
      expect(llm.requests).toHaveLength(1);
      expect(cache.entries.size).toBe(1);
      expect(first.cached).toBeUndefined();
      expect(second).toMatchObject({ cached: true, usage: { promptTokens: 0, completionTokens: 0 }, costUsd: 0 });
      expect(thoughtsOf(second)).toEqual(thoughtsOf(first));
    });

    it('does not use the cache for a run that did not ask for it', async () => {
      llm.reply({ choices: [{ content: '[1, 2, 3]' }] }, { choices: [{ content: '[1, 2, 3]' }] });
      await callLlm(sortStep());
      const again = await callLlm(sortStep());
      expect(llm.requests).toHaveLength(2);
      expect(cache.entries.size).toBe(0);
      expect(again.cached).toBeUndefined();
    });
  });

  describe('prepareRun', () => {
    const request = (o: Partial<RunRequestInput> = {}): RunRequestInput => ({
      task: 'sorting',
      problem: { list: [5, 4, 6, 1] },
      goo: sortingTask.schemes.io!({ size: 4 }),
      ...o,
    });

    it("returns the problem's root thought and the checked request without its problem", async () => {
      const prepared = await prepareRun(request());
      expect(prepared.rootState).toEqual({ unsorted: [5, 4, 6, 1], list: [5, 4, 6, 1] });
      expect(prepared.higherIsBetter).toBe(false);
      expect(prepared.request).toMatchObject({ task: 'sorting', seed: 0 });
      expect(prepared.request).not.toHaveProperty('problem');
    });

    it('refuses a bad request with a non-retryable ValidationError naming the field', async () => {
      const failure = await failureOf(prepareRun(request({ problem: { list: [5] } })));
      expect(failure.type).toBe(FAILURE.validation);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain('problem.list');
      const issues = failure.details?.[0] as ValidationError['issues'];
      expect(issues).toContainEqual({ path: 'problem.list', message: expect.stringMatching(/at least 2/) });
    });
  });
});
