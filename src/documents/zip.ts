/**
 * Just enough of the ZIP format to tell what an archive holds without unpacking it: the names and
 * uncompressed sizes in its central directory, or, when the directory is missing (a truncated
 * file), the names in the local headers that survive. Pure.
 */

/** One file in a ZIP archive. */
export interface ZipEntry {
  name: string;
  /** As the central directory states it; undefined from a local header or a ZIP64 entry (size kept elsewhere). */
  uncompressedSize?: number;
}

/** What a ZIP archive holds; `complete` is false when its central directory is missing or broken (truncated or damaged). */
export interface ZipListing {
  entries: ZipEntry[];
  complete: boolean;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
/** The end record is 22 bytes plus a comment of up to 65,535. */
const MAX_END_SEARCH = 22 + 0xffff;
const ZIP64_MARKER = 0xffffffff;

/** True when the bytes start like a ZIP archive's first file. */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function centralDirectory(bytes: Uint8Array): ZipEntry[] | undefined {
  const data = view(bytes);
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - MAX_END_SEARCH); at--) {
    if (data.getUint32(at, true) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const count = data.getUint16(end + 10, true);
  let at = data.getUint32(end + 16, true);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || data.getUint32(at, true) !== CENTRAL_HEADER) return undefined;
    const size = data.getUint32(at + 24, true);
    const nameLength = data.getUint16(at + 28, true);
    const skip = nameLength + data.getUint16(at + 30, true) + data.getUint16(at + 32, true);
    if (at + 46 + skip > bytes.length) return undefined;
    // Bit 11: the name is UTF-8; otherwise it is in the old DOS code page, of which ASCII names are all we care about.
    const decoder = data.getUint16(at + 8, true) & 0x800 ? utf8 : latin1;
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    entries.push(size === ZIP64_MARKER ? { name } : { name, uncompressedSize: size });
    at += 46 + skip;
  }
  return entries;
}

/** Names from every local header signature found; a compressed payload can fake one, so callers only look for names they know. */
function localHeaders(bytes: Uint8Array): ZipEntry[] {
  const data = view(bytes);
  const entries: ZipEntry[] = [];
  for (let at = bytes.indexOf(0x50); at >= 0 && at + 30 <= bytes.length; at = bytes.indexOf(0x50, at + 1)) {
    if (data.getUint32(at, true) !== LOCAL_HEADER) continue;
    const nameLength = data.getUint16(at + 26, true);
    if (at + 30 + nameLength > bytes.length) break;
    entries.push({ name: latin1.decode(bytes.subarray(at + 30, at + 30 + nameLength)) });
  }
  return entries;
}

/** The files a ZIP archive holds, from its central directory, else (truncated or damaged) from its surviving local headers. */
export function listZip(bytes: Uint8Array): ZipListing {
  const entries = centralDirectory(bytes);
  return entries ? { entries, complete: true } : { entries: localHeaders(bytes), complete: false };
}
