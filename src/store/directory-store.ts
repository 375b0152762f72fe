import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BLOB_KEY, BlobNotFoundError, type BlobStore } from './blob-store';

/**
 * Blobs as files in one folder (`<root>/<first two hex digits>/<key>`): the embedded default,
 * shared by the clients and workers of one machine (or of several that mount the same folder).
 * Writes go to a temporary file renamed into place, so a reader never sees half a blob and a
 * worker killed mid-write leaves no corrupt one.
 */
export class DirectoryBlobStore implements BlobStore {
  readonly description: string;

  constructor(readonly root: string) {
    this.description = `directory ${root}`;
  }

  private pathOf(key: string): string {
    if (!BLOB_KEY.test(key)) throw new Error(`not a blob key: ${JSON.stringify(key.slice(0, 80))} (expected 64 hex digits)`);
    return join(this.root, key.slice(0, 2), key);
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    if (await this.has(key)) return;
    await mkdir(join(this.root, key.slice(0, 2)), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, data);
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(key, this.description);
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }
}
