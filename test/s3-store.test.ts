import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { generateCodecKey } from '../src/codec/keys';
import { ensureMinio, type MinioHandle, startMinio } from '../src/devserver/minio';
import { BlobNotFoundError } from '../src/store/blob-store';
import { parseS3Url, S3BlobStore, S3StoreError, s3StoreFromEnv } from '../src/store/s3-store';
import { docMergeTask } from '../src/tasks/doc-merge';
import { type Harness, startHarness } from './support/harness';

// A first build of MinIO from source takes many minutes on a small machine; later runs use the cache.
const BUILD_TIMEOUT_MS = 45 * 60_000;

const keyOf = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const text = (s: string) => new TextEncoder().encode(s);
/** A plain S3 client with the server's root credentials, to look at the bucket as it is. */
const adminClient = (minio: MinioHandle) =>
  new S3Client({
    endpoint: minio.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
  });

describe('S3BlobStore against a real MinIO', () => {
  let dir: string;
  let minio: MinioHandle;
  const stores: S3BlobStore[] = [];

  const storeFor = (overrides: { prefix?: string; bucket?: string; accessKey?: string; secretKey?: string } = {}) => {
    const store = new S3BlobStore({
      bucket: overrides.bucket ?? minio.bucket,
      prefix: overrides.prefix,
      endpoint: minio.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: overrides.accessKey ?? minio.accessKey, secretAccessKey: overrides.secretKey ?? minio.secretKey },
    });
    stores.push(store);
    return store;
  };

  const objectKeys = async (prefix: string) => {
    const client = adminClient(minio);
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: minio.bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key);
    } finally {
      client.destroy();
    }
  };

  beforeAll(async () => {
    await ensureMinio({ log: (line) => process.stderr.write(`[minio] ${line}\n`) });
    dir = await mkdtemp(join(tmpdir(), 'got-s3-'));
    minio = await startMinio({ dataDir: join(dir, 'data'), logFile: join(dir, 'minio.log') });
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    for (const store of stores) store.close();
    await minio?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('round-trips a small blob, a 5 MB blob and every byte value', async () => {
    const store = storeFor({ prefix: 'round-trip' });
    const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (const data of [text('{"documents":["short"]}'), new Uint8Array(randomBytes(5 * 1024 * 1024)), everyByte]) {
      const key = keyOf(data);
      await store.put(key, data);
      const back = await store.get(key);
      expect(back.length).toBe(data.length);
      expect(keyOf(back)).toBe(key);
    }
  });

  it('says whether a blob is there', async () => {
    const store = storeFor({ prefix: 'has' });
    const data = text('present later');
    const key = keyOf(data);
    expect(await store.has(key)).toBe(false);
    await store.put(key, data);
    expect(await store.has(key)).toBe(true);
  });

  it('throws BlobNotFoundError for a key nothing was written under', async () => {
    const store = storeFor({ prefix: 'missing' });
    const key = keyOf(text('never written'));
    const error = await store.get(key).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BlobNotFoundError);
    expect((error as BlobNotFoundError).key).toBe(key);
    expect((error as BlobNotFoundError).message).toContain(`s3://${minio.bucket}/missing`);
  });

  it('does not upload again what is already stored under a key', async () => {
    const store = storeFor({ prefix: 'idempotent' });
    const first = text('the first bytes');
    const key = keyOf(first);
    await store.put(key, first);
    // Keys are content hashes, so other bytes under the same key cannot happen in use: here they
    // show that the second put left the object alone.
    await store.put(key, text('other bytes'));
    expect(new TextDecoder().decode(await store.get(key))).toBe('the first bytes');
  });

  it('lays objects out as <prefix>/<first two hex digits>/<key>', async () => {
    const data = text('laid out');
    const key = keyOf(data);
    await storeFor({ prefix: '/runs/2026/' }).put(key, data);
    await storeFor().put(key, data);
    expect(await objectKeys('runs/')).toEqual([`runs/2026/${key.slice(0, 2)}/${key}`]);
    expect(await objectKeys(`${key.slice(0, 2)}/`)).toEqual([`${key.slice(0, 2)}/${key}`]);
  });

  it('refuses a key that is not a SHA-256 hex digest', async () => {
    const store = storeFor();
    await expect(store.put('../escape', text('x'))).rejects.toThrow('"../escape" is not a blob key');
    await expect(store.get('ABC')).rejects.toThrow('is not a blob key');
  });

  it('reports wrong credentials clearly, without the credentials', async () => {
    const accessKey = 'not-the-access-key';
    const secretKey = 'not-the-secret-key-at-all';
    const data = text('unwritable');
    const key = keyOf(data);
    for (const store of [storeFor({ secretKey }), storeFor({ accessKey, secretKey })]) {
      for (const attempt of [() => store.put(key, data), () => store.get(key)]) {
        const error = await attempt().catch((err: unknown) => err);
        expect(error).toBeInstanceOf(S3StoreError);
        const { message, status } = error as S3StoreError;
        expect(status).toBe(403);
        expect(message).toMatch(/^s3:\/\/\S+ at http:\S+: (put|get) [0-9a-f]{64} failed: HTTP 403 /);
        expect(message).not.toContain('UnknownError');
        expect(message).toContain('check the access key, the secret key');
        expect(message).not.toContain(secretKey);
        expect(message).not.toContain(accessKey);
        expect(message).not.toContain(minio.secretKey);
      }
    }
  });

  it('tells a missing bucket apart from a missing blob', async () => {
    const store = storeFor({ bucket: 'no-such-bucket' });
    const data = text('nowhere to go');
    const key = keyOf(data);
    const onGet = await store.get(key).catch((err: unknown) => err);
    expect(onGet).toBeInstanceOf(S3StoreError);
    expect((onGet as S3StoreError).code).toBe('NoSuchBucket');
    await expect(store.put(key, data)).rejects.toThrow(/NoSuchBucket/);
  });

  it('is configured from an s3:// URL and the environment', async () => {
    const env = {
      GOT_S3_ENDPOINT: minio.endpoint,
      AWS_ACCESS_KEY_ID: minio.accessKey,
      AWS_SECRET_ACCESS_KEY: minio.secretKey,
    };
    const store = s3StoreFromEnv(`s3://${minio.bucket}/from-env`, env);
    stores.push(store);
    expect(store.description).toBe(`s3://${minio.bucket}/from-env at ${minio.endpoint}`);
    const data = text('configured from the environment');
    const key = keyOf(data);
    await store.put(key, data);
    expect(await objectKeys('from-env/')).toEqual([`from-env/${key.slice(0, 2)}/${key}`]);
    expect(() => s3StoreFromEnv('s3://bucket', { GOT_S3_ENDPOINT: '127.0.0.1:9000' })).toThrow(
      'GOT_S3_ENDPOINT is "127.0.0.1:9000", not an http(s) URL',
    );
  });

  it('keeps blobs and bucket across a restart on the same data folder', async () => {
    const data = text('survives a restart');
    const key = keyOf(data);
    await storeFor({ prefix: 'restart' }).put(key, data);
    await minio.stop();
    minio = await startMinio({ dataDir: join(dir, 'data'), logFile: join(dir, 'minio.log') });
    expect(new TextDecoder().decode(await storeFor({ prefix: 'restart' }).get(key))).toBe('survives a restart');
  });
});

