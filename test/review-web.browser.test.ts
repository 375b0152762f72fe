import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryPendingReview } from '../src/client/review';
import { resultOf, startRun } from '../src/client/runs';
import { type ReviewWorkspace, startReviewWorkspace } from '../src/review-web/server';
import type { PendingReview, RunRequestInput } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { alignClauses } from '../src/tasks/doc-merge/clause-groups/align';
import { sortingTask } from '../src/tasks/sorting';
import { launchBrowser } from './support/browser';
import { CONFIDENTIALITY_WORD, clauseRoom } from './support/clause-room';
import { ndaSamples } from './support/documents';
import { type Harness, startHarness } from './support/harness';

/**
 * The review workspace (decision 101) in headless Chromium against a real run: a document merge that
 * waits for a person's decisions. The reviewer opens the page, sees the merge beside its sources,
 * decides every disagreement in the form, and the run finishes with those decisions.
 */

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const waitingMerge = (): RunRequestInput => ({
  task: 'doc-merge',
  problem: { documents: ndaSamples()[1]! },
  scheme: 'io',
  review: { decide: true },
});

async function until<T>(probe: () => Promise<T | null | undefined>, what: string): Promise<T> {
  for (let waited = 0; ; waited += 100) {
    const value = await probe();
    if (value) return value;
    if (waited > 60_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the review workspace', () => {
  let workspace: ReviewWorkspace | undefined;
  afterAll(async () => workspace?.close());

  it('lets a reviewer decide every disagreement in the browser; the run finishes with the decisions', async () => {
    const handle = await startRun(h.client, waitingMerge(), { taskQueue: h.taskQueue });
    workspace = await startReviewWorkspace({ client: h.client, workflowId: handle.workflowId });
    expect(new URL(workspace.url).hostname).toBe('127.0.0.1');

    // Without its token, or with another, the workspace answers nothing about the run.
    const bare = workspace.url.replace(/\?token=.*/, '');
    for (const url of [bare, `${bare}?token=wrong`, `${bare}api/state`, `${bare}api/state?token=x`]) {
      const response = await fetch(url);
      expect(response.status, url).toBe(403);
      expect(await response.text()).not.toContain('AGREEMENT');
    }
    const refused = await fetch(workspace.url.replace('/?', '/api/decide?'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"decisions":[{"id":"d1"}]}',
    });
    expect(refused.status).toBe(400);

    const pending: PendingReview = await until(() => queryPendingReview(handle), 'the run to wait for decisions');
    expect(pending.disagreements.length).toBeGreaterThan(0);

    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(workspace.url);
    await page.locator('#decide fieldset').first().waitFor();
    expect(await page.locator('#decide fieldset').count()).toBe(pending.disagreements.length);
    // The merge beside its sources, as the .html output shows it.
    expect(await page.locator('#review .merge-review .doc .sources').count()).toBeGreaterThan(3);
    expect(await page.locator('#status').textContent()).toContain('waiting for your decisions');

    // The last source's value for each disagreement; the first one written by hand.
    type Choice = { id: string; text: string } | { id: string; value: PendingReview['disagreements'][number]['values'][number] };
    const chosen = pending.disagreements.map(
      (d, i): Choice => (i === 0 ? { id: d.id, text: 'Ruritania' } : { id: d.id, value: d.values.at(-1)! }),
    );
    for (const c of chosen) {
      const row = page.locator(`#decide fieldset[data-id="${c.id}"]`);
      if ('text' in c) await row.locator('input.other').fill(c.text);
      else await row.locator(`input[type=radio][value="doc:${c.value.document}"]`).check();
    }
    await page.locator('#send').click();
    await page.locator('#sent', { hasText: `Sent ${chosen.length} decision(s)` }).waitFor();

    const result = await resultOf(handle);
    expect(result.grs.review?.decisions).toEqual(
      chosen.map((c) => ('text' in c ? { id: c.id, choose: { text: c.text } } : { id: c.id, choose: { document: c.value.document } })),
    );
    // The page shows the run's end and the decided merge without a reload.
    await page.locator('#status', { hasText: 'completed' }).waitFor();
    expect(await page.locator('#review').textContent()).toContain('Ruritania');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('pauses and resumes a running run from its page, each steer recorded as asked by the web review', async () => {
    const slow = await startHarness({ llm: { latencyMs: 1500 } });
    const handle = await startRun(
      slow.client,
      { task: 'sorting', problem: sortingTask.generateProblem(64, 3), goo: sortingTask.schemes.got!({ size: 64 }) },
      { taskQueue: slow.taskQueue },
    );
    const space = await startReviewWorkspace({ client: slow.client, workflowId: handle.workflowId });
    const page = await browser.newPage();
    try {
      await page.goto(space.url);
      await page.locator('#status', { hasText: 'running' }).waitFor();
      await page.locator('#pause:not([hidden])').click();
      await page.locator('#status', { hasText: 'paused: no new LLM call starts' }).waitFor();
      expect(await page.locator('#steering').textContent()).toContain('paused: no new LLM call starts until it is resumed by web review');
      await page.locator('#resume:not([hidden])').click();
      await page.locator('#status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
      const result = await resultOf(handle);
      expect(result.grs.steering?.map((e) => `${e.action} by ${e.by}`)).toEqual(['pause by web review', 'resume by web review']);
    } finally {
      await page.close();
      await space.close();
      await slow.close();
    }
  }, 120_000);
});

describe('redo in the review workspace (decision 102)', () => {
  it('decides every disagreement, redoes one clause with an instruction, and sees the fork finish with the decisions and only that clause paid', async () => {
    const room = clauseRoom();
    const goo = docMergeTask.schemes.clauses!({ size: 2, problem: room });
    const handle = await startRun(
      h.client,
      { task: 'doc-merge', problem: room, goo, review: { decide: true } },
      { taskQueue: h.taskQueue },
    );
    const space = await startReviewWorkspace({ client: h.client, workflowId: handle.workflowId });
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(space.url);
      const pending: PendingReview = await until(() => queryPendingReview(handle), 'the run to wait for decisions');
      await page.locator('#decide fieldset').first().waitFor();
      for (const d of pending.disagreements)
        await page.locator(`#decide fieldset[data-id="${d.id}"] input[type=radio][value="doc:${d.values.at(-1)!.document}"]`).check();
      await page.locator('#send').click();
      await page.locator('#status', { hasText: 'completed' }).waitFor();
      const parent = await resultOf(handle);

      // A redo is refused while nothing is written, and for a part the run does not have.
      const group = alignClauses(room.documents).groups.findIndex(
        (g) => !g.same && g.members.some((m) => m.text.includes(CONFIDENTIALITY_WORD)),
      );
      const row = page.locator(`#redo .part[data-part="merge[${group}]"]`);
      await row.waitFor();
      const bad = await fetch(space.url.replace('/?', '/api/redo?'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ part: 'merge', instructions: 'x' }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toContain('part: expected a part of a forEach');

      await row.locator('textarea').fill('Name the Recipient and the Receiving Party as one party.');
      await row.locator('button').click();
      await page.locator('#fork', { hasText: `Fork of ${handle.workflowId}` }).waitFor();
      await page.locator('#status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
      const forkId = (await page.locator('#run').textContent())!;
      expect(forkId).not.toBe(handle.workflowId);
      const fork = await resultOf(h.client.workflow.getHandle(forkId));
      const made = fork.grs.calls.filter((c) => !c.inherited);
      expect(made.length).toBeGreaterThan(0);
      expect(made.every((c) => c.operationId.startsWith(`merge[${group}]`) || c.operationId.startsWith(`improve[${group}]`))).toBe(true);
      expect(fork.grs.totals.inheritedCalls).toBe(
        parent.grs.calls.length - parent.grs.calls.filter((c) => made.some((m) => m.id === c.id)).length,
      );
      expect(fork.grs.review?.decisions?.map((d) => d.choose)).toEqual(parent.grs.review?.decisions?.map((d) => d.choose));
      expect(await page.locator('#fork').textContent()).toContain(`${made.length} LLM call(s) made`);
      // The graph and each thought of the run shown now (the fork), behind the same token, its scripts allowed by the page's nonce.
      const graph = await browser.newPage();
      graph.on('pageerror', (e) => errors.push(e.message));
      await graph.goto(space.url.replace('/?', '/graph?'));
      await graph.locator('#ops table').waitFor();
      expect(await graph.locator('#summary').textContent()).toContain(`fork of ${handle.workflowId}`);
      expect(await graph.locator('#ops').textContent()).toContain(`merge[${group}]`);
      await graph.close();
      expect((await fetch(space.url.replace(/\/\?token=.*/, '/graph'))).status).toBe(403);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await space.close();
    }
  }, 120_000);
});
