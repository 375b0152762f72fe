import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LlmStepResult } from '../activities';
import type { Grs } from '../src/grs/types';
import { rebuildGrs, runRequestOf } from '../src/inspect/rebuild';
import { checkRun } from '../src/run/check';
import type { HumanScores, ReviewDecisions, RunResult } from '../src/run/request';
import { PATCH } from '../src/run/wire';
import { bundleGotWorkflows } from '../worker/create';

/**
 * Replay safety: the histories in test/fixtures/histories were recorded by real runs of earlier
 * builds of the Controller (scripts/record-histories.ts), one folder per generation: each
 * deliberate, patched change of the workflow adds a generation and keeps the older ones. Every
 * history must still replay without a nondeterminism error against the current workflow code, or a
 * worker upgrade would break every run in flight.
 */

type History = temporal.api.history.v1.IHistory;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const FIXTURES = fileURLToPath(new URL('./fixtures/histories/', import.meta.url));
/**
 * Recorded before the fast-steps patch (request parsed in the workflow, local activities for
 * checks), then with it (LLM results carrying checks as a parallel array), then with each thought
 * carrying its own checks, then with steps that re-ask unusable answers (the `reask-unusable` patch),
 * then with large problems passed to steps by reference (the `claim-check` patch; recorded without a
 * store, so the fixtures hold every payload). These record the standard runs; the generation since
 * forEach records only runs that grow their graph: forEach changed nothing a GoO without it
 * schedules, so it needed no patch. The generation since requests may name a scheme records every
 * run (standard, forEach, and runs named by scheme, one refused): expanding a scheme happens inside
 * the `prepareRun` local activity every run already had, so it needed no patch either.
 */
const STANDARD_GENERATIONS = [
  '1-before-fast-steps',
  '2-fast-steps',
  '3-thought-checks',
  '4-reask-unusable',
  '6-claim-check',
  '7-scheme-by-name',
];
const GENERATIONS = [
  ...STANDARD_GENERATIONS,
  '5-for-each',
  '8-answer-review',
  '9-samples-together',
  '10-parts-in-children',
  '11-steering',
].sort();
const REORDERED_WORKFLOW = fileURLToPath(new URL('./fixtures/reordered-workflow.ts', import.meta.url));
const RUNS = [
  'doc-merge-got-4',
  'doc-merge-got2-4',
  'keyword-counting-got4-8',
  'set-intersection-got-32',
  'sorting-got-32',
  'sorting-got-32-failed',
  'sorting-human-32',
];
/** A forEach over the LLM split's thoughts; nested forEach operations over the task's splits, with a kept part. */
const FOR_EACH_RUNS = ['sorting-foreach-32', 'sorting-foreach-nested-64'];
/** Requests that named a scheme instead of sending a GoO: the paper's GoT, a tuned ToT, and an unknown scheme the worker refused. */
const SCHEME_RUNS = ['sorting-got-32-by-name', 'sorting-tot-32-tuned-by-name', 'sorting-unknown-scheme-failed'];
/** Merges reviewed by the engine (the `answer-review` patch): one as it came, one decided by a person through the update. */
const REVIEW_RUNS = ['doc-merge-io-4-decided', 'doc-merge-io-4-reviewed'];
/** GoT sorting with every sample its own request: k calls before the `samples-together` patch, one call of k requests since. */
const PER_SAMPLE_RUN = 'sorting-got-32-per-sample';
/** A sorting whose forEach parts ran in child workflows (the `parts-in-children` patch); its workflow id is its fixture name. */
const CHILDREN_RUN = 'sorting-parts-in-children';
/** A GoT sorting paused, given a budget and resumed by the `steer` update (the `steering` patch, decision 100). */
const STEERED_RUN = 'sorting-got-32-steered';
const runsOf = (generation: string) =>
  generation === '11-steering'
    ? [STEERED_RUN]
    : generation === '10-parts-in-children'
      ? [CHILDREN_RUN]
      : generation === '9-samples-together'
        ? [PER_SAMPLE_RUN]
        : generation === '8-answer-review'
          ? [...REVIEW_RUNS, PER_SAMPLE_RUN].sort()
          : generation === '5-for-each'
            ? FOR_EACH_RUNS
            : generation === '7-scheme-by-name'
              ? [...RUNS, ...FOR_EACH_RUNS, ...SCHEME_RUNS].sort()
              : RUNS;
const EXPECTED = GENERATIONS.flatMap((g) => runsOf(g).map((r) => `${g}/${r}`));

