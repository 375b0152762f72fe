import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun, webUiLink } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { generateCodecKey } from '../src/codec/keys';
import { startDevServer } from '../src/devserver/dev-server';
import { codecAnswers } from '../src/devserver/local-codec';
import { ensureLocalServer, type LocalServerInfo, localCodecStatus, stopLocalServer } from '../src/devserver/local-server';
import { freePort, isPortFree, LOOPBACK } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import type { RunRequestInput } from '../src/run/request';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { DEFAULT_STORE_THRESHOLD_BYTES, storeThresholdFromEnv } from '../src/store/config';
import { docMergeTask } from '../src/tasks/doc-merge';
import { bundleGotWorkflows, createGotWorker } from '../worker/create';
import { launchBrowser } from './support/browser';

/**
 * The local dev server as the CLI starts it (`got setup`, `got run`): with a codec server beside it,
 * so its Web UI shows the documents a run keeps in the payload store, not their references.
 */

const ARTIFACTS = resolve('test-artifacts');
/** A sentence only the first source document holds, at its start (the UI renders long payloads lazily). */
const MARKER = 'Quillfeather Orchards keeps every pressing schedule confidential';

/** Distinct free ports (freePort may hand out one twice before anything listens on it). */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Lines a call logged, for its assertions. */
function recorder() {
  const lines: string[] = [];
  return { lines, log: (line: string) => lines.push(line) };
}

