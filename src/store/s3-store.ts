import type { BlobStore } from './blob-store';

/** Placeholder until the S3 store lands: names what is missing. */
export function s3StoreFromEnv(url: string, _env: NodeJS.ProcessEnv): BlobStore {
  throw new Error(`GOT_STORE=${url}: the S3 store is not available in this build`);
}
