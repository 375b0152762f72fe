import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryProgress, resultOf, startRun, webUiLink } from '../src/client/runs';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { LlmCall } from '../src/grs/types';
import type { Progress, RunRequestInput, RunResult } from '../src/run/request';
import { GOT_SEARCH_ATTRIBUTES as SA } from '../src/run/search-attributes';
import { sortingTask } from '../src/tasks/sorting';
import { launchBrowser } from './support/browser';
import { type Harness, startHarness } from './support/harness';
import { startUiStack, type UiStack } from './support/ui-server';

/**
 * What the Web UI shows of a run: a readable workflow id, typed search attributes to filter by
 * (client API, the `temporal` CLI, the UI's run list), a summary on every LLM activity naming its
 * operation and input thoughts, and the run's progress as its current details. The first part uses
 * the shared headless test server; the browser part starts a dev server of its own with the UI on.
 */

const ARTIFACTS = resolve('test-artifacts');
const EventType = temporal.api.enums.v1.EventType;
const run = promisify(execFile);

const SORTING_GOT_32 = (sample: number): RunRequestInput => ({
  task: 'sorting',
  problem: sortingTask.generateProblem(32, sample),
  goo: sortingTask.schemes.got!({ size: 32 }),
  labels: { scheme: 'got', size: 32, sample },
});
/** Operations of sorting/got/32 that call the LLM, and how many operations the GoO has. */
const LLM_OPERATIONS = ['split', 'sort-1', 'sort-2', 'merge-1', 'improve-1'];
/** Latency of the simulated LLM for runs observed while they run. */
const SLOW_MS = 1500;
const OPERATIONS = sortingTask.schemes.got!({ size: 32 }).operations.length;

interface WorkflowMetadata {
  definition: { type: string; queryDefinitions: { name: string }[] };
  currentDetails: string;
}
const metadataOf = (handle: WorkflowHandle) => handle.query<WorkflowMetadata>('__temporal_workflow_metadata');

