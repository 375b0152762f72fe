import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { toHtml } from '../src/grs/html';
import type { RunResult } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import { launchBrowser } from './support/browser';
import { type Harness, startHarness } from './support/harness';

const ARTIFACTS = resolve('test-artifacts');
let h: Harness;
let browser: Browser;
let result: RunResult;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startHarness();
  browser = await launchBrowser();
  const problem = sortingTask.generateProblem(32, 5);
  result = await resultOf(
    await startRun(h.client, { task: 'sorting', problem, goo: sortingTask.schemes.got!({ size: 32 }) }, { taskQueue: h.taskQueue }),
  );
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('the GRS viewer page in a real browser', () => {
  it('draws every thought and edge, highlights the best path, shows a thought in full on click, without console errors', async () => {
    const { grs, best } = result;
    const answers = Object.fromEntries(grs.thoughts.map((t) => [t.id, sortingTask.answerText(t.state)]));
    const file = join(ARTIFACTS, 'grs-sorting-got-32.html');
    writeFileSync(file, toHtml(grs, { title: 'sorting got 32', bestId: best!.id, answers }));

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);

    expect(await page.locator('g.node').count()).toBe(grs.thoughts.length);
    expect(await page.locator('path.edge').count()).toBe(grs.thoughts.reduce((n, t) => n + t.parents.length, 0));
    expect(await page.locator(`g.node.best[data-id="${best!.id}"]`).count()).toBe(1);
    expect(await page.locator('#summary').textContent()).toContain(`${grs.thoughts.length} thoughts`);

    await page.locator(`g.node[data-id="${best!.id}"]`).click();
    const details = (await page.locator('#details').textContent())!;
    expect(details).toContain(best!.id);
    expect(details).toContain(answers[best!.id]!);
    expect(details).toContain(`score ${best!.score}`);

    await page.screenshot({ path: join(ARTIFACTS, 'grs-sorting-got-32.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});
