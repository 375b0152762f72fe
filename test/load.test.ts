import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import type { RunResult } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

const RUNS = 200;
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

describe('load', () => {
  it(`${RUNS} GoT runs at once on one worker, with faults injected, all finish correctly and nothing answered is paid twice`, async () => {
    // One request in ten fails: rate limited (Retry-After 1 s), a server error, a reset or a broken body.
    h.llm.setFaultRates({ rateLimited: 0.03, serverError: 0.03, reset: 0.02, garbage: 0.02 }, 7, { retryAfterSeconds: 1 });
    try {
      const problems = Array.from({ length: RUNS }, (_, i) => sortingTask.generateProblem(32, 1000 + i));
      const handles = await Promise.all(
        problems.map((problem, i) =>
          startRun(
            h.client,
            { task: 'sorting', problem, goo: sortingTask.schemes.got!({ size: 32 }), labels: { scheme: 'got', sample: i } },
            { taskQueue: h.taskQueue },
          ),
        ),
      );
      const results: RunResult[] = await Promise.all(handles.map(resultOf));

      const stats = h.llm.stats();
      const faults = Object.values(stats.faults).reduce((a, b) => a + b, 0);
      expect(faults).toBeGreaterThan(20);
      for (const [i, r] of results.entries()) {
        expect(r.grs.calls).toHaveLength(5);
        expect(r.grs.operations.every((o) => o.status === 'done')).toBe(true);
        expect(r.best?.score).toBeTypeOf('number');
        expect(r.best!.state.unsorted).toEqual(problems[i]!.list);
      }
      // Every answered request is in exactly one run's GRS: retries only repeated requests that got no answer.
      const calls = results.reduce((n, r) => n + r.grs.calls.length, 0);
      expect(stats.completions).toBe(results.reduce((n, r) => n + r.grs.calls.reduce((m, c) => m + c.samples, 0), 0));
      expect(stats.requests).toBe(calls + faults);
      // Each refused request was sent again inside its call (decision 90), and its call's GRS entry counts it.
      const everyCall = results.flatMap((r) => r.grs.calls);
      expect(everyCall.every((c) => c.attempt === 1)).toBe(true);
      expect(everyCall.reduce((n, c) => n + (c.refused?.requests ?? 0), 0)).toBe(faults);
    } finally {
      h.llm.setFaultRates(undefined);
    }
  }, 300_000);
});