/** Polls `probe` until it returns something other than undefined (visibility and the UI are eventually consistent). */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}${last ? `; last error: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}

/** The `userMetadata.summary` of every ActivityTaskScheduled event, decoded, with its activity type. */
async function scheduledActivities(handle: WorkflowHandle): Promise<{ type: string; summary: string | undefined }[]> {
  const { events } = await handle.fetchHistory();
  return events!
    .filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    .map((e) => ({
      type: e.activityTaskScheduledEventAttributes!.activityType!.name!,
      summary: e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary as Payload) : undefined,
    }));
}

/** The summaries that name this call's operation (as their first word) and every thought it reads: exactly one is expected. */
function summariesOf(call: LlmCall, summaries: string[]): string[] {
  return summaries.filter(
    (s) =>
      s.startsWith(`${call.operationId}: `) && call.inputThoughts.every((t) => new RegExp(`(^|[\\s,])${escapeRe(t)}(,|\\s|$)`).test(s)),
  );
}
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first line of the current details: `**done of total operations done** · n LLM calls · t tokens · $c`. */
const DETAILS_HEAD = /^\*\*(\d+) of (\d+) operations done\*\* · (\d+) LLM calls? · (\d+) tokens · \$(\d+\.\d{4})/;

async function listIds(client: Client, query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId);
  return ids;
}

describe('runs as the Web UI and `temporal workflow list` see them (client API)', () => {
  let h: Harness;
  let handle: WorkflowHandle;
  let result: RunResult;
  const slowRuns: WorkflowHandle[] = [];

  beforeAll(async () => {
    h = await startHarness();
    handle = await startRun(h.client, SORTING_GOT_32(3), { taskQueue: h.taskQueue });
    result = await resultOf(handle);
  });
  afterAll(async () => {
    for (const slow of slowRuns) await slow.terminate('test cleanup').catch(() => undefined);
    h?.llm.setLatency(0);
    await h?.close();
  });

  it('gives a run a workflow id that says what it is', () => {
    expect(handle.workflowId).toMatch(/^got-sorting-got-32-s3-/);
    // The rest is a timestamp (and possibly a uniqueness suffix): nothing random in front of it.
    expect(handle.workflowId).toMatch(/^got-sorting-got-32-s3-\d{8}T\d{9}(-[0-9a-f]+)?$/);
  });

  it('sets the typed search attributes task, scheme, status, cost and best score on a completed run', async () => {
    const { typedSearchAttributes: typed, searchAttributes } = await handle.describe();
    expect(typed.get(SA.task)).toBe('sorting');
    expect(typed.get(SA.scheme)).toBe('got');
    expect(typed.get(SA.status)).toBe('completed');
    expect(result.grs.totals.costUsd).toBeGreaterThan(0);
    expect(typed.get(SA.costUsd)).toBeCloseTo(Math.round(result.grs.totals.costUsd * 1e6) / 1e6, 6);
    expect(result.best).toBeDefined();
    expect(typed.get(SA.bestScore)).toBe(result.best!.score);
    // The untyped view agrees (it is what older tools read).
    expect(searchAttributes.GotTask).toEqual(['sorting']);
    expect(searchAttributes.GotStatus).toEqual(['completed']);
  });

  it('finds the run by its search attributes through the client API', async () => {
    const query = `GotTask='sorting' AND GotScheme='got' AND GotStatus='completed'`;
    const ids = await until('the run in the visibility store', async () => {
      const found = await listIds(h.client, query);
      return found.includes(handle.workflowId) ? found : undefined;
    });
    expect(ids).toContain(handle.workflowId);
    // Numeric attributes filter too, and a wrong value excludes the run.
    const mine = `WorkflowId='${handle.workflowId}'`;
    expect(await listIds(h.client, `${mine} AND GotCostUsd > 0 AND GotBestScore = ${result.best!.score}`)).toEqual([handle.workflowId]);
    expect(await listIds(h.client, `${mine} AND GotStatus='failed'`)).toEqual([]);
    expect(await listIds(h.client, `${mine} AND GotScheme='tot'`)).toEqual([]);
  });

  it('finds the run by its search attributes with `temporal workflow list --query`', async () => {
    const binary = await ensureTemporalCli();
    const address = inject('temporalAddress');
    const query = `GotTask='sorting' AND GotScheme='got' AND GotStatus='completed' AND WorkflowId='${handle.workflowId}'`;
    const rows = await until('the run in `temporal workflow list`', async () => {
      const { stdout } = await run(
        binary,
        ['workflow', 'list', '--address', address, '--namespace', 'default', '--query', query, '--output', 'json'],
        { timeout: 30_000 },
      );
      const parsed = parseJsonOutput(stdout);
      return parsed.length > 0 ? parsed : undefined;
    });
    expect(rows).toHaveLength(1);
    const row = rows[0] as {
      execution: { workflowId: string; runId: string };
      status: string;
      searchAttributes?: { indexedFields?: Record<string, unknown> };
    };
    expect(row.execution.workflowId).toBe(handle.workflowId);
    expect(row.status).toMatch(/COMPLETED/);
    // The CLI shows the attributes too (decoded or as payloads, depending on its version).
    expect(JSON.stringify(row.searchAttributes)).toMatch(/GotTask/);
  });

  it('gives every LLM activity a summary naming its operation and the thoughts it reads', async () => {
    const scheduled = await scheduledActivities(handle);
    // In a run without faults, every LLM call is one scheduled activity (retries add no events).
    expect(scheduled).toHaveLength(result.grs.calls.length);
    expect(scheduled.length).toBe(LLM_OPERATIONS.length);
    for (const a of scheduled) {
      expect(a.type).toBe('callLlm');
      expect(a.summary, 'every scheduled activity has a summary').toBeTypeOf('string');
      expect(a.summary!.length).toBeLessThanOrEqual(200);
    }
    const summaries = scheduled.map((a) => a.summary!);
    expect(summaries.map((s) => s.slice(0, s.indexOf(':'))).sort()).toEqual([...LLM_OPERATIONS].sort());
    for (const call of result.grs.calls) {
      expect(call.inputThoughts.length).toBeGreaterThan(0);
      expect(summariesOf(call, summaries), `one summary for ${call.operationId} reading ${call.inputThoughts.join(', ')}`).toHaveLength(1);
    }
    // Spot checks of the shape: the split reads the problem, the merge reads one thought of each sorted part.
    expect(summaries.find((s) => s.startsWith('split:'))).toContain('root/0');
    expect(summaries.find((s) => s.startsWith('merge-1:'))).toMatch(/sort-1\/\S+.*sort-2\/\S+/);
  });

  it("shows the finished run's progress as its current details", async () => {
    const { currentDetails, definition } = await metadataOf(handle);
    expect(definition.type).toBe('graphOfThoughts');
    expect(definition.queryDefinitions.map((q) => q.name)).toEqual(expect.arrayContaining(['progress', 'grs']));
    const { totals } = result.grs;
    expect(currentDetails).toBe(
      `**${OPERATIONS} of ${OPERATIONS} operations done** · ${totals.llmCalls} LLM calls · ${totals.promptTokens + totals.completionTokens} tokens · $${totals.costUsd.toFixed(4)}`,
    );
  });

  it('marks a failed run GotStatus=failed', async () => {
    h.llm.injectFaults([{ status: 401, message: 'invalid api key' }]);
    const failed = await startRun(
      h.client,
      {
        task: 'sorting',
        problem: sortingTask.generateProblem(32, 4),
        goo: sortingTask.schemes.io!({ size: 32 }),
        labels: { scheme: 'io', size: 32, sample: 4 },
      },
      { taskQueue: h.taskQueue },
    );
    expect(failed.workflowId).toMatch(/^got-sorting-io-32-s4-/);
    await expect(failed.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const { typedSearchAttributes: typed } = await failed.describe();
    expect(typed.get(SA.status)).toBe('failed');
    expect(typed.get(SA.task)).toBe('sorting');
    expect(typed.get(SA.scheme)).toBe('io');
    expect(typed.get(SA.bestScore)).toBeUndefined();
    const ids = await until('the failed run in the visibility store', async () => {
      const found = await listIds(h.client, `GotTask='sorting' AND GotStatus='failed' AND WorkflowId='${failed.workflowId}'`);
      return found.length ? found : undefined;
    });
    expect(ids).toEqual([failed.workflowId]);
  });

  it('marks a run GotStatus=running while it runs and shows its progress and what runs, and GotStatus=cancelled once cancelled', async () => {
    const slow = await startSlowRun(5);
    // The split is the only root operation: while its (slow) LLM call runs, the details say so.
    const details = await until('current details naming the running split', async () => {
      const { currentDetails } = await metadataOf(slow);
      return currentDetails.includes('running:') ? currentDetails : undefined;
    });
    expect(details).toBe(`**0 of ${OPERATIONS} operations done** · 0 LLM calls · 0 tokens · $0.0000\n\nrunning: split`);

    const { typedSearchAttributes: typed } = await slow.describe();
    expect(typed.get(SA.status)).toBe('running');
    expect(typed.get(SA.task)).toBe('sorting');
    expect(typed.get(SA.scheme)).toBe('got');
    expect(typed.get(SA.costUsd)).toBeUndefined();
    expect(typed.get(SA.bestScore)).toBeUndefined();

    await slow.cancel();
    await expect(slow.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await slow.describe()).typedSearchAttributes.get(SA.status)).toBe('cancelled');
  });

  it('keeps the current details in step with the run: every operation running is named, the counts agree with the progress query', async () => {
    const slow = await startSlowRun(6);
    // Each stage lasts one slow LLM call (1.5 s): the split, the two part sorts in parallel, the merge.
    for (const stage of [['split'], ['sort-1', 'sort-2'], ['merge-1']]) {
      const { details, progress } = await stableView(slow, stage);
      const [head, ...rest] = details.split('\n\n');
      const m = DETAILS_HEAD.exec(head!);
      expect(m, `details head: ${head}`).not.toBeNull();
      expect(m!.slice(1, 5).map(Number), `details while ${stage.join(', ')} run`).toEqual([
        progress.operationsDone,
        progress.operationsTotal,
        progress.llmCalls,
        progress.promptTokens + progress.completionTokens,
      ]);
      const runningLine = rest.find((l) => l.startsWith('running: '));
      expect(runningLine?.slice('running: '.length).split(', ').sort(), `details while ${stage.join(', ')} run:\n${details}`).toEqual(
        stage,
      );
    }
    await slow.cancel();
    await expect(slow.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  });

  it('does not claim an operation is still running once the run has failed or was cancelled', async () => {
    h.llm.injectFaults([{ status: 401, message: 'invalid api key' }]);
    const failed = await startRun(
      h.client,
      {
        task: 'sorting',
        problem: sortingTask.generateProblem(32, 8),
        goo: sortingTask.schemes.io!({ size: 32 }),
        labels: { scheme: 'io', size: 32, sample: 8 },
      },
      { taskQueue: h.taskQueue },
    );
    await expect(failed.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await metadataOf(failed)).currentDetails, 'a failed run').not.toMatch(/running:/);

    const cancelled = await startSlowRun(7);
    await until('the split running', async () =>
      (await metadataOf(cancelled)).currentDetails.includes('running: split') ? true : undefined,
    );
    await cancelled.cancel();
    await expect(cancelled.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await metadataOf(cancelled)).currentDetails, 'a cancelled run').not.toMatch(/running:/);
  });

  /** A got/32 run whose LLM calls take 1.5 s each; terminated after the tests if still open. */
  async function startSlowRun(sample: number): Promise<WorkflowHandle> {
    h.llm.setLatency(SLOW_MS);
    const slow = await startRun(h.client, SORTING_GOT_32(sample), { taskQueue: h.taskQueue });
    slowRuns.push(slow);
    return slow;
  }

  /**
   * The current details and the `progress` query at a moment when exactly `running` operations
   * run: the progress query is read before and after the details, and must not have changed.
   */
  async function stableView(handle: WorkflowHandle, running: string[]): Promise<{ details: string; progress: Progress }> {
    const same = (p: Progress) => JSON.stringify([...p.running].sort()) === JSON.stringify([...running].sort());
    return until(
      `a stable view while ${running.join(', ')} run`,
      async () => {
        const before = await queryProgress(handle);
        if (!same(before)) return undefined;
        const { currentDetails } = await metadataOf(handle);
        const after = await queryProgress(handle);
        return JSON.stringify(after) === JSON.stringify(before) ? { details: currentDetails, progress: before } : undefined;
      },
      30_000,
      100,
    );
  }
});

/** `temporal ... --output json` prints one JSON document or one per line, depending on the command. */
function parseJsonOutput(stdout: string): unknown[] {
  const text = stdout.trim();
  if (!text) return [];
  try {
    const doc = JSON.parse(text) as unknown;
    return Array.isArray(doc) ? doc : [doc];
  } catch {
    return text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown);
  }
}

describe("a run in the dev server's Web UI (real browser)", () => {
  let ui: UiStack;
  let browser: Browser;
  let handle: Awaited<ReturnType<typeof startRun>>;
  let result: RunResult;
  /** Uncaught exceptions of the page, and console errors: see `unexpectedErrors`. */
  const errors: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ui = await startUiStack();
    browser = await launchBrowser();
    handle = await startRun(ui.client, SORTING_GOT_32(3), { taskQueue: ui.taskQueue });
    result = await resultOf(handle);
  });
  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });

  async function openPage(url: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && errors.push(`console.error: ${m.text()}`));
    await page.goto(url);
    return page;
  }

  /** Polls the text of the page (and of its frames: the UI renders markdown details in an iframe). */
  async function textOf(page: Page): Promise<string> {
    const texts = await Promise.all(
      page.frames().map((f) =>
        f
          .locator('body')
          .innerText({ timeout: 5_000 })
          .catch(() => ''),
      ),
    );
    return texts.join('\n');
  }

  it("lists every LLM activity by its summary in the run's event history and timeline", async () => {
    const scheduled = await scheduledActivities(handle);
    const summaries = scheduled.map((a) => a.summary!);
    expect(summaries).toHaveLength(LLM_OPERATIONS.length);

    const page = await openPage(webUiLink(ui.uiUrl, 'default', handle.workflowId, handle.firstExecutionRunId));
    // The SPA loads the history after the page: wait for every scheduled activity's row.
    const scheduledRows = page.locator('tr[data-testid="event-summary-row"]').filter({ hasText: 'Activity Task Scheduled' });
    await until(
      'the Activity Task Scheduled rows',
      async () => ((await scheduledRows.count()) === summaries.length ? true : undefined),
      60_000,
      500,
    );

    // The event table: each scheduled row shows the activity type and its summary.
    const rowTexts = await scheduledRows.allInnerTexts();
    for (const s of summaries)
      expect(
        rowTexts.filter((t) => t.includes('callLlm') && t.includes(s)),
        `a row with "${s}"`,
      ).toHaveLength(1);

    // The timeline labels each activity "callLlm • <summary>".
    const labels = (await page.locator('svg text').allTextContents()).map((t) => t.trim());
    for (const s of summaries) expect(labels, `timeline label for "${s}"`).toContain(`callLlm • ${s}`);
    await page.screenshot({ path: join(ARTIFACTS, 'web-ui-sorting-got-32-history.png'), fullPage: true });

    // The run's header says what the run is.
    expect(await page.locator('h1').first().innerText()).toContain(handle.workflowId);
    await page.close();
  });

  it("shows the summaries and the current details on the run's User Metadata tab", async () => {
    const page = await openPage(
      webUiLink(ui.uiUrl, 'default', handle.workflowId, handle.firstExecutionRunId).replace(/\/history$/, '/user-metadata'),
    );
    const { totals } = result.grs;
    const text = await until(
      'the User Metadata tab with the current details',
      async () => {
        const t = await textOf(page);
        return t.includes('Events with Metadata') && t.includes('operations done') ? t : undefined;
      },
      60_000,
      500,
    );
    for (const { summary } of await scheduledActivities(handle)) expect(text).toContain(summary);
    // The UI renders the details as markdown ("16/16" may become a typographic fraction).
    expect(text).toMatch(new RegExp(`${OPERATIONS} of ${OPERATIONS}\\s*operations done`));
    expect(text).toContain(`${totals.llmCalls} LLM calls`);
    expect(text).toContain(`$${totals.costUsd.toFixed(4)}`);
    await page.screenshot({ path: join(ARTIFACTS, 'web-ui-sorting-got-32-user-metadata.png'), fullPage: true });
    await page.close();
  });

  it('filters the run list by the typed search attributes', async () => {
    const query = `GotTask='sorting' AND GotScheme='got' AND GotStatus='completed'`;
    const page = await openPage(`${ui.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
    // The count ("1 Workflow") may render a moment after the rows.
    const listed = await until(
      'the run and the count in the filtered run list',
      async () => {
        const t = await textOf(page);
        return t.includes(handle.workflowId) && /(^|\n)\d+\s+Workflows?\b/.test(t) ? t : undefined;
      },
      60_000,
      500,
    );
    // The UI turned the query into one filter per attribute, and this server holds only this run.
    for (const attr of ['GotTask', 'GotScheme', 'GotStatus']) expect(listed).toContain(attr);
    expect(listed).toMatch(/(^|\n)1\s+Workflow\b/);
    await page.screenshot({ path: join(ARTIFACTS, 'web-ui-run-list-filtered.png'), fullPage: true });
    // A filter the run does not match leaves it out.
    await page.goto(`${ui.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(`GotTask='sorting' AND GotStatus='failed'`)}`);
    await until(
      'the list for the failed filter',
      async () => ((await textOf(page)).match(/No Workflows|no results|0 workflows/i) ? true : undefined),
      60_000,
      500,
    );
    expect(await textOf(page)).not.toContain(handle.workflowId);
    await page.close();
  });

  it('showed all of this without uncaught errors in the page', () => {
    // Only warnings are logged by this UI version for our runs (e.g. "Could not parse payload" for a
    // binary/null payload it then shows as null): those are not collected. Errors and uncaught
    // exceptions are, and none is expected.
    expect(errors).toEqual([]);
  });
});
