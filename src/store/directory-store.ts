import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BLOB_KEY, BLOB_REFRESH_MS, BlobNotFoundError, type BlobStore, type StoredBlob } from './blob-store';

/** A blob's folder: the first two hex digits of its key. */
const FAN_OUT = /^[0-9a-f]{2}$/;
/** A write in progress (or left by a killed writer), and a blob set aside for deletion: `<key>.<anything>.tmp`. */
const PARTIAL = /^[0-9a-f]{64}\..+\.tmp$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

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
    if (await this.reuse(path)) return;
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

  /**
   * Whether the blob is there to reuse, its date renewed when old (see `BlobStore.put`). A blob the
   * collector sets aside at this moment fails the renewal with ENOENT, and is then written again.
   */
  private async reuse(path: string): Promise<boolean> {
    try {
      const { mtimeMs } = await stat(path);
      if (Date.now() - mtimeMs > BLOB_REFRESH_MS) {
        const now = new Date();
        await utimes(path, now, now);
      }
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if (isMissing(error)) throw new BlobNotFoundError(key, this.description);
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async *list(): AsyncIterable<StoredBlob> {
    let folders: string[];
    try {
      folders = (await readdir(this.root)).filter((name) => FAN_OUT.test(name)).sort();
    } catch (error) {
      if (isMissing(error)) return; // nothing stored yet
      throw error;
    }
    for (const folder of folders) {
      for (const name of (await readdir(join(this.root, folder))).sort()) {
        const blob = BLOB_KEY.test(name);
        // Not ours, or not where this store would look for it: never listed, never deleted.
        if ((!blob && !PARTIAL.test(name)) || !name.startsWith(folder)) continue;
        let info: Awaited<ReturnType<typeof stat>>;
        try {
          info = await stat(join(this.root, folder, name));
        } catch (error) {
          if (isMissing(error)) continue; // renamed into place or deleted since the folder was read
          throw error;
        }
        if (!info.isFile()) continue;
        yield { key: name, bytes: info.size, modified: info.mtime, ...(blob ? {} : { partial: true as const }) };
      }
    }
  }

  async delete(entries: readonly StoredBlob[], writtenBefore: Date): Promise<StoredBlob[]> {
    const deleted: StoredBlob[] = [];
    for (const entry of entries) if (await this.deleteOne(entry, writtenBefore)) deleted.push(entry);
    return deleted;
  }

  private async deleteOne(entry: StoredBlob, writtenBefore: Date): Promise<boolean> {
    if (entry.partial) {
      if (!PARTIAL.test(entry.key)) throw new Error(`not a temporary file of this store: ${JSON.stringify(entry.key)}`);
      const path = join(this.root, entry.key.slice(0, 2), entry.key);
      try {
        // A temporary file is never written again once closed: its date says whether its writer is still at work.
        if ((await stat(path)).mtime >= writtenBefore) return false;
        await unlink(path);
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    }
    const path = this.pathOf(entry.key);
    // Set aside first (atomic): a writer reusing the blob from now on finds none and writes it again,
    // and one that renewed its date just before is seen below, and the blob put back.
    const aside = `${path}.gc-${randomBytes(6).toString('hex')}.tmp`;
    try {
      await rename(path, aside);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    if ((await stat(aside)).mtime >= writtenBefore) {
      // Same key, same bytes: putting it back over a copy written meanwhile changes nothing.
      await rename(aside, path);
      return false;
    }
    await unlink(aside);
    return true;
  }
}