describe('parseS3Url', () => {
  it('reads the bucket and the prefix', () => {
    expect(parseS3Url('s3://got-payloads')).toEqual({ bucket: 'got-payloads', prefix: '' });
    expect(parseS3Url('s3://got-payloads/')).toEqual({ bucket: 'got-payloads', prefix: '' });
    expect(parseS3Url('s3://got.payloads/team/runs/')).toEqual({ bucket: 'got.payloads', prefix: 'team/runs' });
  });

  it('names the value it cannot read', () => {
    expect(() => parseS3Url('/var/got/store')).toThrow('"/var/got/store" is not an S3 store URL: expected s3://<bucket>[/<prefix>]');
    expect(() => parseS3Url('s3:/bucket')).toThrow('"s3:/bucket" is not an S3 store URL');
    expect(() => parseS3Url('s3://')).toThrow('"s3://" names no bucket');
    expect(() => parseS3Url('s3:///prefix')).toThrow('"s3:///prefix" names no bucket');
    expect(() => parseS3Url('s3://My_Bucket/x')).toThrow('"My_Bucket" is not a valid bucket name');
    expect(() => parseS3Url('s3://ab')).toThrow('"ab" is not a valid bucket name');
    expect(() => parseS3Url('s3://bucket/a//b')).toThrow('the prefix "a//b" has an empty');
    expect(() => parseS3Url('s3://bucket/../b')).toThrow('the prefix "../b" has an empty, "." or ".." segment');
    expect(() => parseS3Url('s3://bucket/p?versionId=1')).toThrow('no spaces, backslashes, queries or fragments');
  });
});

