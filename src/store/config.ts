import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExternalStorage, type PayloadCodec } from '@temporalio/common';
import type { BlobStore } from './blob-store';
import { DirectoryBlobStore } from './directory-store';
import { PayloadStore } from './payload-store';
import { STORE_ENV, storeThresholdFromEnv } from './route';

export { DEFAULT_STORE_THRESHOLD_BYTES, STORE_ENV, STORE_THRESHOLD_ENV, storeThresholdFromEnv } from './route';

/** The embedded default: one folder per user, shared by the CLI and every worker on this machine. */
export const defaultStoreDir = (env: NodeJS.ProcessEnv = process.env) =>
  join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'got-temporal', 'store');

/** The blob store `GOT_STORE` names (undefined for `off`); errors name the variable and the value. */
export function blobStoreFromEnv(env: NodeJS.ProcessEnv = process.env): BlobStore | undefined {
  const value = env[STORE_ENV]?.trim();
  if (value === 'off') return undefined;
  if (!value) return new DirectoryBlobStore(defaultStoreDir(env));
  // The S3 client is loaded on first use: a CLI command that stores nothing does not pay for it.
  if (value.startsWith('s3://')) return lazyStore(value, async () => (await import('./s3-store')).s3StoreFromEnv(value, env));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    throw new Error(`${STORE_ENV}=${value}: unknown kind of store; expected a folder, s3://bucket/prefix or off`);
  return new DirectoryBlobStore(resolve(value));
}

/** Temporal's External Storage over one payload store: what the data converter of every client, worker and replayer carries. */
export function externalStorageOf(store: PayloadStore): ExternalStorage {
  return new ExternalStorage({ drivers: [store], payloadSizeThreshold: store.threshold });
}

/** The payload store configured by the environment, with the deployment's codecs; undefined when `GOT_STORE=off`. */
export function payloadStoreFromEnv(codecs: readonly PayloadCodec[], env: NodeJS.ProcessEnv = process.env): PayloadStore | undefined {
  const blobs = blobStoreFromEnv(env);
  return blobs ? new PayloadStore(blobs, codecs, storeThresholdFromEnv(env)) : undefined;
}

/** A store made on first use (its description known before). */
function lazyStore(description: string, make: () => Promise<BlobStore>): BlobStore {
  let made: Promise<BlobStore> | undefined;
  const store = () => {
    made ??= make();
    // A failed start is tried again on the next use.
    made.catch(() => {
      made = undefined;
    });
    return made;
  };
  return {
    description,
    put: async (key, data) => (await store()).put(key, data),
    get: async (key) => (await store()).get(key),
    has: async (key) => (await store()).has(key),
    async *list() {
      yield* (await store()).list();
    },
    delete: async (entries, writtenBefore) => (await store()).delete(entries, writtenBefore),
  };
}
