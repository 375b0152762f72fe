import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { formatScore } from '../src/grs/analysis';
import { toHtml } from '../src/grs/html';
import type { RunResult } from '../src/run/request';
import { sortingTask } from '../src/tasks/sorting';
import { emptyBandBelowHeader, launchBrowser, printedScores } from './support/browser';
import { type Harness, startHarness } from './support/harness';
import { nestedChunksSortingGoo } from './support/tasks';

const ARTIFACTS = resolve('test-artifacts');
type Box = { x: number; y: number; width: number; height: number };
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
    // The first screen shows the graph right under the header (no empty band).
    expect((await emptyBandBelowHeader(page)).band).toBeLessThanOrEqual(40);

    expect(await page.locator('g.node').count()).toBe(grs.thoughts.length);
    expect(await page.locator('path.edge').count()).toBe(grs.thoughts.reduce((n, t) => n + t.parents.length, 0));
    expect(await page.locator(`g.node.best[data-id="${best!.id}"]`).count()).toBe(1);
    expect(await page.locator('#summary').textContent()).toContain(`${grs.thoughts.length} thoughts`);

    await page.locator(`g.node[data-id="${best!.id}"]`).click();
    const details = (await page.locator('#details').textContent())!;
    expect(details).toContain(best!.id);
    expect(details).toContain(answers[best!.id]!);
    expect(details).toContain(`score ${formatScore(best!.score!)}`);
    for (const s of await printedScores(page)) expect(s, s).toMatch(/^-?\d+(\.\d{1,3})?$/);

    await page.screenshot({ path: join(ARTIFACTS, 'grs-sorting-got-32.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});

describe('the GRS viewer page of a graph that grew at run time', () => {
  it('draws each part of a forEach in a box of its own, nested parts inside, and lists grown operations after their forEach', async () => {
    const { grs } = await resultOf(
      await startRun(
        h.client,
        { task: 'sorting', problem: sortingTask.generateProblem(32, 5), goo: nestedChunksSortingGoo(2) },
        { taskQueue: h.taskQueue },
      ),
    );
    const file = join(ARTIFACTS, 'grs-sorting-for-each-32.html');
    writeFileSync(file, toHtml(grs, { title: 'sorting forEach 32' }));

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);

    expect(await page.locator('g.node').count()).toBe(grs.thoughts.length);
    const parts = [
      'halves[0]',
      'halves[0].quarters[0]',
      'halves[0].quarters[1]',
      'halves[1]',
      'halves[1].quarters[0]',
      'halves[1].quarters[1]',
    ];
    expect((await page.locator('g.part').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-part')))).sort()).toEqual(parts.sort());
    // Every thought of a part lies inside the part's box; the boxes of sibling parts do not overlap.
    const boxes = await page.locator('g.part').evaluateAll((gs) =>
      Object.fromEntries(
        gs.map((g) => {
          const rect = g.querySelector('rect')!;
          const [x, y, width, height] = ['x', 'y', 'width', 'height'].map((a) => Number(rect.getAttribute(a)));
          return [g.getAttribute('data-part'), { x: x!, y: y!, width: width!, height: height! }];
        }),
      ),
    );
    const nodes = await page
      .locator('g.node')
      .evaluateAll((gs) => Object.fromEntries(gs.map((g) => [g.getAttribute('data-id'), g.getAttribute('transform')])));
    const at = (id: string) => {
      const [x, y] = /translate\(([-\d.]+),([-\d.]+)\)/.exec(nodes[id]!)!.slice(1).map(Number) as [number, number];
      return { x, y };
    };
    const within = (id: string, part: string) => {
      const p = at(id);
      const r = boxes[part]!;
      return p.x >= r.x && p.y >= r.y && p.x + 124 <= r.x + r.width && p.y + 46 <= r.y + r.height;
    };
    for (const t of grs.thoughts.filter((t) => t.operationId.startsWith('halves[1].quarters[0].'))) {
      expect(within(t.id, 'halves[1].quarters[0]'), t.id).toBe(true);
      expect(within(t.id, 'halves[1]'), t.id).toBe(true);
      expect(within(t.id, 'halves[0]'), t.id).toBe(false);
    }
    expect(within('halves/0.0', 'halves[0]')).toBe(true);
    expect(within('merge/0.0', 'halves[0]') || within('merge/0.0', 'halves[1]')).toBe(false);
    const overlap = (a: Box, c: Box) => a.x < c.x + c.width && c.x < a.x + a.width && a.y < c.y + c.height && c.y < a.y + a.height;
    expect(overlap(boxes['halves[0]']!, boxes['halves[1]']!)).toBe(false);
    expect(overlap(boxes['halves[1].quarters[0]']!, boxes['halves[1].quarters[1]']!)).toBe(false);

    // The table lists what each forEach grew right after it; the summary counts the grown operations.
    const rows = await page.locator('#ops tr[data-op]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-op')));
    expect(rows.slice(0, 4)).toEqual(['halves', 'halves[0].quarters', 'halves[0].quarters[0].sort', 'halves[0].quarters[1].sort']);
    expect(rows.at(-1)).toBe('merge');
    expect(await page.locator('#summary').textContent()).toContain(
      `${grs.operations.filter((o) => o.grownBy).length} operations grown at run time`,
    );
    await page.locator('g.node[data-id="halves[1].quarters[0].sort/0.1"]').click();
    expect(await page.locator('#details').textContent()).toContain('part halves[1].quarters[0], grown at run time');

    await page.screenshot({ path: join(ARTIFACTS, 'grs-sorting-for-each-32.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});