describe('a document merge whose payloads live in MinIO, encrypted', () => {
  let dir: string;
  let minio: MinioHandle;
  let h: Harness;
  let raw: Client;
  const problem = {
    documents: docMergeTask
      .generateProblem(4, 8)
      .documents.map(
        (d: string, i: number) => `${d}\n${`Schedule ${i}: the vendor deletes every copy of schedule ${i} on request. `.repeat(250)}`,
      ),
  };
  const sentence = 'deletes every copy of schedule 1';

  beforeAll(async () => {
    await ensureMinio({ log: (line) => process.stderr.write(`[minio] ${line}\n`) });
    dir = await mkdtemp(join(tmpdir(), 'got-s3-run-'));
    minio = await startMinio({ dataDir: join(dir, 'data'), logFile: join(dir, 'minio.log') });
    const env = {
      GOT_STORE: `s3://${minio.bucket}/runs`,
      GOT_S3_ENDPOINT: minio.endpoint,
      AWS_ACCESS_KEY_ID: minio.accessKey,
      AWS_SECRET_ACCESS_KEY: minio.secretKey,
      GOT_STORE_THRESHOLD_BYTES: '4096',
      GOT_CODEC_KEYS: generateCodecKey('k1'),
    };
    h = await startHarness({ llm: { latencyMs: 5 }, dataConverter: dataConverterFromEnv(env) });
    raw = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await raw?.connection.close();
    await h?.close();
    await minio?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('completes with no document text in the history or the bucket, and reads back through the store', async () => {
    const handle = await startRun(
      h.client,
      { task: 'doc-merge', problem, goo: docMergeTask.schemes.got!({ size: 4 }), labels: { scheme: 'got' } },
      { taskQueue: h.taskQueue },
    );
    const result = await resultOf(handle);
    expect(result.status).toBe('answered');
    // The merged answer came back through the store and the keys: readable text.
    expect(result.best!.state.merged).toContain('schedule');

    const history = await raw.workflow.getHandle(handle.workflowId).fetchHistory();
    const bytes = proto.temporal.api.history.v1.History.encode(history).finish();
    expect(Buffer.from(bytes).toString('latin1')).toContain('ExternalStorageReference');
    expect(bytes.length).toBeLessThan(200_000);

    const client = adminClient(minio);
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: minio.bucket, Prefix: 'runs/' }));
      const keys = (listed.Contents ?? []).map((o) => o.Key!);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const object = await client.send(new GetObjectCommand({ Bucket: minio.bucket, Key: key }));
        expect(Buffer.from(await object.Body!.transformToByteArray()).toString('latin1')).not.toContain(sentence);
      }
    } finally {
      client.destroy();
    }
  });
});
