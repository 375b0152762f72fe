import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandle, type WorkflowService } from '@temporalio/client';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv, payloadStoreOf } from '../src/codec/data-converter';
import { generateCodecKey } from '../src/codec/keys';
import { ensureMinio, type MinioHandle, startMinio } from '../src/devserver/minio';
import { inspectRun } from '../src/inspect/rebuild';
import { ensureSearchAttributes } from '../src/run/register-search-attributes';
import type { BlobStore } from '../src/store/blob-store';
import { DirectoryBlobStore } from '../src/store/directory-store';
import { collectStoreGarbage, type StoreGcOptions, StoreGcRefusedError, type StoreGcReport } from '../src/store/gc';
import type { PayloadStore, StoredRef } from '../src/store/payload-store';
import { isReferencePayload, payloadsIn, StoreReferences } from '../src/store/refs';
import { type S3BlobStore, s3StoreFromEnv } from '../src/store/s3-store';
import { docMergeTask } from '../src/tasks/doc-merge';
import { sortingTask } from '../src/tasks/sorting';
import { type Harness, startHarness } from './support/harness';

const PayloadProto = proto.temporal.api.common.v1.Payload;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// A first build of MinIO from source takes many minutes on a small machine; later runs use the cache.
const BUILD_TIMEOUT_MS = 45 * 60_000;

const freshDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
/** Sets every file's date `ms` into the past, as if all of it had been written then. */
const backdate = (dir: string, ms: number) => {
  const then = new Date(Date.now() - ms);
  for (const file of filesUnder(dir)) utimesSync(file, then, then);
};
/** Sets one blob's date `ms` into the past. */
const backdateBlob = (root: string, key: string, ms: number) => {
  const then = new Date(Date.now() - ms);
  utimesSync(join(root, key.slice(0, 2), key), then, then);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A namespace of its own on the shared test server: the collector looks at every execution of its
 * namespace, and other test files run theirs in `default` with stores and keys of their own.
 */
async function freshNamespace(raw: Client): Promise<string> {
  const namespace = `got-gc-${randomUUID().slice(0, 8)}`;
  await raw.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  for (let attempt = 0; ; attempt++) {
    try {
      await raw.workflowService.listWorkflowExecutions({ namespace });
      break;
    } catch (error) {
      if (attempt > 100) throw error;
      await sleep(200);
    }
  }
  await ensureSearchAttributes({ address: inject('temporalAddress') }, namespace);
  return namespace;
}

/** A document merge whose problem (about 20 KB) is kept by reference, with steps whose inputs go to the store. */
const docMerge = (seed: number) => ({
  task: 'doc-merge',
  problem: {
    documents: docMergeTask
      .generateProblem(4, seed)
      .documents.map(
        (d: string, i: number) => `${d}\n${`Annex ${i}: the recipient keeps every drawing of annex ${i} locked away. `.repeat(70)}`,
      ),
  },
  goo: docMergeTask.schemes.got!({ size: 4 }),
  labels: { scheme: 'got' },
});

/** What one scene (a store, a namespace, its runs) holds for the checks. */
interface Scene {
  h: Harness;
  raw: Client;
  namespace: string;
  store: BlobStore;
  payloads: PayloadStore;
  codecs: readonly PayloadCodec[];
  runs: WorkflowHandle[];
  /** An open execution whose stored input holds a `StoredRef` to `nested`: that blob is referred to only from inside another. */
  holder: WorkflowHandle;
  nested: StoredRef;
}

async function startScene(raw: Client, dataConverter: DataConverter, store: BlobStore): Promise<Scene> {
  const namespace = await freshNamespace(raw);
  const h = await startHarness({ llm: { latencyMs: 2 }, dataConverter, namespace });
  const payloads = payloadStoreOf(dataConverter)!;
  const handles = await Promise.all([
    startRun(h.client, docMerge(1), { taskQueue: h.taskQueue }),
    startRun(h.client, docMerge(2), { taskQueue: h.taskQueue }),
    startRun(
      h.client,
      {
        task: 'sorting',
        problem: sortingTask.generateProblem(32, 1),
        goo: sortingTask.schemes.got!({ size: 32 }),
        labels: { scheme: 'got' },
      },
      { taskQueue: h.taskQueue },
    ),
  ]);
  for (const handle of handles) expect((await resultOf(handle)).status).toBe('answered');
  const nested = await payloads.putValue({ documents: ['Only a stored payload refers to this value.'] });
  // No worker polls this queue: the execution stays open, its large input stored by the client.
  const holder = await h.client.workflow.start('gcTestHolder', {
    taskQueue: `nobody-${randomUUID()}`,
    workflowId: `holder-${randomUUID()}`,
    args: [{ note: 'x'.repeat(6_000), problemRef: nested }],
  });
  return { h, raw, namespace, store, payloads, codecs: dataConverter.payloadCodecs ?? [], runs: handles, holder, nested };
}

const gc = (s: Scene, o: Partial<StoreGcOptions> = {}) =>
  collectStoreGarbage({
    workflowService: s.raw.workflowService,
    namespace: s.namespace,
    store: s.store,
    codecs: s.codecs,
    graceMs: HOUR,
    ...o,
  });

async function listedKeys(store: BlobStore): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const blob of store.list()) if (!blob.partial) keys.add(blob.key);
  return keys;
}

