/**
 * Where large payloads live outside Temporal's history (the claim check, docs/decisions.md 32):
 * a flat key-value store of immutable blobs. Keys are content hashes chosen by the caller, so a
 * blob written twice is the same blob and a retried write is harmless.
 */
export interface BlobStore {
  /** Names the store in messages and `got doctor`, e.g. `directory /var/got/store` or `s3://bucket/prefix`. */
  readonly description: string;
  /**
   * Writes a blob under `key`. Writing an existing key again writes nothing, but renews the blob's
   * last-modified time when it is older than {@link BLOB_REFRESH_MS}: `got store gc` deletes only
   * blobs older than its grace, so a blob a new run reuses is never taken as an old orphan.
   */
  put(key: string, data: Uint8Array): Promise<void>;
  /** Reads the blob under `key`; throws `BlobNotFoundError` when there is none. */
  get(key: string): Promise<Uint8Array>;
  /** Whether a blob exists under `key` (lets a writer skip uploading what is there). */
  has(key: string): Promise<boolean>;
  /** Every blob in the store, in no particular order; anything else in the folder or bucket is not listed. */
  list(): AsyncIterable<StoredBlob>;
  /**
   * Deletes the listed entries that were last written before `writtenBefore`, checking each again
   * as it goes (a writer may have reused one since it was listed); returns the entries deleted.
   */
  delete(entries: readonly StoredBlob[], writtenBefore: Date): Promise<StoredBlob[]>;
}

/** One entry of a store's listing. */
export interface StoredBlob {
  /** The blob's key; for a partial write, the temporary file's name. */
  key: string;
  bytes: number;
  /** When it was last written (or its date renewed by a writer reusing it). */
  modified: Date;
  /** A write that has not finished (a folder's temporary file): in progress, or left by a killed writer. */
  partial?: true;
}

/**
 * A reused blob's last-modified time is renewed when older than this (10 minutes): often enough that
 * a blob in use is never older than a grace of an hour or more, rarely enough that reuse costs
 * about nothing (one `utimes`, or on S3 one upload of the blob per 10 minutes at most).
 */
export const BLOB_REFRESH_MS = 10 * 60_000;

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
