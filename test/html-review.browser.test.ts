import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMergedOutput } from '../src/documents/output/index';
import { toHtml } from '../src/grs/html';
import type { Grs } from '../src/grs/types';
import { emptyBandBelowHeader, launchBrowser, printedScores } from './support/browser';
import { mergeGrs } from './support/merge-grs';
import { MERGED_NDA, NDA_SOURCES, ndaReview } from './support/review';

/**
 * The GRS page of a document merge and the `.html` output in a real browser, from GRSs built by
 * hand (no workflow): the first screen shows content, scores read rounded, the merged text sits
 * beside its sources, and nothing from the run runs as script.
 */

const ARTIFACTS = resolve('test-artifacts');
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const answersOf = (grs: Grs) => Object.fromEntries(grs.thoughts.map((t) => [t.id, String(t.state.merged ?? '')]));

async function open(file: string): Promise<{ page: Page; errors: string[]; dialogs: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(pathToFileURL(file).href);
  return { page, errors, dialogs };
}

describe('the GRS page', () => {
  it('opens on the graph, no empty band under the header, scores to at most 3 decimals everywhere', async () => {
    const grs = mergeGrs();
    const file = join(ARTIFACTS, 'grs-doc-merge.html');
    writeFileSync(file, toHtml(grs, { title: 'doc-merge nda', bestId: 'keep/0.0', answers: answersOf(grs) }));
    const { page, errors } = await open(file);

    const { band, headerHeight } = await emptyBandBelowHeader(page);
    expect(headerHeight).toBeLessThan(60);
    expect(band).toBeLessThanOrEqual(40);
    // The graph fills the rest of the screen; the panel beside it.
    const graph = (await page.locator('#graph').boundingBox())!;
    expect(graph.y + graph.height).toBeGreaterThan(880);

    await page.locator('g.node[data-id="merge/0.1"]').click();
    const details = (await page.locator('#details').textContent())!;
    expect(details).toContain('score 7.333');
    expect(await page.locator('#summary').textContent()).toContain('best: keep/0.0 (score 8.833)');
    expect(await page.locator('g.node[data-id="merge/0.2"] text').nth(1).textContent()).toBe('score 0.3');
    const scores = await printedScores(page);
    expect(scores.length).toBeGreaterThanOrEqual(grs.thoughts.length);
    for (const s of scores) expect(s, s).toMatch(/^-?\d+(\.\d{1,3})?$/);

    await page.screenshot({ path: join(ARTIFACTS, 'grs-doc-merge.png') });
    expect(errors).toEqual([]);
  });

  it('of a reviewed merge shows the merged text first, each clause beside its sources, the unsupported one flagged, then the graph', async () => {
    const grs = mergeGrs({ review: true });
    const file = join(ARTIFACTS, 'grs-doc-merge-review.html');
    writeFileSync(file, toHtml(grs, { title: 'doc-merge nda', bestId: 'keep/0.0', answers: answersOf(grs) }));
    const { page, errors, dialogs } = await open(file);

    const { band } = await emptyBandBelowHeader(page);
    expect(band).toBeLessThanOrEqual(40);
    // The first screen is the document: its title and its first clauses are in view.
    const title = (await page.locator('#review .doc h1').boundingBox())!;
    expect(title.y).toBeLessThan(200);
    expect(await page.locator('#review .doc h1').textContent()).toBe('MUTUAL NON-DISCLOSURE AGREEMENT');

    // Each block's sources sit beside it, to its right, at its height.
    const clause = page.locator('#review .doc > .text.clause').first();
    const block = await clause.getAttribute('data-block');
    const aside = page.locator(`#review .doc > aside.sources[data-block="${block}"]`);
    const [c, a] = [(await clause.boundingBox())!, (await aside.boundingBox())!];
    expect(a.x).toBeGreaterThanOrEqual(c.x + c.width);
    expect(Math.abs(a.y - c.y)).toBeLessThan(4);
    expect(await aside.textContent()).toContain('nda1.pdf §3 p.2');

    // The unsupported clause: flagged, its words marked, and its <script> shown as text, never run.
    const flagged = page.locator('#review .doc > .text.unsupported');
    expect(await flagged.count()).toBe(1);
    expect(await flagged.locator('mark.unsupported').textContent()).toContain('<script>alert(1)</script>');
    const flaggedBlock = await flagged.getAttribute('data-block');
    expect(await page.locator(`aside.sources[data-block="${flaggedBlock}"] .flag`).textContent()).toBe('no source found — check');
    expect(dialogs).toEqual([]);
    expect(await page.locator('script').count()).toBe(2);

    expect(await page.locator('#review table.disagreements tbody tr').count()).toBe(2);
    expect(await page.locator('#review .counts').first().textContent()).toContain('5 of 6 clauses found in the sources');

    // The graph keeps its features below: best path, scores, a thought's text on click (here from the review's link).
    expect(await page.locator('g.node.best[data-id="keep/0.0"]').count()).toBe(1);
    const review = (await page.locator('#review').boundingBox())!;
    expect((await page.locator('#graph').boundingBox())!.y).toBeGreaterThan(review.y + review.height - 1);
    await page.locator('#review a[data-thought]').click();
    expect(await page.locator('g.node.selected').getAttribute('data-id')).toBe('keep/0.0');
    expect(await page.locator('#details').textContent()).toContain('Alpha Corp shares its battery designs');
    for (const s of await printedScores(page)) expect(s, s).toMatch(/^-?\d+(\.\d{1,3})?$/);

    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(ARTIFACTS, 'grs-doc-merge-review.png') });
    await page.screenshot({ path: join(ARTIFACTS, 'grs-doc-merge-review-full.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});

describe('the .html output', () => {
  it('reads as a document with its sources in a side column, and prints', async () => {
    const file = join(ARTIFACTS, 'merged-nda.html');
    await writeMergedOutput(file, { merged: MERGED_NDA, review: ndaReview(), sources: NDA_SOURCES });
    const { page, errors, dialogs } = await open(file);
    const text = (await page.locator('.doc > .text').first().boundingBox())!;
    const aside = (await page.locator('.doc > aside.sources').nth(1).boundingBox())!;
    expect(aside.x).toBeGreaterThan(text.x + text.width - 1);
    expect(await page.locator('.doc > .text.unsupported mark').count()).toBe(1);
    expect(dialogs).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'merged-nda.png'), fullPage: true });
    // Printing keeps the side column (A4 portrait).
    await page.emulateMedia({ media: 'print' });
    await page.setViewportSize({ width: 794, height: 1123 });
    const printed = (await page.locator('.doc > aside.sources').nth(1).boundingBox())!;
    expect(printed.x).toBeGreaterThan((await page.locator('.doc > .text').nth(1).boundingBox())!.x + 200);
    await page.pdf({ path: join(ARTIFACTS, 'merged-nda.pdf'), format: 'A4' });
    expect(errors).toEqual([]);
  });
});