async function putOrphans(store: BlobStore, count: number): Promise<{ key: string; bytes: number }[]> {
  const orphans = Array.from({ length: count }, (_, i) => new Uint8Array(randomBytes(100 + i)));
  const puts = orphans.map((data) => async () => store.put(sha256(data), data));
  for (let i = 0; i < puts.length; i += 32) await Promise.all(puts.slice(i, i + 32).map((put) => put()));
  return orphans.map((data) => ({ key: sha256(data), bytes: data.length }));
}

/** Every run still reads in full through the store: results, histories rebuilt (claims resolved), and every value kept by reference. */
async function expectRunsReadable(s: Scene): Promise<void> {
  const found = new StoreReferences(s.codecs);
  for (const handle of s.runs) {
    expect((await resultOf(handle)).status).toBe('answered');
    const { grs, history } = await inspectRun(s.h.client, handle.workflowId);
    expect(grs.thoughts.length).toBeGreaterThan(0);
    await found.scanMessage(history, handle.workflowId);
  }
  await found.scanMessage(await s.holder.fetchHistory(), s.holder.workflowId);
  // Every blob referred to reads, and so does every blob those refer to (the stored step inputs hold their run's problemRef).
  const read = new Set<string>();
  for (let next = [...found.found.keys()]; next.length; next = [...found.found.keys()].filter((k) => !read.has(k))) {
    for (const key of next) {
      read.add(key);
      await found.scanPayload(PayloadProto.decode(await s.store.get(key)), `blob ${key}`);
    }
  }
  expect(found.found.has(s.nested.key)).toBe(true);
  expect(await s.payloads.getValue(s.nested)).toEqual({ documents: ['Only a stored payload refers to this value.'] });
}

/** Both kinds of reference occur: External Storage claims in the raw history, and a StoredRef found only inside a stored payload. */
async function expectBothKinds(s: Scene): Promise<void> {
  const raw = s.raw.workflowService;
  const events = async (handle: WorkflowHandle) =>
    (await raw.getWorkflowExecutionHistory({ namespace: s.namespace, execution: { workflowId: handle.workflowId } })).history?.events ?? [];
  const claims = payloadsIn(await events(s.runs[0]!)).filter(isReferencePayload);
  expect(claims.length).toBeGreaterThan(3);
  const direct = new StoreReferences(s.codecs);
  await direct.scanMessage(await events(s.holder), 'holder');
  expect(direct.found.size).toBe(1);
  expect(direct.found.has(s.nested.key)).toBe(false);
}

function expectNothingDeletedBy(report: StoreGcReport): void {
  expect(report.deleted).toEqual([]);
  expect(report.blobs.deleted.count).toBe(0);
}