describe("the local dev server's Web UI, through its codec server", () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'got-state-'));
  let ports: { port: number; uiPort: number; codecPort: number };
  let server: LocalServerInfo;
  let llm: SimulatedLlm;
  let native: NativeConnection;
  let connection: Connection;
  let worker: Worker;
  let running: Promise<void>;
  let browser: Browser;
  const taskQueue = `local-server-${randomUUID()}`;

  beforeAll(async () => {
    if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('ERROR') });
    const [port, uiPort, codecPort] = await freePorts(3);
    ports = { port: port!, uiPort: uiPort!, codecPort: codecPort! };
    server = await ensureLocalServer({ stateDir, ...ports });
    // The CLI's client and in-process worker: the store is GOT_STORE, which global setup points at a fresh folder.
    const dataConverter = dataConverterFromEnv()!;
    llm = await startSimulatedLlm({ latencyMs: 5 });
    native = await NativeConnection.connect({ address: server.address });
    worker = await createGotWorker({
      connection: native,
      taskQueue,
      llm: { baseURL: llm.baseURL, apiKey: 'sim', supportsN: true },
      workflowBundle: await bundleGotWorkflows(),
      dataConverter,
      cacheDir: mkdtempSync(join(tmpdir(), 'got-cache-')),
    });
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
    // `got server stop` stops both.
    expect(await stopLocalServer(stateDir)).toEqual({ server: true, codec: true });
    expect(await codecAnswers(server.codecUrl!)).toBe(false);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("starts with the server, is recorded with it, and lets the Web UI's origin call it", async () => {
    expect(server.started).toBe(true);
    expect(server.codecUrl).toBe(`http://${LOOPBACK}:${ports.codecPort}`);
    expect(await codecAnswers(server.codecUrl!)).toBe(true);
    const state = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8'));
    expect(state.uiCodecEndpoint).toBe(server.codecUrl);
    expect(state.codec.url).toBe(server.codecUrl);
    // What `got doctor` reports.
    expect(await localCodecStatus({ stateDir })).toMatchObject({ state: 'recorded', url: server.codecUrl, answers: true, current: true });
    // The UI's origin may call it from the browser.
    const preflight = await fetch(`${server.codecUrl}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: server.uiUrl,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(server.uiUrl);
  });

  it("shows the run's documents as its input and the merged text as its result", async () => {
    const [first, ...others] = docMergeTask.generateProblem(3, 1).documents as string[];
    const request: RunRequestInput = {
      task: 'doc-merge',
      problem: { documents: [`${MARKER}.\n${first}`, ...others] },
      scheme: 'io',
      labels: { scheme: 'io' },
    };
    // Over the store's threshold, so the history holds only a reference to the request.
    expect(JSON.stringify(request).length).toBeGreaterThan(storeThresholdFromEnv());
    expect(storeThresholdFromEnv()).toBe(DEFAULT_STORE_THRESHOLD_BYTES);
    const client = new Client({ connection, dataConverter: dataConverterFromEnv()! });
    const handle = await startRun(client, request, { taskQueue });
    const result = await resultOf(handle);
    const merged = result.best?.state.merged as string | undefined;
    expect(merged).toBeTruthy();

    // Without the codec there would be nothing to read: the history holds references.
    const raw = await new Client({ connection }).workflow.getHandle(handle.workflowId).fetchHistory();
    const input = raw.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    expect(Buffer.from(input.data!).toString('utf8')).not.toContain(MARKER);
    const completed = raw.events!.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads![0]!;
    expect(Buffer.from(completed.data!).toString('utf8')).not.toContain(merged!.slice(0, 40));

    const page = await browser.newPage({ viewport: { width: 1600, height: 2400 } });
    await page.goto(webUiLink(server.uiUrl, 'default', handle.workflowId, handle.firstExecutionRunId));
    // The run page's two cards, each a heading over the payload as JSON.
    const card = (title: string) =>
      page.locator('[data-testid="input-and-result"] > div').filter({ has: page.locator('h2', { hasText: new RegExp(`^${title}$`) }) });
    // The start of the merged text: the UI renders a payload's first lines at once, the rest as it is scrolled to.
    const mergedStart = merged!.trim().split('\n')[0]!.slice(0, 40).trim();
    // The single-page app loads the history, then asks the codec server for each payload.
    await expect
      .poll(
        async () => ({
          input: (await card('Input').innerText()).includes(MARKER),
          result: /"merged": "/.test(await card('Result').innerText()) && (await card('Result').innerText()).includes(mergedStart),
        }),
        { timeout: 30_000, interval: 250 },
      )
      .toEqual({ input: true, result: true });
    const text = await page.locator('body').innerText();
    expect(text).not.toContain('got-store');
    expect(text).not.toContain('claimData');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'web-ui-stored-documents.png'), fullPage: true });
    await page.close();
  });

  it('is restarted for a command with other keys, at the same endpoint, and kept for the same ones', async () => {
    const env = { ...process.env, GOT_CODEC_KEYS: generateCodecKey('k1') };
    const before = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8'));
    const { lines, log } = recorder();
    const again = await ensureLocalServer({ stateDir, ...ports, env, log });
    expect(again).toMatchObject({ started: false, codecUrl: server.codecUrl });
    expect(lines.join('\n')).toMatch(/Restarting the codec server/);
    const after = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8'));
    expect(after.codec.pid).not.toBe(before.codec.pid);
    // The digest of the settings is recorded, never a key.
    expect(readFileSync(join(stateDir, 'server.json'), 'utf8')).not.toContain(env.GOT_CODEC_KEYS.split(':')[1]);
    expect(await codecAnswers(server.codecUrl!)).toBe(true);

    await ensureLocalServer({ stateDir, ...ports, env });
    expect(JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')).codec.pid).toBe(after.codec.pid);
    // A shell without those keys is told the next command would switch it back.
    expect(await localCodecStatus({ stateDir })).toMatchObject({ state: 'recorded', answers: true, current: false });
  });
});

describe('a local server started without a codec server (by an older version)', () => {
  it('is reused as it is, with a hint, and stopped as before', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'got-state-'));
    const [port, uiPort, codecPort] = await freePorts(3);
    const dbFile = join(stateDir, 'temporal.sqlite');
    const logFile = join(stateDir, 'temporal-server.log');
    const old = await startDevServer({ binary: await ensureTemporalCli(), port, uiPort, ui: true, dbFile, logFile, detached: true });
    try {
      // server.json as the CLI wrote it before the codec server.
      const { address, uiUrl, pid } = old;
      writeFileSync(
        join(stateDir, 'server.json'),
        JSON.stringify({ pid, address, uiUrl, dbFile, logFile, startedAt: new Date().toISOString() }),
      );
      const { lines, log } = recorder();
      const reused = await ensureLocalServer({ stateDir, port, uiPort, codecPort, log });
      expect(reused).toEqual({ address, uiUrl, started: false });
      expect(lines.join('\n')).toMatch(/started without a codec server.*npm run server:stop/);
      expect(await isPortFree(LOOPBACK, codecPort!)).toBe(true);
      expect(await localCodecStatus({ stateDir })).toEqual({ state: 'server without codec', serverPid: pid });
      expect(await stopLocalServer(stateDir)).toEqual({ server: true, codec: false });
    } finally {
      await old.stop();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
