import { STATUS_CODES } from 'node:http';
import {
  DeleteObjectsCommand,
  type DeleteObjectsCommandOutput,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { BLOB_KEY, BLOB_REFRESH_MS, BlobNotFoundError, type BlobStore, type StoredBlob } from './blob-store';

/** The URL scheme of an S3 payload store, as in `s3://bucket/prefix`. */
export const S3_URL_SCHEME = 's3://';
/** Names an S3-compatible server other than AWS (e.g. `http://127.0.0.1:9000` for MinIO). */
export const S3_ENDPOINT_ENV = 'GOT_S3_ENDPOINT';
/** The region signed into requests when `AWS_REGION` is unset; S3-compatible servers accept it. */
export const DEFAULT_S3_REGION = 'us-east-1';

/** An access key pair, as the AWS SDK takes it. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Where an {@link S3BlobStore} keeps its blobs and how it reaches them. */
export interface S3BlobStoreOptions {
  bucket: string;
  /** Folder inside the bucket, without leading or trailing slashes; default none. */
  prefix?: string;
  /** An S3-compatible server's URL; default AWS's endpoint for the region. */
  endpoint?: string;
  /** Default {@link DEFAULT_S3_REGION}. */
  region?: string;
  /** Address buckets as `endpoint/bucket` rather than `bucket.endpoint` (MinIO needs it); default false. */
  forcePathStyle?: boolean;
  /** Default: the SDK's standard chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles). */
  credentials?: S3Credentials;
}

/** S3's limit of keys in one DeleteObjects request. */
export const S3_DELETE_BATCH = 1000;
/** HEAD requests in flight at once while deleting. */
const HEAD_CONCURRENCY = 48;
/** A HEAD answer dates an object in whole seconds (HTTP dates), so it may be up to this much later. */
const HTTP_DATE_RESOLUTION_MS = 1_000;

/** A bucket and a folder in it, read from an `s3://bucket/prefix` URL. */
export interface S3Location {
  bucket: string;
  /** Empty for the bucket's root. */
  prefix: string;
}

/** An S3 request failed for a reason other than a missing blob; the message never holds credentials. */
export class S3StoreError extends Error {
  override readonly name = 'S3StoreError';
  constructor(
    message: string,
    /** The S3 error code (`AccessDenied`, `NoSuchBucket`, ...) or the SDK's error name. */
    readonly code: string,
    /** The HTTP status, when the server answered. */
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/**
 * Blobs as objects in an S3 bucket (AWS or a compatible server such as MinIO), stored as
 * `<prefix>/<key[0..2]>/<key>` (decision 34): the two-character fan-out keeps a listing of the
 * store browsable.
 */
/**
 * An S3 client, without the SDK's notice on Node 20 (it speaks of SDK versions from 2027 on; ours is
 * pinned, and the notice landed in every command's output). A user's own setting of the variable wins.
 */
export function s3Client(config: S3ClientConfig): S3Client {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client(config);
}

export class S3BlobStore implements BlobStore {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(opts: S3BlobStoreOptions) {
    this.bucket = opts.bucket;
    this.prefix = trimSlashes(opts.prefix ?? '');
    this.description = `${S3_URL_SCHEME}${this.bucket}${this.prefix ? `/${this.prefix}` : ''}${opts.endpoint ? ` at ${opts.endpoint}` : ''}`;
    this.client = s3Client({
      region: opts.region ?? DEFAULT_S3_REGION,
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle ?? false,
      credentials: opts.credentials,
    });
  }

  /** The object key a blob is stored under. */
  objectKey(key: string): string {
    checkKey(key);
    const path = `${key.slice(0, 2)}/${key}`;
    return this.prefix ? `${this.prefix}/${path}` : path;
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    // Keys are content hashes: an object already there holds these bytes, so skip the upload, unless
    // its date needs renewing (BlobStore.put): S3 cannot touch an object, so it is uploaded again.
    const modified = await this.modifiedOf(key, 'put');
    if (modified && Date.now() - modified.getTime() <= BLOB_REFRESH_MS) return;
    const Key = this.objectKey(key);
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: data, ContentType: 'application/octet-stream' }));
    } catch (err) {
      throw await this.failure('put', key, err);
    }
  }

  async get(key: string): Promise<Uint8Array> {
    const Key = this.objectKey(key);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      if (!response.Body) throw new Error('the response had no body');
      return await response.Body.transformToByteArray();
    } catch (err) {
      if (isMissingObject(err)) throw new BlobNotFoundError(key, this.description);
      throw await this.failure('get', key, err);
    }
  }

  async has(key: string): Promise<boolean> {
    return (await this.modifiedOf(key, 'has')) !== undefined;
  }

  /** Lists `<prefix>/<xx>/<key>` objects page by page (1,000 a page); other objects under the prefix are not blobs and are left out. */
  async *list(): AsyncIterable<StoredBlob> {
    const Prefix = this.prefix ? `${this.prefix}/` : '';
    let ContinuationToken: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken }));
      } catch (err) {
        throw await this.failure('list', '(all)', err);
      }
      for (const object of page.Contents ?? []) {
        const key = this.keyOfObject(object.Key ?? '');
        if (key && object.LastModified) yield { key, bytes: object.Size ?? 0, modified: object.LastModified };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async delete(entries: readonly StoredBlob[], writtenBefore: Date): Promise<StoredBlob[]> {
    const deleted: StoredBlob[] = [];
    for (let start = 0; start < entries.length; start += S3_DELETE_BATCH) {
      const batch = entries.slice(start, start + S3_DELETE_BATCH);
      // Asked again just before deleting: a writer may have uploaded the blob again since it was listed.
      const still: StoredBlob[] = [];
      for (let i = 0; i < batch.length; i += HEAD_CONCURRENCY) {
        const dates = await Promise.all(batch.slice(i, i + HEAD_CONCURRENCY).map((e) => this.modifiedOf(e.key, 'delete')));
        dates.forEach((modified, j) => {
          if (modified && modified.getTime() + HTTP_DATE_RESOLUTION_MS <= writtenBefore.getTime()) still.push(batch[i + j]!);
        });
      }
      if (!still.length) continue;
      let answer: DeleteObjectsCommandOutput;
      try {
        answer = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: still.map((e) => ({ Key: this.objectKey(e.key) })), Quiet: true },
          }),
        );
      } catch (err) {
        throw await this.failure('delete', `(${still.length} blobs)`, err);
      }
      const failed = answer.Errors ?? [];
      const failedKeys = new Set(failed.map((e) => e.Key));
      deleted.push(...still.filter((e) => !failedKeys.has(this.objectKey(e.key))));
      if (failed.length) {
        const first = failed[0]!;
        throw new S3StoreError(
          `${this.description}: delete failed for ${failed.length} of ${still.length} blobs (${deleted.length} deleted in all), e.g. ${first.Key}: ${first.Code}: ${first.Message}`,
          first.Code ?? 'DeleteFailed',
          undefined,
        );
      }
    }
    return deleted;
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }

  /** The blob key an object key holds, or undefined for an object that is not a blob of this store. */
  private keyOfObject(objectKey: string): string | undefined {
    const path = this.prefix ? objectKey.slice(this.prefix.length + 1) : objectKey;
    const [folder, key, ...rest] = path.split('/');
    return rest.length === 0 && key && BLOB_KEY.test(key) && folder === key.slice(0, 2) ? key : undefined;
  }

  /** The object's last-modified date, or undefined when there is none. */
  private async modifiedOf(key: string, operation: string): Promise<Date | undefined> {
    const Key = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      // A server that gives no date: treat the object as new, so it is neither uploaded again nor deleted.
      return head.LastModified ?? new Date();
    } catch (err) {
      // A HEAD answer has no body, so a missing bucket is a bare 404 too; the put that follows names it.
      if (statusOf(err) === 404) return undefined;
      throw await this.failure(operation, key, err);
    }
  }

  /** An error that says what failed where, with any credential the client holds blanked out. */
  private async failure(operation: string, key: string, err: unknown): Promise<S3StoreError> {
    const status = statusOf(err);
    const code = codeOf(err);
    const said = err instanceof Error ? err.message : String(err);
    const hint = status === 403 ? ' (check the access key, the secret key and what they may do in this bucket)' : '';
    // The answer to a HEAD request has no body, so the SDK knows no code or message: the status says it all.
    const what =
      status && said === 'UnknownError' ? `HTTP ${status} ${STATUS_CODES[status]}` : `${status ? `HTTP ${status} ` : ''}${code}: ${said}`;
    const message = `${this.description}: ${operation} ${key} failed: ${what}${hint}`;
    // Built afresh, without the SDK error as its cause: that error carries the signed request.
    return new S3StoreError(redact(message, await this.secrets()), code, status);
  }

  private async secrets(): Promise<string[]> {
    try {
      const { accessKeyId, secretAccessKey, sessionToken } = await this.client.config.credentials();
      return [accessKeyId, secretAccessKey, sessionToken ?? ''];
    } catch {
      return [];
    }
  }
}

