import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { DEFAULT_S3_REGION, s3Client } from '../store/s3-store';
import { ensureGoTool, toolCacheRoot } from './go-install';
import { freePort, LOOPBACK, spawnTracked, type TrackedProcess, terminate } from './process';

// MinIO tags its releases RELEASE.<date>, which are not module versions: the Go proxy knows only
// pseudo-versions, and this is the newest it has (the last commit before the repository was archived).
/** The MinIO server's Go module version we build. */
export const MINIO_VERSION = '0.0.0-20260212201848-7aac2a2c5b7c';
const MINIO_MODULE = `github.com/minio/minio@v${MINIO_VERSION}`;
const BINARY_NAME = process.platform === 'win32' ? 'minio.exe' : 'minio';

/** Points at an existing MinIO server binary instead of the cached or built one. */
export const MINIO_PATH_ENV = 'MINIO_PATH';

/** The fixed root credentials of a MinIO started by {@link startMinio}: a local dev server, not a secret. */
export const MINIO_DEV_CREDENTIALS = { accessKey: 'got-dev', secretKey: 'got-dev-secret' } as const;

/** The bucket {@link startMinio} creates unless told otherwise. */
export const MINIO_DEFAULT_BUCKET = 'got-payloads';

/** Options of {@link ensureMinio}. */
export interface EnsureMinioOptions {
  log?: (line: string) => void;
}

/** The per-user folder holding the MinIO binary of {@link MINIO_VERSION}. */
export function minioCacheDir(): string {
  return join(toolCacheRoot(), `minio-${MINIO_VERSION}`);
}

/** Where the built MinIO binary is cached. */
export function cachedMinioPath(): string {
  return join(minioCacheDir(), BINARY_NAME);
}

const HOW_TO_FIX =
  'To fix: install Go >= 1.24 (https://go.dev/dl/) so MinIO can be built automatically, ' +
  `or set ${MINIO_PATH_ENV} to an existing \`minio\` server binary, or put \`minio\` on your PATH.`;

/** Returns the path of a usable `minio` server binary, building it with Go if nothing else is available. */
export function ensureMinio(opts: EnsureMinioOptions = {}): Promise<string> {
  return ensureGoTool({
    what: 'MinIO',
    module: MINIO_MODULE,
    binary: cachedMinioPath(),
    pathEnv: MINIO_PATH_ENV,
    fileName: BINARY_NAME,
    howToFix: HOW_TO_FIX,
    log: opts.log ?? (() => {}),
  });
}

/** Where and how a MinIO server is started. */
export interface MinioOptions {
  /** The folder MinIO keeps its objects in (created if missing). */
  dataDir: string;
  /** S3 API port on 127.0.0.1; default a free one. */
  port?: number;
  /** Default {@link MINIO_DEFAULT_BUCKET}. */
  bucket?: string;
  /** Default: {@link ensureMinio}'s. */
  binary?: string;
  logFile?: string;
  /** Keep the server running after this Node process exits (a cluster's MinIO). */
  detached?: boolean;
  /** How long to wait for the server to answer, default 60s. */
  startupTimeoutMs?: number;
  /** Progress of a build, if one is needed. */
  log?: (line: string) => void;
}

/** A running MinIO server with its bucket created. */
export interface MinioHandle {
  /** The S3 endpoint, e.g. `http://127.0.0.1:9000`. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts `minio server` on a local port with the dev credentials, waits until it answers and creates the bucket. */
export async function startMinio(opts: MinioOptions): Promise<MinioHandle> {
  const binary = opts.binary ?? (await ensureMinio({ log: opts.log }));
  const port = opts.port ?? (await freePort());
  const bucket = opts.bucket ?? MINIO_DEFAULT_BUCKET;
  const endpoint = `http://${LOOPBACK}:${port}`;
  const { accessKey, secretKey } = MINIO_DEV_CREDENTIALS;
  await mkdir(opts.dataDir, { recursive: true });

  const env = {
    ...process.env,
    MINIO_ROOT_USER: accessKey,
    MINIO_ROOT_PASSWORD: secretKey,
    // No web console (it would take a second port) and no update checks (no internet needed).
    MINIO_BROWSER: 'off',
    MINIO_UPDATE: 'off',
  };
  const server = spawnTracked(binary, ['server', opts.dataDir, '--address', `${LOOPBACK}:${port}`], {
    logFile: opts.logFile,
    env,
    detached: opts.detached,
  });
  try {
    const deadline = Date.now() + (opts.startupTimeoutMs ?? 60_000);
    await waitUntilLive(endpoint, server, deadline);
    await createBucket({ endpoint, bucket, accessKey, secretKey }, server, deadline);
  } catch (err) {
    server.dispose();
    if (server.child.pid) await terminate(server.child.pid);
    throw err;
  }

  return {
    endpoint,
    accessKey,
    secretKey,
    bucket,
    pid: server.child.pid!,
    stop: async () => {
      server.dispose();
      await terminate(server.child.pid!);
    },
  };
}

async function waitUntilLive(endpoint: string, server: TrackedProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    await assertRunning(server);
    if (await isMinioLive(endpoint)) return;
    await sleep(250);
  }
  throw new Error(`minio server did not answer at ${endpoint} in time. Last output:\n${await server.logTail()}`);
}

/** True when a MinIO server at `endpoint` answers its liveness probe. */
export async function isMinioLive(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/minio/health/live`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

type BucketTarget = { endpoint: string; bucket: string; accessKey: string; secretKey: string };

async function createBucket(target: BucketTarget, server: TrackedProcess, deadline: number): Promise<void> {
  const client = s3Client({
    endpoint: target.endpoint,
    region: DEFAULT_S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: target.accessKey, secretAccessKey: target.secretKey },
  });
  try {
    for (;;) {
      try {
        await client.send(new CreateBucketCommand({ Bucket: target.bucket }));
        return;
      } catch (err) {
        const name = err instanceof Error ? err.name : '';
        // A data folder used before already has the bucket.
        if (name === 'BucketAlreadyOwnedByYou') return;
        // Live is not ready: right after start the server may still refuse requests while it initialises.
        if (Date.now() >= deadline) {
          throw new Error(`MinIO at ${target.endpoint} did not create bucket "${target.bucket}": ${name}: ${(err as Error).message}`);
        }
        await assertRunning(server);
        await sleep(250);
      }
    }
  } finally {
    client.destroy();
  }
}

async function assertRunning(server: TrackedProcess): Promise<void> {
  if (server.exited()) throw new Error(`minio server exited before it was ready. Last output:\n${await server.logTail()}`);
}