describe('got store gc on a folder store', () => {
  let raw: Client;
  let s: Scene;
  let root: string;
  let oldOrphans: { key: string; bytes: number }[];
  let freshOrphan: { key: string; bytes: number };
  let staleTemp: string;
  let freshTemp: string;

  beforeAll(async () => {
    raw = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
    root = freshDir('got-gc-store-');
    const store = new DirectoryBlobStore(root);
    s = await startScene(raw, dataConverterFromEnv({ GOT_STORE: root, GOT_STORE_THRESHOLD_BYTES: '4096' })!, store);
    oldOrphans = await putOrphans(store, 5);
    // A writer killed mid-write left this temporary file two days ago.
    mkdirSync(join(root, 'ee'), { recursive: true });
    staleTemp = join(root, 'ee', `${'e'.repeat(64)}.0a1b2c.tmp`);
    writeFileSync(staleTemp, 'half a blob');
    // Everything so far, the runs' blobs included, was written two days ago: only references keep them.
    backdate(root, 2 * DAY);
    freshOrphan = (await putOrphans(store, 1))[0]!;
    mkdirSync(join(root, 'ff'), { recursive: true });
    freshTemp = join(root, 'ff', `${'f'.repeat(64)}.3d4e5f.tmp`);
    writeFileSync(freshTemp, 'a write in progress');
  });

  afterAll(async () => {
    await s?.holder.terminate().catch(() => undefined);
    await s?.h.close();
    await raw?.connection.close();
  });

  it('has both kinds of reference to collect from: claims in the history and refs inside stored payloads', async () => {
    await expectBothKinds(s);
  });

  it('dry run: lists exactly the old orphans and the abandoned write, with the bytes they free, and deletes nothing', async () => {
    const before = filesUnder(root).sort();
    const report = await gc(s, { dryRun: true });
    expect(filesUnder(root).sort()).toEqual(before);
    expect(report.dryRun).toBe(true);
    expect(report.executions).toBe(4);
    expect(report.openExecutions).toBe(1);
    expect(new Set(report.deleted.filter((d) => !d.partial).map((d) => d.key))).toEqual(new Set(oldOrphans.map((o) => o.key)));
    expect(report.blobs.deleted.bytes).toBe(oldOrphans.reduce((sum, o) => sum + o.bytes, 0));
    expect(report.deleted.filter((d) => d.partial).map((d) => d.key)).toEqual([staleTemp.split('/').pop()]);
    expect(report.abandonedWrites.inProgress).toBe(1);
    expect(report.blobs.keptRecent.count).toBe(1);
    expect(report.storedPayloadsRead.count).toBeGreaterThan(0);
  });

  it('deletes exactly the old orphans and the abandoned write; every run still reads in full', async () => {
    const before = await listedKeys(s.store);
    const report = await gc(s);
    process.stderr.write(
      `[store-gc] folder: ${report.executions} executions, ${report.blobs.listed.count} blobs listed, ${report.referenced} referenced, ${report.storedPayloadsRead.count} stored payloads read, ${report.blobs.deleted.count} deleted in ${report.ms.total} ms (${JSON.stringify(report.ms)})\n`,
    );
    expect(new Set(report.deleted.filter((d) => !d.partial).map((d) => d.key))).toEqual(new Set(oldOrphans.map((o) => o.key)));
    const after = await listedKeys(s.store);
    expect([...before].filter((k) => !after.has(k)).sort()).toEqual(oldOrphans.map((o) => o.key).sort());
    expect(after.has(freshOrphan.key)).toBe(true);
    expect(after.has(s.nested.key)).toBe(true);
    expect(filesUnder(root)).not.toContain(staleTemp);
    expect(filesUnder(root)).toContain(freshTemp);
    expect(report.blobs.keptReferenced.count).toBe(report.referenced);
    expect(report.blobs.listed.count).toBe(report.referenced + 1 + oldOrphans.length);
    await expectRunsReadable(s);
    // A second pass finds nothing more.
    expectNothingDeletedBy(await gc(s));
  });

  it('deletes nothing when a history cannot be read midway, or the listing fails', async () => {
    const [orphan] = await putOrphans(s.store, 1);
    backdateBlob(root, orphan!.key, 2 * DAY);
    let calls = 0;
    const failingHistory = new Proxy(s.raw.workflowService, {
      get(target, property, receiver) {
        if (property === 'getWorkflowExecutionHistory')
          return async (request: Parameters<WorkflowService['getWorkflowExecutionHistory']>[0]) => {
            if (++calls === 3) throw new Error('connection reset by peer');
            return target.getWorkflowExecutionHistory(request);
          };
        return Reflect.get(target, property, receiver);
      },
    });
    await expect(gc(s, { workflowService: failingHistory })).rejects.toThrow(
      /nothing deleted: reading the history of workflow .*: connection reset by peer/,
    );
    const failingList = new Proxy(s.raw.workflowService, {
      get(target, property, receiver) {
        if (property === 'listWorkflowExecutions') return async () => Promise.reject(new Error('visibility unavailable'));
        return Reflect.get(target, property, receiver);
      },
    });
    await expect(gc(s, { workflowService: failingList })).rejects.toBeInstanceOf(StoreGcRefusedError);
    expect(await s.store.has(orphan!.key)).toBe(true);
    expect((await gc(s)).deleted.map((d) => d.key)).toEqual([orphan!.key]);
  });

  it('refuses when retained runs refer to blobs the store lacks (the wrong store?), unless told they are lost', async () => {
    const elsewhere = new DirectoryBlobStore(freshDir('got-gc-other-'));
    const [stranger] = await putOrphans(elsewhere, 1);
    backdate(elsewhere.root, 2 * DAY);
    await expect(gc(s, { store: elsewhere })).rejects.toThrow(
      /nothing deleted: \d+ blob\(s\) that retained runs refer to are not in directory/,
    );
    expect(await elsewhere.has(stranger!.key)).toBe(true);
    const report = await gc(s, { store: elsewhere, allowMissing: true });
    expect(report.deleted.map((d) => d.key)).toEqual([stranger!.key]);
    expect(report.missing.length).toBe(report.referenced);
  });

  describe('the command', () => {
    const run = promisify(execFile);
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_') && !k.startsWith('TEMPORAL_')));
    const got = async (args: string[], env: Record<string, string>) => {
      try {
        const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
          env: { ...inherited, ...env },
        });
        return { code: 0, stdout, stderr };
      } catch (e) {
        return e as { code: number; stdout: string; stderr: string };
      }
    };

    it('refuses without a store, or with a grace too short to be safe (exit code 2)', async () => {
      const off = await got(['store', 'gc'], { GOT_STORE: 'off', TEMPORAL_ADDRESS: '127.0.0.1:1' });
      expect(off.code).toBe(2);
      expect(off.stderr).toContain('GOT_STORE is off, so there is no payload store');
      const short = await got(['store', 'gc', '--grace', '5m'], { GOT_STORE: root, TEMPORAL_ADDRESS: '127.0.0.1:1' });
      expect(short.code).toBe(2);
      expect(short.stderr).toContain('5m is too short: at least 1h');
      const nonsense = await got(['store', 'gc', '--grace', 'soon'], { GOT_STORE: root, TEMPORAL_ADDRESS: '127.0.0.1:1' });
      expect(nonsense.code).toBe(2);
      expect(nonsense.stderr).toContain('"soon" is not a duration');
    });

    it('collects the namespace the environment names, with the default grace of a day', async () => {
      await gc(s); // whatever earlier tests left
      const [orphan] = await putOrphans(s.store, 1);
      backdateBlob(root, orphan!.key, 2 * DAY);
      const env = { GOT_STORE: root, TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: s.namespace };
      const dry = await got(['store', 'gc', '--dry-run'], env);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/would delete +1 blob, 1\d\d B/);
      expect(dry.stdout).toContain(orphan!.key);
      const real = await got(['store', 'gc', '--json'], env);
      expect(real.code).toBe(0);
      const report = JSON.parse(real.stdout) as StoreGcReport;
      expect(report.graceMs).toBe(DAY);
      expect(report.deleted.map((d) => d.key)).toEqual([orphan!.key]);
      expect(await s.store.has(orphan!.key)).toBe(false);
      await expectRunsReadable(s);
    });
  });
});