/** Reads `s3://bucket[/prefix]`; throws an error naming the value when it is not one. */
export function parseS3Url(url: string): S3Location {
  const expected = `expected ${S3_URL_SCHEME}<bucket>[/<prefix>]`;
  if (!url.startsWith(S3_URL_SCHEME)) throw new Error(`"${url}" is not an S3 store URL: ${expected}`);
  if (/[?#\s\\]/.test(url)) throw new Error(`"${url}" is not an S3 store URL: no spaces, backslashes, queries or fragments (${expected})`);
  const rest = url.slice(S3_URL_SCHEME.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = trimSlashes(slash < 0 ? '' : rest.slice(slash + 1));
  if (!bucket) throw new Error(`"${url}" names no bucket: ${expected}`);
  // S3's naming rules (3-63 lowercase letters, digits, dots and hyphens), so a typo fails here, not at the first request.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new Error(`"${url}": "${bucket}" is not a valid bucket name (3 to 63 lowercase letters, digits, dots and hyphens)`);
  }
  const segments = prefix ? prefix.split('/') : [];
  if (segments.some((part) => part === '' || part === '.' || part === '..')) {
    throw new Error(`"${url}": the prefix "${prefix}" has an empty, "." or ".." segment`);
  }
  return { bucket, prefix };
}

/**
 * An S3 store for `s3://bucket/prefix`, configured from `env`: GOT_S3_ENDPOINT for a compatible
 * server (path-style addressing then), AWS_REGION, and the key pair from AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY (without them, the SDK's standard chain).
 */
export function s3StoreFromEnv(url: string, env: NodeJS.ProcessEnv = process.env): S3BlobStore {
  const { bucket, prefix } = parseS3Url(url);
  const endpoint = env[S3_ENDPOINT_ENV] || undefined;
  if (endpoint && !/^https?:\/\/[^/\s]+/.test(endpoint)) {
    throw new Error(`${S3_ENDPOINT_ENV} is "${endpoint}", not an http(s) URL such as http://127.0.0.1:9000`);
  }
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  return new S3BlobStore({
    bucket,
    prefix,
    endpoint,
    region: env.AWS_REGION || DEFAULT_S3_REGION,
    // Compatible servers are reached by address, so the bucket cannot be a host name.
    forcePathStyle: endpoint !== undefined,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, sessionToken: sessionToken || undefined } : undefined,
  });
}

function checkKey(key: string): void {
  if (!BLOB_KEY.test(key)) throw new Error(`"${key}" is not a blob key (64 lowercase hex digits)`);
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function codeOf(err: unknown): string {
  return err instanceof Error ? err.name : 'Error';
}

// GetObject has a body, so a missing bucket (NoSuchBucket) is told apart from a missing object.
function isMissingObject(err: unknown): boolean {
  return codeOf(err) === 'NoSuchKey' || (statusOf(err) === 404 && codeOf(err) !== 'NoSuchBucket');
}

/** Credentials shorter than this are not real ones (and blanking them would blank ordinary letters of the message). */
const MIN_SECRET_CHARS = 8;

function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= MIN_SECRET_CHARS) out = out.split(secret).join('***');
  return out;
}
