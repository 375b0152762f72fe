import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's chromium, headless, with the flags that keep it off the (closed) network. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no chromium at ${CHROMIUM}: run "bash scripts/ensure-test-tools.sh" (npm test does) or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

// Browser-side code as text: this project compiles without the DOM's types.
const EMPTY_BAND = `(() => {
  const head = document.querySelector(HEADER);
  const bottoms = [...head.querySelectorAll('*')].map((e) => e.getBoundingClientRect().bottom);
  const headerContentBottom = Math.max(head.getBoundingClientRect().top, ...bottoms);
  const tops = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || head.contains(n) || n.parentElement.closest('script, style')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.height > 0) tops.push(r.top);
  }
  for (const g of document.querySelectorAll('g.node')) tops.push(g.getBoundingClientRect().top);
  return { band: Math.min(...tops) - headerContentBottom, headerHeight: head.getBoundingClientRect().height };
})()`;

const VISIBLE_TEXT = `(() => {
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (!n.parentElement.closest('script, style')) parts.push(n.textContent);
  return parts.join(' ');
})()`;

/**
 * The empty height (px) between the end of the page header's own content and the first content
 * below it (the first visible text or graph node): a page that opens on a blank band has a large one.
 */
export async function emptyBandBelowHeader(page: Page, header = 'header'): Promise<{ band: number; headerHeight: number }> {
  return page.evaluate(EMPTY_BAND.replace('HEADER', JSON.stringify(header)));
}

/** Every score the page prints ("score 8.833", "(score 7)"), as written. */
export async function printedScores(page: Page): Promise<string[]> {
  const text = await page.evaluate<string>(VISIBLE_TEXT);
  return [...text.matchAll(/score (-?[\d.e+-]+)/g)].map((m) => m[1]!);
}