describe('got store gc with encrypted payloads', () => {
  let raw: Client;
  let s: Scene;
  let root: string;
  let oldOrphans: { key: string; bytes: number }[];

  beforeAll(async () => {
    raw = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
    root = freshDir('got-gc-encrypted-');
    const converter = dataConverterFromEnv({ GOT_STORE: root, GOT_STORE_THRESHOLD_BYTES: '4096', GOT_CODEC_KEYS: generateCodecKey('k1') })!;
    s = await startScene(raw, converter, new DirectoryBlobStore(root));
    oldOrphans = await putOrphans(s.store, 3);
    backdate(root, 2 * DAY);
  });

  afterAll(async () => {
    await s?.holder.terminate().catch(() => undefined);
    await s?.h.close();
    await raw?.connection.close();
  });

  it('refuses without the keys: the references inside encrypted payloads cannot be read', async () => {
    await expectBothKinds(s);
    const before = filesUnder(root).sort();
    await expect(gc(s, { codecs: [] })).rejects.toThrow(/nothing deleted: .*encrypted \(key "k1"\) and GOT_CODEC_KEYS is not set/);
    const otherKeys = dataConverterFromEnv({ GOT_STORE: 'off', GOT_CODEC_KEYS: generateCodecKey('k2') })!.payloadCodecs!;
    await expect(gc(s, { codecs: otherKeys })).rejects.toThrow(/nothing deleted: .*k1/);
    expect(filesUnder(root).sort()).toEqual(before);
  });

  it('with the keys, finds the references inside encrypted payloads and deletes exactly the old orphans', async () => {
    const report = await gc(s);
    const deleted = new Set(report.deleted.map((d) => d.key));
    for (const orphan of oldOrphans) expect(deleted.has(orphan.key)).toBe(true);
    // Besides them, only what the runs stored but no history holds: a local activity's input (its request) is
    // stored by the worker and never recorded; encrypted under a fresh IV it is a blob of its own, not one
    // shared with the identical workflow input as in a plain store.
    expect(deleted.size - oldOrphans.length).toBeLessThanOrEqual(2 * s.runs.length);
    expect(report.blobs.keptReferenced.count).toBe(report.referenced);
    await expectRunsReadable(s);
  });
});

