import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { probeStore } from '../src/cli/commands/doctor';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv, payloadStoreOf } from '../src/codec/data-converter';
import { generateCodecKey } from '../src/codec/keys';
import { startCodecServer } from '../src/codec/server';
import { inspectRun, runRequestOf } from '../src/inspect/rebuild';
import type { RunRequestInput } from '../src/run/request';
import { BlobNotFoundError } from '../src/store/blob-store';
import { blobStoreFromEnv, DEFAULT_STORE_THRESHOLD_BYTES, defaultStoreDir } from '../src/store/config';
import { DirectoryBlobStore } from '../src/store/directory-store';
import { PayloadStore } from '../src/store/payload-store';
import { payloadRouteFromEnv } from '../src/store/route';
import { docMergeTask } from '../src/tasks/doc-merge';
import { type Harness, startHarness } from './support/harness';

const KEY = 'a'.repeat(64);
const freshDir = () => mkdtempSync(join(tmpdir(), 'got-store-'));
/** Every file under a folder, recursively. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

describe('the directory blob store', () => {
  it('keeps blobs by key, idempotently, without leaving partial files', async () => {
    const store = new DirectoryBlobStore(freshDir());
    expect(await store.has(KEY)).toBe(false);
    await store.put(KEY, new Uint8Array([1, 2, 3]));
    await store.put(KEY, new Uint8Array([1, 2, 3]));
    expect(await store.has(KEY)).toBe(true);
    expect([...(await store.get(KEY))]).toEqual([1, 2, 3]);
    expect(filesUnder(store.root).map((f) => f.slice(store.root.length))).toEqual([`/aa/${KEY}`]);
  });

  it('names the store and the setting when a blob is missing, and refuses keys that are not hashes', async () => {
    const store = new DirectoryBlobStore(freshDir());
    const missing = store.get('b'.repeat(64));
    await expect(missing).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(missing).rejects.toThrow(/is not in the payload store \(directory .*\): .* share one store \(GOT_STORE\)/);
    await expect(store.put('../../etc/passwd', new Uint8Array())).rejects.toThrow(/not a blob key/);
  });
});

describe('the store settings', () => {
  it('default to a folder per user, and read a folder, off or an S3 URL from GOT_STORE', () => {
    expect(blobStoreFromEnv({ HOME: '/home/u' })?.description).toBe(`directory ${defaultStoreDir({ HOME: '/home/u' })}`);
    expect(defaultStoreDir({ XDG_DATA_HOME: '/data' })).toBe('/data/got-temporal/store');
    expect(blobStoreFromEnv({ GOT_STORE: '/srv/blobs' })?.description).toBe('directory /srv/blobs');
    expect(blobStoreFromEnv({ GOT_STORE: 'off' })).toBeUndefined();
    // The S3 client loads on first use; naming the store costs nothing.
    expect(blobStoreFromEnv({ GOT_STORE: 's3://bucket/runs' })?.description).toBe('s3://bucket/runs');
    expect(() => blobStoreFromEnv({ GOT_STORE: 'ftp://host/x' })).toThrow(/GOT_STORE=ftp:\/\/host\/x: unknown kind of store/);
  });

  it('read the threshold, naming the variable when it is not a number of bytes', () => {
    expect(payloadRouteFromEnv({})).toEqual({ storeThreshold: DEFAULT_STORE_THRESHOLD_BYTES });
    expect(payloadRouteFromEnv({ GOT_STORE_THRESHOLD_BYTES: '1024' })).toEqual({ storeThreshold: 1024 });
    expect(payloadRouteFromEnv({ GOT_STORE: 'off' })).toEqual({});
    expect(() => payloadRouteFromEnv({ GOT_STORE_THRESHOLD_BYTES: '1k' })).toThrow(
      /GOT_STORE_THRESHOLD_BYTES=1k: expected a whole number of bytes/,
    );
  });
});

describe('values kept by reference', () => {
  const problem = { documents: ['The receiving party keeps the soil sensor designs secret.', 'Otter Labs returns all drawings.'] };

  it('round-trip, the same value under the same key when nothing is encrypted', async () => {
    const store = new PayloadStore(new DirectoryBlobStore(freshDir()));
    const ref = await store.putValue(problem);
    expect(ref.key).toMatch(/^[0-9a-f]{64}$/);
    expect(await store.putValue(problem)).toEqual(ref);
    expect(await new PayloadStore(store.blobs).getValue(ref)).toEqual(problem);
  });

  it('are kept only from the threshold up: a small problem stays inline', async () => {
    const store = new PayloadStore(new DirectoryBlobStore(freshDir()), [], 200);
    expect(await store.holdIfLarge(problem)).toBeUndefined();
    const large = { documents: [...problem.documents, 'x'.repeat(200)] };
    expect(await store.getValue((await store.holdIfLarge(large))!)).toEqual(large);
  });

  it('are encrypted with the deployment codec: the stored bytes hold none of the text', async () => {
    const converter = dataConverterFromEnv({ GOT_STORE: freshDir(), GOT_CODEC_KEYS: generateCodecKey('k1') })!;
    const store = payloadStoreOf(converter)!;
    const ref = await store.putValue(problem);
    const root = (store.blobs as DirectoryBlobStore).root;
    const bytes = readFileSync(filesUnder(root)[0]!).toString('latin1');
    expect(bytes).not.toContain('soil sensor');
    expect(await store.getValue(ref)).toEqual(problem);
    // Without the keys the value cannot be read.
    const plain = new PayloadStore(store.blobs);
    await expect(plain.getValue(ref)).rejects.toThrow();
  });
});

describe('the payloads a worker stored or read lately', () => {
  it("are read again from memory: a workflow task reading its activities' results, a replay, no store round trip each", async () => {
    const blobs = new DirectoryBlobStore(freshDir());
    let reads = 0;
    const counted = Object.assign(Object.create(blobs) as DirectoryBlobStore, {
      get: (key: string) => {
        reads++;
        return blobs.get(key);
      },
    });
    const payload = {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode('"a merged section"'),
    };
    const writer = new PayloadStore(counted);
    const [claim] = await writer.store({} as never, [payload]);
    expect(new TextDecoder().decode((await writer.retrieve({} as never, [claim!]))[0]!.data!)).toBe('"a merged section"');
    expect(reads).toBe(0);
    // Another process (a worker that replays the run) reads it from the store once, then from memory.
    const reader = new PayloadStore(counted);
    await reader.retrieve({} as never, [claim!]);
    await reader.retrieve({} as never, [claim!]);
    expect(reads).toBe(1);
  });
});

describe('a long document merge with the payload store', () => {
  let storeDir: string;
  let h: Harness;
  let raw: Client;
  // Four documents of about 20,000 characters: each step's input would carry 80 KB without the store.
  const problem = {
    documents: docMergeTask
      .generateProblem(4, 3)
      .documents.map(
        (d: string, i: number) => `${d}\n${`Annex ${i}: the recipient keeps every drawing of annex ${i} locked away. `.repeat(280)}`,
      ),
  };
  const request: RunRequestInput = { task: 'doc-merge', problem, goo: docMergeTask.schemes.got!({ size: 4 }), labels: { scheme: 'got' } };
  const sentence = 'the recipient keeps every drawing of annex 2 locked away';

  beforeAll(async () => {
    storeDir = freshDir();
    h = await startHarness({
      llm: { latencyMs: 5 },
      dataConverter: dataConverterFromEnv({
        GOT_STORE: storeDir,
        GOT_STORE_THRESHOLD_BYTES: '4096',
        GOT_CODEC_KEYS: generateCodecKey('k1'),
      }),
    });
    // A client without the store or keys sees the history as the server keeps it.
    raw = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  });
  afterAll(async () => {
    await raw?.connection.close();
    await h?.close();
  });

  it('keeps the documents out of the history, in the store, encrypted; results, inspect and the codec server read through it', async () => {
    const handle = await startRun(h.client, request, { taskQueue: h.taskQueue });
    const result = await resultOf(handle);
    expect(result.status).toBe('answered');
    expect(result.best!.score).toBeGreaterThan(0);

    const history = await raw.workflow.getHandle(handle.workflowId).fetchHistory();
    const bytes = proto.temporal.api.history.v1.History.encode(history).finish();
    const text = Buffer.from(bytes).toString('latin1');
    expect(text).not.toContain('drawing of annex');
    // Without the store the history would hold the 80 KB problem in its input and in every step.
    expect(bytes.length).toBeLessThan(200_000);
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.length).toBeGreaterThan(5);
    const references = text.match(/temporal\.api\.sdk\.v1\.ExternalStorageReference/g) ?? [];
    expect(references.length).toBeGreaterThan(0);

    // Every stored blob is encrypted: no document text in the store either.
    const blobs = filesUnder(storeDir);
    expect(blobs.length).toBeGreaterThan(0);
    for (const blob of blobs) expect(readFileSync(blob).toString('latin1')).not.toContain(sentence);

    // The same run rebuilt from history through the store and the keys.
    const { grs, history: fetched } = await inspectRun(h.client, handle.workflowId);
    expect(grs.thoughts.map((t) => [t.id, t.score])).toEqual(result.grs.thoughts.map((t) => [t.id, t.score]));
    // `inspect` names the run's task from its request, which the history holds as a reference.
    expect((await runRequestOf(fetched, h.client.options.dataConverter)).problem).toEqual(problem);

    // The Web UI's codec server resolves a reference, then decrypts it.
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const server = await startCodecServer({
      codec: h.client.options.dataConverter.payloadCodecs?.[0],
      externalStorage: dataConverterFromEnv({ GOT_STORE: storeDir })!.externalStorage,
      port: 0,
    });
    try {
      const Payloads = proto.temporal.api.common.v1.Payloads;
      const response = await fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(Payloads.toObject(Payloads.create({ payloads: [started] }), { bytes: String })),
      });
      expect(response.status).toBe(200);
      const decoded = Payloads.fromObject((await response.json()) as object).payloads[0]!;
      expect(Buffer.from(decoded.data!).toString('utf8')).toContain(sentence);
    } finally {
      await server.close();
    }
  });

  it('gives the same answer as the same run with every payload inline', async () => {
    const inline = await startHarness({ llm: { latencyMs: 5 } });
    try {
      const [stored, plain] = await Promise.all([
        resultOf(await startRun(h.client, { ...request, seed: 5 }, { taskQueue: h.taskQueue })),
        resultOf(await startRun(inline.client, { ...request, seed: 5 }, { taskQueue: inline.taskQueue })),
      ]);
      expect(stored.best!.state).toEqual(plain.best!.state);
      expect(stored.grs.thoughts.map((t) => t.score)).toEqual(plain.grs.thoughts.map((t) => t.score));
    } finally {
      await inline.close();
    }
  });
});

describe('a fan-out whose inline inputs would overflow one workflow task', () => {
  let h: Harness;
  beforeAll(async () => {
    // Nothing is stored below 10 MB: every step carries the 0.6 MB problem inline.
    h = await startHarness({
      dataConverter: dataConverterFromEnv({ GOT_STORE: freshDir(), GOT_STORE_THRESHOLD_BYTES: String(10_000_000) }),
    });
  });
  afterAll(async () => h?.close());

  it('completes: the Controller holds calls back until their inputs fit, so no workflow task is ever too large to send', async () => {
    const documents = [0, 1].map((i) => `Section ${i}. ${'The supplier keeps the buyer informed of every change. '.repeat(5_500)}`);
    const request: RunRequestInput = {
      task: 'doc-merge',
      problem: { documents },
      // Ten calls at once (ten independent merges), each carrying both documents: 6 MB if they were all started together.
      goo: { operations: Array.from({ length: 10 }, (_, i) => ({ id: `merge-${i}`, type: 'generate' as const, prompt: 'merge', k: 1 })) },
    };
    h.llm.resetStats();
    // A workflow task too large to send would be retried forever: this would not return.
    const result = await resultOf(await startRun(h.client, request, { taskQueue: h.taskQueue }));
    expect(result.grs.calls).toHaveLength(10);
    // At most a workflow task's worth (3 MB) in flight: four of the 0.6 MB steps at a time, not ten.
    expect(h.llm.stats().maxInFlight).toBeLessThanOrEqual(5);
  });
});

describe('got doctor on the payload store', () => {
  it('says which store runs use, from which size, and whether it answers', async () => {
    const dir = freshDir();
    expect(await probeStore({ GOT_STORE: dir })).toEqual({ description: `directory ${dir}`, threshold: 2 * 1024, ok: true });
    expect(await probeStore({ GOT_STORE: 'off' })).toEqual({ description: 'off: every payload travels inline', ok: true });
    const unreachable = await probeStore({
      GOT_STORE: 's3://got-payloads/x',
      GOT_S3_ENDPOINT: 'http://127.0.0.1:9',
      AWS_ACCESS_KEY_ID: 'a',
      AWS_SECRET_ACCESS_KEY: 'b',
    });
    expect(unreachable.ok).toBe(false);
    expect(unreachable.error).toMatch(/s3:\/\/got-payloads\/x/);
  });
});
