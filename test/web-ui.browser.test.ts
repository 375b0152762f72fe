import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun, webUiLink } from '../src/client/runs';
import { type DevServerHandle, startDevServer } from '../src/devserver/dev-server';
import { freePort } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { sortingTask } from '../src/tasks/sorting';
import { createGotWorker } from '../worker/create';
import { launchBrowser } from './support/browser';

// The shared test server runs without its Web UI: this file starts one with it.
let server: DevServerHandle;
let llm: SimulatedLlm;
let native: NativeConnection;
let connection: Connection;
let worker: Worker;
let running: Promise<void>;
let browser: Browser;
const taskQueue = `web-ui-${randomUUID()}`;

beforeAll(async () => {
  server = await startDevServer({ binary: await ensureTemporalCli(), port: await freePort(), uiPort: await freePort(), ui: true });
  llm = await startSimulatedLlm();
  native = await NativeConnection.connect({ address: server.address });
  worker = await createGotWorker({ connection: native, taskQueue, llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true } });
  running = worker.run();
  connection = await Connection.connect({ address: server.address });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  worker?.shutdown();
  await running;
  await native?.close();
  await connection?.close();
  await llm?.close();
  await server?.stop();
});

describe("the run's page in the dev server's Web UI", () => {
  it('shows the run and every LLM call by its operation summary', async () => {
    const client = new Client({ connection });
    const handle = await startRun(
      client,
      {
        task: 'sorting',
        problem: sortingTask.generateProblem(32, 2),
        goo: sortingTask.schemes.got!({ size: 32 }),
        labels: { scheme: 'got', size: 32, sample: 2 },
      },
      { taskQueue },
    );
    const result = await resultOf(handle);
    const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
    await page.goto(webUiLink(server.uiUrl!, 'default', handle.workflowId, handle.firstExecutionRunId));

    // The UI is a single-page app that loads the history after the page: wait for the summaries to render.
    const expected = [...new Set(result.grs.calls.map((c) => `${c.operationId}: ${c.purpose}`))];
    expect(expected).toEqual(expect.arrayContaining(['split: generate', 'merge-1: aggregate', 'improve-1: generate']));
    await expect
      .poll(
        async () => {
          const text = await page.locator('body').innerText();
          return expected.filter((summary) => !text.includes(summary));
        },
        { timeout: 30_000, interval: 250 },
      )
      .toEqual([]);
    const text = await page.locator('body').innerText();
    expect(text).toContain(handle.workflowId);
    expect(text).toContain('graphOfThoughts');
    expect(text).toMatch(/Completed/);

    const artifacts = resolve('test-artifacts');
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'web-ui-run-page.png'), fullPage: true });
  });
});
