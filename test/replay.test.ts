import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Grs } from '../src/grs/types';
import { rebuildGrs } from '../src/inspect/rebuild';
import type { HumanScores, RunResult } from '../src/run/request';
import { bundleGotWorkflows } from '../worker/create';

/**
 * Replay safety: the histories in test/fixtures/histories were recorded by real runs of an
 * earlier build of the Controller (scripts/record-histories.ts). Every one must still replay
 * without a nondeterminism error against the current workflow code, or a worker upgrade would
 * break every run in flight. Re-record only with a deliberate, versioned (patched) change.
 */

type History = temporal.api.history.v1.IHistory;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const FIXTURES = fileURLToPath(new URL('./fixtures/histories/', import.meta.url));
const REORDERED_WORKFLOW = fileURLToPath(new URL('./fixtures/reordered-workflow.ts', import.meta.url));
const EXPECTED = [
  'doc-merge-got-4',
  'doc-merge-got2-4',
  'keyword-counting-got4-8',
  'set-intersection-got-32',
  'sorting-got-32',
  'sorting-got-32-failed',
  'sorting-human-32',
];

const fixtures: { name: string; history: History }[] = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f.replace(/\.json$/, ''), history: historyFromJSON(JSON.parse(readFileSync(`${FIXTURES}${f}`, 'utf8'))) }))
  .sort((a, b) => (a.name < b.name ? -1 : 1));
const fixture = (name: string) => fixtures.find((f) => f.name === name)!.history;

const lastEvent = (history: History): HistoryEvent => history.events!.at(-1)!;
const completedResult = (history: History): RunResult | undefined => {
  const payload = lastEvent(history).workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload<RunResult>(payload) : undefined;
};

// The Controller reports GRS facts to this sink only while replaying; a replay worker must provide it.
const noSinks = { grsReplay: { fact: { fn: () => undefined, callDuringReplay: false } } };

let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  // The nondeterminism this file provokes on purpose would otherwise be logged as warnings by the SDK's core.
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  bundle = await bundleGotWorkflows();
});

describe('recorded histories replay against the current Controller', () => {
  it('has a fixture for every task\'s GoT scheme, a failed run and a human-scored run', () => {
    expect(fixtures.map((f) => f.name)).toEqual(EXPECTED);
    for (const { name, history } of fixtures) {
      expect(history.events!.length, name).toBeGreaterThan(10);
      expect(history.events![0]!.workflowExecutionStartedEventAttributes?.workflowType?.name, name).toBe('graphOfThoughts');
    }
  });

  it('replays every history without a nondeterminism or replay error', async () => {
    const results: { workflowId: string; error?: Error }[] = [];
    const replay = Worker.runReplayHistories(
      { workflowBundle: bundle, replayName: 'replay-safety', sinks: noSinks },
      fixtures.map((f) => ({ workflowId: f.name, history: f.history })),
    );
    for await (const result of replay) results.push({ workflowId: result.workflowId, ...(result.error ? { error: result.error } : {}) });
    expect(results.map((r) => r.workflowId)).toEqual(EXPECTED);
    for (const r of results) expect(r.error?.message, r.workflowId).toBeUndefined();
  });

  it.each(EXPECTED.filter((n) => !n.endsWith('-failed')))('rebuilds the GRS of %s from its history, equal to the GRS the run returned', async (name) => {
    const history = fixture(name);
    const result = completedResult(history);
    expect(result, 'the run completed').toBeDefined();
    const grs = await rebuildGrs(history, { workflowBundle: bundle });
    expect(grs).toEqual(result!.grs);
    expect(grs.operations.every((o) => o.status === 'done')).toBe(true);
    expect(grs.thoughts.length).toBeGreaterThan(3);
    expect(grs.calls.length).toBeGreaterThan(0);
  });

  it('rebuilds the partial GRS of the failed run, naming the operation the run failed in', async () => {
    const history = fixture('sorting-got-32-failed');
    const failure = lastEvent(history).workflowExecutionFailedEventAttributes?.failure;
    expect(failure?.message).toMatch(/^run failed in operation (\S+): .*401/);
    const failedOp = /^run failed in operation (\S+):/.exec(failure!.message!)![1];
    const grs = await rebuildGrs(history, { workflowBundle: bundle });
    expect(grs.operations.find((o) => o.id === 'split')!.status).toBe('done');
    expect(grs.thoughts.filter((t) => t.operationId === 'split')).toHaveLength(2);
    const failed = grs.operations.filter((o) => o.status === 'failed');
    expect(failed.map((o) => o.id)).toEqual([failedOp]);
    expect(failed[0]!.note).toMatch(/API key rejected/);
    // Operations after the failure never started.
    expect(grs.operations.find((o) => o.id === 'final')!.status).toBe('pending');
  });

  it('rebuilds the human scores from the accepted update', async () => {
    const history = fixture('sorting-human-32');
    const accepted = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(1);
    const sent = defaultPayloadConverter.fromPayload<HumanScores>(accepted[0]!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0]!);
    const grs: Grs = await rebuildGrs(history, { workflowBundle: bundle });
    const rate = grs.operations.find((o) => o.id === 'rate')!;
    expect(rate.note).toBe(`scored by ${sent.by}`);
    expect(Object.fromEntries(rate.inputThoughts.map((id) => [id, grs.thoughts.find((t) => t.id === id)!.score]))).toEqual(sent.scores);
    const best = Object.entries(sent.scores).sort((a, b) => b[1] - a[1])[0]![0];
    expect(grs.operations.find((o) => o.id === 'best')!.outputThoughts).toEqual([best]);
  });
});

describe('the replay test catches an incompatible Controller', () => {
  it('fails to replay a recorded run against a Controller that schedules its activities in another order', async () => {
    const reordered = await bundleWorkflowCode({ workflowsPath: REORDERED_WORKFLOW, logger: quietLogger });
    const results = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: reordered, replayName: 'replay-reordered', sinks: noSinks }, [
      { workflowId: 'sorting-got-32', history: fixture('sorting-got-32') },
    ])) {
      results.push(r);
    }
    expect(results).toHaveLength(1);
    const error = results[0]!.error;
    expect(error).toBeInstanceOf(DeterminismViolationError);
    expect(error!.message).toMatch(/nondeterminism/i);
    // The same history replays cleanly against the real Controller (see above), so the alteration is what broke it.
    await expect(Worker.runReplayHistory({ workflowBundle: reordered, replayName: 'replay-reordered-single', sinks: noSinks }, fixture('sorting-got-32'))).rejects.toThrow(DeterminismViolationError);
  });
});

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};