describe('got store gc on an S3 store (MinIO)', () => {
  let dir: string;
  let minio: MinioHandle;
  let raw: Client;
  let s: Scene;
  let store: S3BlobStore;
  let oldOrphans: { key: string; bytes: number }[];
  let freshOrphan: { key: string; bytes: number };
  let foreign: string;
  let notes: S3BlobStore;
  const GRACE_MS = 3_000;

  beforeAll(async () => {
    await ensureMinio({ log: (line) => process.stderr.write(`[minio] ${line}\n`) });
    dir = freshDir('got-gc-s3-');
    minio = await startMinio({ dataDir: join(dir, 'data'), logFile: join(dir, 'minio.log') });
    const env = {
      GOT_STORE: `s3://${minio.bucket}/runs`,
      GOT_S3_ENDPOINT: minio.endpoint,
      AWS_ACCESS_KEY_ID: minio.accessKey,
      AWS_SECRET_ACCESS_KEY: minio.secretKey,
      GOT_STORE_THRESHOLD_BYTES: '4096',
    };
    store = s3StoreFromEnv(env.GOT_STORE, env);
    raw = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
    s = await startScene(raw, dataConverterFromEnv(env)!, store);
    // More than a page of the listing and a batch of DeleteObjects (1,000 each).
    oldOrphans = await putOrphans(store, 1_050);
    // An object under the prefix that is not a blob: never listed, never deleted.
    foreign = 'a'.repeat(64);
    notes = s3StoreFromEnv(`s3://${minio.bucket}/runs/notes`, env);
    await notes.put(foreign, new TextEncoder().encode('kept by someone else'));
    // S3 dates cannot be set back: the grace is a few seconds, and the old blobs wait longer than it.
    await sleep(GRACE_MS + 1_500);
    freshOrphan = (await putOrphans(store, 1))[0]!;
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await s?.holder.terminate().catch(() => undefined);
    await s?.h.close();
    await raw?.connection.close();
    store?.close();
    notes?.close();
    await minio?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists, keeps what the runs refer to, and deletes exactly the old orphans in batches', async () => {
    await expectBothKinds(s);
    const dry = await gc(s, { dryRun: true, graceMs: GRACE_MS });
    expect(dry.deleted.length).toBe(oldOrphans.length);
    expect(dry.blobs.listed.count).toBe(dry.referenced + oldOrphans.length + 1);
    expect((await listedKeys(store)).size).toBe(dry.blobs.listed.count);

    const report = await gc(s, { graceMs: GRACE_MS });
    process.stderr.write(
      `[store-gc] S3: ${report.executions} executions, ${report.blobs.listed.count} blobs listed, ${report.referenced} referenced, ${report.storedPayloadsRead.count} stored payloads read, ${report.blobs.deleted.count} deleted in ${report.ms.total} ms (${JSON.stringify(report.ms)})\n`,
    );
    expect(new Set(report.deleted.map((d) => d.key))).toEqual(new Set(oldOrphans.map((o) => o.key)));
    const after = await listedKeys(store);
    expect(after.size).toBe(report.referenced + 1);
    expect(after.has(freshOrphan.key)).toBe(true);
    expect(await notes.has(foreign)).toBe(true);
    await expectRunsReadable(s);
  });
});
