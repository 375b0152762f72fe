import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import {
  type BuildManifest,
  freshness,
  manifestOf,
  packageRoot,
  readManifest,
  writeFileAtomically,
  writeManifest,
} from '../src/util/build-manifest';

/**
 * The Controller's workflow bundle, built once by `npm run build` instead of by webpack at every
 * worker start, and used only while it matches the sources it was built from (decision 20).
 */

const ROOT = packageRoot(import.meta.url);

/** The workflows' entry module, which the bundler starts from. */
export const WORKFLOWS_PATH = join(ROOT, 'workflows', 'index.ts');

/** Where the build writes the bundle and its manifest. */
export const WORKFLOW_BUNDLE_DIR = join(ROOT, 'dist', 'workflows');

const MANIFEST = 'manifest.json';

/** A bundle's manifest: its inputs and the file (named by their digest) that holds the code. */
export interface WorkflowBundleManifest extends BuildManifest {
  code: string;
}

/** Bundles the workflows from source (webpack; a few seconds). */
export function bundleWorkflowsFromSource(): ReturnType<typeof bundleWorkflowCode> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
}

/**
 * Builds the bundle and writes it with its manifest (`files`, relative to the package root: every
 * source webpack includes; `packages`: the packages it inlines). A worker reading the folder
 * meanwhile sees the previous bundle or the new one, never a mix.
 */
export async function writeWorkflowBundle(
  inputs: { files: readonly string[]; packages: readonly string[] },
  dir = WORKFLOW_BUNDLE_DIR,
  root = ROOT,
): Promise<WorkflowBundleManifest> {
  const manifest = manifestOf(root, inputs.files, inputs.packages);
  const { code } = await bundleWorkflowsFromSource();
  mkdirSync(dir, { recursive: true });
  const file = `bundle-${manifest.digest.slice(0, 16)}.js`;
  writeFileAtomically(join(dir, file), code);
  const previous = readManifest(join(dir, MANIFEST)) as WorkflowBundleManifest | undefined;
  const written = writeManifest(join(dir, MANIFEST), { ...manifest, code: file });
  // Older bundles go, except the one a worker starting right now may have just been pointed at.
  for (const name of readdirSync(dir)) {
    if (name.startsWith('bundle-') && name !== file && name !== previous?.code) rmSync(join(dir, name), { force: true });
  }
  return written;
}

/** The prebuilt bundle's path when it was built from the sources as they are now (or no sources are here); otherwise undefined. */
export function prebuiltWorkflowBundle(dir = WORKFLOW_BUNDLE_DIR, root = ROOT): string | undefined {
  const manifest = readManifest(join(dir, MANIFEST)) as WorkflowBundleManifest | undefined;
  if (!manifest?.code || freshness(manifest, root) === 'stale') return undefined;
  return join(dir, manifest.code);
}

/** The workflow code option of a Worker or Replayer: the prebuilt bundle when current, else the sources (bundled at start). */
export function workflowCodeOption(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const codePath = prebuiltWorkflowBundle();
  return codePath ? { workflowBundle: { codePath } } : { workflowsPath: WORKFLOWS_PATH };
}

/** The Controller workflow's code, for reuse by several workers: the build's bundle when current, else bundled from source now. */
export async function bundleGotWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  const codePath = prebuiltWorkflowBundle();
  // The source map is inline in the code; the SDK's own bundler fills the old field with a note too.
  return codePath ? { code: await readFile(codePath, 'utf8'), sourceMap: 'inline' } : bundleWorkflowsFromSource();
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
