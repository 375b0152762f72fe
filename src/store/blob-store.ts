/**
 * Where large payloads live outside Temporal's history (the claim check, docs/decisions.md 32):
 * a flat key-value store of immutable blobs. Keys are content hashes chosen by the caller, so a
 * blob written twice is the same blob and a retried write is harmless.
 */
export interface BlobStore {
  /** Names the store in messages and `got doctor`, e.g. `directory /var/got/store` or `s3://bucket/prefix`. */
  readonly description: string;
  /** Writes a blob under `key`; writing an existing key again is a no-op. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** Reads the blob under `key`; throws `BlobNotFoundError` when there is none. */
  get(key: string): Promise<Uint8Array>;
  /** Whether a blob exists under `key` (lets a writer skip uploading what is there). */
  has(key: string): Promise<boolean>;
}

/** A blob a reference points to is missing from the store (wrong store configured, or deleted). */
export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  constructor(
    readonly key: string,
    readonly store: string,
  ) {
    super(`blob ${key} is not in the payload store (${store}): every client and worker of a deployment must share one store (GOT_STORE)`);
  }
}

/** Keys are lowercase hex SHA-256 digests: safe as file names and object keys alike. */
export const BLOB_KEY = /^[0-9a-f]{64}$/;