const fixtures: { name: string; history: History }[] = GENERATIONS.flatMap((g) =>
  readdirSync(`${FIXTURES}${g}`)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({
      name: `${g}/${f.replace(/\.json$/, '')}`,
      history: historyFromJSON(JSON.parse(readFileSync(`${FIXTURES}${g}/${f}`, 'utf8'))),
    })),
).sort((a, b) => (a.name < b.name ? -1 : 1));
const fixture = (name: string) => fixtures.find((f) => f.name === name)!.history;
const patchesOf = (history: History): string[] =>
  history.events!.flatMap((e) => {
    const data =
      e.markerRecordedEventAttributes?.markerName === 'core_patch'
        ? e.markerRecordedEventAttributes.details?.['patch-data']?.payloads?.[0]
        : undefined;
    return data ? [defaultPayloadConverter.fromPayload<{ id: string }>(data).id] : [];
  });

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
  if (!Runtime._instance)
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  bundle = await bundleGotWorkflows();
});

describe('recorded histories replay against the current Controller', () => {
  it("has, in every standard generation, a fixture for every task's GoT scheme, a failed run and a human-scored run; then runs that grow", () => {
    expect(fixtures.map((f) => f.name)).toEqual(EXPECTED);
    for (const { name, history } of fixtures) {
      // A request refused before any LLM call ends in a few events.
      expect(history.events!.length, name).toBeGreaterThan(name.endsWith('unknown-scheme-failed') ? 5 : 10);
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

  it('covers both paths of the Controller: runs recorded before PATCH.fastSteps and runs recorded with it', () => {
    const localChecks = (history: History) =>
      history.events!.filter((e) => /^(scoreThoughts|validateThoughts|checkGroundTruth)$/.test(localActivityType(e) ?? '')).length;
    for (const { name, history } of fixtures) {
      const patches = name.startsWith('1-')
        ? []
        : name.startsWith('11-')
          ? [PATCH.steering]
          : name.startsWith('10-')
            ? [PATCH.partsInChildren]
            : name.startsWith('9-')
              ? [PATCH.samplesTogether]
              : name.startsWith('8-')
                ? [PATCH.answerReview]
                : /^[45]-/.test(name)
                  ? [PATCH.reask]
                  : /^[67]-/.test(name)
                    ? [PATCH.claimCheck]
                    : [PATCH.fastSteps];
      expect(patchesOf(history), name).toEqual(patches);
      // With the patch, thoughts are checked by the LLM step that made them: no local activity does it.
      if (!name.startsWith('1-')) expect(localChecks(history), name).toBe(0);
    }
    expect(localChecks(fixture('1-before-fast-steps/sorting-got-32'))).toBeGreaterThan(3);
  });

  it('covers both shapes of LLM step results: checks matched by index, and checks carried by each thought', () => {
    const shapes = (generation: string) =>
      fixtures
        .filter((f) => f.name.startsWith(`${generation}/`))
        .flatMap((f) => llmStepResults(f.history))
        .map((r) => (r.checks ? 'by index' : r.answers.flat().some((t) => t.checks) ? 'per thought' : 'none'));
    // Runs whose GoO uses no local check (doc-merge judges with the LLM) carry none in either shape.
    expect(shapes('2-fast-steps')).toContain('by index');
    expect(shapes('2-fast-steps')).not.toContain('per thought');
    expect(shapes('3-thought-checks')).toContain('per thought');
    expect(shapes('3-thought-checks')).not.toContain('by index');
  });

  it.each(EXPECTED.filter((n) => !n.endsWith('-failed')))(
    'rebuilds the GRS of %s from its history, equal to the GRS the run returned',
    async (name) => {
      const history = fixture(name);
      const result = completedResult(history);
      expect(result, 'the run completed').toBeDefined();
      const grs = await rebuildGrs(history, { workflowBundle: bundle });
      // The total cost is rounded to 1e-12 USD since the recorded runs returned theirs (the same calls
      // summed in another order differ in the last bits): equal to that, the rest exactly.
      const { totals, ...rest } = grs;
      const { totals: recordedTotals, ...recordedRest } = result!.grs;
      expect(rest).toEqual(recordedRest);
      expect({ ...totals, costUsd: 0 }).toEqual({ ...recordedTotals, costUsd: 0 });
      expect(totals.costUsd).toBeCloseTo(recordedTotals.costUsd, 12);
      expect(grs.operations.every((o) => o.status === 'done')).toBe(true);
      // An IO merge has the problem and one merged thought; every other recorded run has more.
      expect(grs.thoughts.length).toBeGreaterThan(name.includes('-io-') ? 1 : 3);
      expect(grs.calls.length).toBeGreaterThan(0);
    },
  );

  it.each(STANDARD_GENERATIONS)(
    'rebuilds the partial GRS of the failed run (%s), naming the operation the run failed in',
    async (generation) => {
      const history = fixture(`${generation}/sorting-got-32-failed`);
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
    },
  );

  it.each(STANDARD_GENERATIONS)('rebuilds the human scores from the accepted update (%s)', async (generation) => {
    const history = fixture(`${generation}/sorting-human-32`);
    const accepted = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(1);
    const sent = defaultPayloadConverter.fromPayload<HumanScores>(
      accepted[0]!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0]!,
    );
    const grs: Grs = await rebuildGrs(history, { workflowBundle: bundle });
    const rate = grs.operations.find((o) => o.id === 'rate')!;
    expect(rate.note).toBe(`scored by ${sent.by}`);
    expect(Object.fromEntries(rate.inputThoughts.map((id) => [id, grs.thoughts.find((t) => t.id === id)!.score]))).toEqual(sent.scores);
    const best = Object.entries(sent.scores).sort((a, b) => b[1] - a[1])[0]![0];
    expect(grs.operations.find((o) => o.id === 'best')!.outputThoughts).toEqual([best]);
  });
});

describe('recorded runs that grew their graph', () => {
  it('rebuild every grown operation with its forEach, part and inputs, the splits from their recorded local activities', async () => {
    const history = fixture('5-for-each/sorting-foreach-nested-64');
    const grs = await rebuildGrs(history, { workflowBundle: bundle });
    const grown = grs.operations.filter((o) => o.grownBy !== undefined);
    expect(grown.map((o) => o.id)).toEqual(expect.arrayContaining(['halves[0].quarters', 'halves[1].quarters[1].sort', 'halves[1].merge']));
    for (const o of grown) {
      expect(o.id.startsWith(`${o.grownBy}[${o.part}].`), o.id).toBe(true);
      for (const input of o.inputs!) expect(input.startsWith(`${o.grownBy}[${o.part}].`), `${o.id} <- ${input}`).toBe(true);
    }
    // Every split ran once, in a local activity whose result history keeps: prepareRun, then halves, two quarters, repair.
    const splits = history.events!.filter((e) => localActivityType(e) === 'splitThoughts');
    expect(splits).toHaveLength(4);
    expect(grs.operations.find((o) => o.id === 'repair')!.parts!.some((p) => p.kept)).toBe(true);
    expect(grs.operations.find((o) => o.id === 'repair')!.parts!.some((p) => !p.kept)).toBe(true);
  });
});

describe('recorded merges the engine reviewed', () => {
  it('rebuilds the review from history: each clause traced, the disagreements, and the decisions of the accepted update applied', async () => {
    const reviewed = await rebuildGrs(fixture('8-answer-review/doc-merge-io-4-reviewed'), { workflowBundle: bundle });
    expect(reviewed.review!.counts.clauses).toBeGreaterThan(5);
    expect(reviewed.review!.clauses).toHaveLength(reviewed.review!.counts.clauses);
    expect(reviewed.review!.decisions).toBeUndefined();

    const history = fixture('8-answer-review/doc-merge-io-4-decided');
    const accepted = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(1);
    const sent = defaultPayloadConverter.fromPayload<ReviewDecisions>(
      accepted[0]!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0]!,
    );
    const grs = await rebuildGrs(history, { workflowBundle: bundle });
    expect(grs.review!.decisions).toEqual(sent.decisions);
    const decision = sent.decisions[0]!;
    const chosen = 'document' in decision.choose ? decision.choose.document : -1;
    const disagreement = reviewed.review!.disagreements.find((d) => d.id === decision.id)!;
    const value = disagreement.values.find((v) => v.document === chosen)!.value;
    // The decided merge states the chosen value for that term, and the review of it says so.
    expect(grs.review!.decidedText).toContain(value.text);
    const after = grs.review!.disagreements.find((d) => d.topic === disagreement.topic && d.kind === disagreement.kind);
    expect(after?.kept.map((k) => k.normalized)).toContain(value.normalized);
  });
});

describe('recorded runs that asked each sample as its own request', () => {
  it('made k calls of one sample each before the samples-together patch, and one call of k samples, k requests, since; both rebuild', async () => {
    const before = fixture(`8-answer-review/${PER_SAMPLE_RUN}`);
    const since = fixture(`9-samples-together/${PER_SAMPLE_RUN}`);
    expect(patchesOf(before)).not.toContain(PATCH.samplesTogether);
    expect(patchesOf(since)).toContain(PATCH.samplesTogether);
    const old = await rebuildGrs(before, { workflowBundle: bundle });
    const now = await rebuildGrs(since, { workflowBundle: bundle });
    expect(old.calls.every((c) => c.samples === 1)).toBe(true);
    expect(now.calls.some((c) => c.samples > 1)).toBe(true);
    // The same graph either way: as many samples asked, as many thoughts made, a fifth or fewer of the activities.
    const asked = (g: Grs) => g.calls.reduce((s, c) => s + c.samples, 0);
    expect(asked(now)).toBe(asked(old));
    expect(now.thoughts.length).toBe(old.thoughts.length);
    const activities = (h: History) => h.events!.filter((e) => e.activityTaskScheduledEventAttributes).length;
    expect(activities(since)).toBeLessThan(activities(before) / 3);
  });
});

describe('recorded runs that named their scheme', () => {
  const scheduled = (history: History) =>
    history.events!.flatMap((e) => {
      const type = e.activityTaskScheduledEventAttributes?.activityType?.name ?? localActivityType(e);
      return type ? [type] : [];
    });

  it('ran the GoO the worker expanded, with the same steps as a run that sent it, and read back as if it had been sent', async () => {
    const byName = fixture('7-scheme-by-name/sorting-got-32-by-name');
    const sent = fixture('7-scheme-by-name/sorting-got-32');
    const input = await runRequestOf(byName);
    expect(input.scheme).toBeUndefined();
    expect(input.goo).toEqual(checkRun({ task: 'sorting', problem: input.problem, scheme: { name: 'got' } }).request.goo);
    expect(input.labels).toEqual({ scheme: 'got', size: 32, sample: 3 });
    expect(input.goo).toEqual((await runRequestOf(sent)).goo);
    expect(scheduled(byName)).toEqual(scheduled(sent));
    expect(completedResult(byName)!.grs.operations.map((o) => o.id)).toEqual(completedResult(sent)!.grs.operations.map((o) => o.id));
  });

  it('refused an unknown scheme in prepareRun, before any LLM call, as a ValidationError naming scheme.name', () => {
    const history = fixture('7-scheme-by-name/sorting-unknown-scheme-failed');
    expect(scheduled(history)).toEqual(['prepareRun']);
    const failure = lastEvent(history).workflowExecutionFailedEventAttributes?.failure;
    expect(failure?.applicationFailureInfo?.type).toBe('ValidationError');
    expect(failure?.message).toMatch(/scheme\.name: task "sorting" has no scheme "magic"/);
  });
});

describe('the replay test catches an incompatible Controller', () => {
  it('fails to replay a recorded run against a Controller that schedules its activities in another order', async () => {
    const reordered = await bundleWorkflowCode({ workflowsPath: REORDERED_WORKFLOW, logger: quietLogger });
    const results = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: reordered, replayName: 'replay-reordered', sinks: noSinks }, [
      { workflowId: 'sorting-got-32', history: fixture('2-fast-steps/sorting-got-32') },
    ])) {
      results.push(r);
    }
    expect(results).toHaveLength(1);
    const error = results[0]!.error;
    expect(error).toBeInstanceOf(DeterminismViolationError);
    expect(error!.message).toMatch(/nondeterminism/i);
    // The same history replays cleanly against the real Controller (see above), so the alteration is what broke it.
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: reordered, replayName: 'replay-reordered-single', sinks: noSinks },
        fixture('2-fast-steps/sorting-got-32'),
      ),
    ).rejects.toThrow(DeterminismViolationError);
  });
});

/** The results of a history's LLM steps (`callLlm` activities), as the workflow received them. */
function llmStepResults(history: History): LlmStepResult[] {
  const events = history.events!;
  const scheduled = new Map(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name]),
  );
  return events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    if (!done || scheduled.get(String(done.scheduledEventId)) !== 'callLlm') return [];
    return [defaultPayloadConverter.fromPayload<LlmStepResult>(done.result!.payloads![0]!)];
  });
}

/** The activity type of a local activity's marker (Core writes it in the marker's bookkeeping). */
function localActivityType(e: HistoryEvent): string | undefined {
  const m = e.markerRecordedEventAttributes;
  const data = m?.markerName === 'core_local_activity' ? m.details?.data?.payloads?.[0] : undefined;
  return data ? defaultPayloadConverter.fromPayload<{ activity_type?: string }>(data).activity_type : undefined;
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};
