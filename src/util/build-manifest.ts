import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What a build output (dist/'s JavaScript, the workflow bundle) was made from. An output is used
 * only while the digest of its inputs still matches, so an edited source is never run from a
 * stale build (decision 21).
 */
export interface BuildManifest {
  /** The source files, relative to the package root, sorted. */
  files: string[];
  /** Packages whose code the output contains (a bundle inlines them): their installed versions count too. */
  packages: string[];
  /** sha256 over the files' contents and the packages' versions. */
  digest: string;
}

/** `current`: built from the sources as they are; `stale`: a source changed; `no-sources`: an install that ships only dist/. */
export type Freshness = 'current' | 'stale' | 'no-sources';

/** The nearest folder at or above `from` (a module's `import.meta.url`) that holds a package.json: the package root in src/ and in dist/ alike. */
export function packageRoot(from: string | URL): string {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${String(from)}`);
    dir = parent;
  }
  return dir;
}

/** The digest of the inputs as they are now; undefined when a file is gone (a deleted or renamed source). */
export function digestInputs(root: string, files: readonly string[], packages: readonly string[] = []): string | undefined {
  const hash = createHash('sha256');
  for (const file of files) {
    let content: Buffer;
    try {
      content = readFileSync(join(root, file));
    } catch {
      return undefined;
    }
    // Names and lengths go in too, so moving text from one file to another changes the digest.
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  for (const name of packages) hash.update(`${name}@${installedVersion(root, name)}\0`);
  return hash.digest('hex');
}

function installedVersion(root: string, name: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'missing';
  }
}

/** Whether the output a manifest describes may run: always when no source of it exists here (a packaged install). */
export function freshness(manifest: BuildManifest, root: string): Freshness {
  if (!manifest.files.some((file) => existsSync(join(root, file)))) return 'no-sources';
  return digestInputs(root, manifest.files, manifest.packages) === manifest.digest ? 'current' : 'stale';
}

/** Reads a manifest; undefined when there is none (never built) or it cannot be read. */
export function readManifest(path: string): BuildManifest | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as BuildManifest;
  } catch {
    return undefined;
  }
}

/**
 * Writes the manifest of the given inputs. Call it with the digest taken *before* building: a
 * source edited while the build ran then makes the output stale instead of hiding the edit.
 */
export function writeManifest<T extends BuildManifest>(path: string, manifest: T): T {
  writeFileAtomically(path, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Writes through a temporary file and a rename, so a process reading `path` meanwhile sees the old content or the new, never half of it. */
export function writeFileAtomically(path: string, content: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

/** A manifest for `files` and `packages` with their digest as they are now. */
export function manifestOf(root: string, files: readonly string[], packages: readonly string[] = []): BuildManifest {
  const sortedFiles = [...new Set(files)].sort();
  const sortedPackages = [...new Set(packages)].sort();
  const digest = digestInputs(root, sortedFiles, sortedPackages);
  if (!digest) throw new Error(`cannot read every build input under ${root}`);
  return { files: sortedFiles, packages: sortedPackages, digest };
}
