/**
 * Builds the MinIO server the S3 payload store's tests run against, once per user (it is cached in
 * ~/.cache/got-temporal/minio-<version>/). Run by `npm test`'s pretest hook, so the build (several
 * minutes the first time) happens before the tests rather than inside a test's time limit.
 *
 *   npx tsx scripts/ensure-minio.ts
 */
import { ensureMinio } from '../src/devserver/minio';

const binary = await ensureMinio({ log: (line) => process.stderr.write(`[minio] ${line}\n`) });
console.log(binary);
