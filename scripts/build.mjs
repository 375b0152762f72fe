#!/usr/bin/env node
// `npm run build` (and `npm install`, through `prepare`): compiles the CLI and the worker to dist/
// with esbuild, then bundles the Controller workflow once into dist/workflows/. Each output has a
// manifest of its inputs, so nothing runs from a build older than its sources (decisions 7, 19, 20).
// Plain JavaScript: it has to run before anything is compiled. Type-checking is `npm run typecheck`.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const APP_MANIFEST = join(DIST, 'build.json');

/** The compiled programs, by their path in dist/ (without `.js`). */
const ENTRIES = {
  'cli/main': 'src/cli/main.ts',
  'worker/main': 'worker/main.ts',
  // Used by the build itself (below) and by bin/ to check that dist/ is current.
  'worker/bundle': 'worker/bundle.ts',
  'build-manifest': 'src/util/build-manifest.ts',
};

/** Where webpack starts bundling the workflows; its imports are what the bundle is made of. */
const WORKFLOWS_ENTRY = 'workflows/index.ts';

/**
 * Deep imports into a package without an `exports` map (`@temporalio/common/lib/internal-non-workflow`)
 * name a folder or omit `.js`, which Node's ESM loader refuses (tsx resolves them): such imports
 * are written out as the file they resolve to. Everything else stays as written.
 */
const nodeResolvableDeepImports = {
  name: 'node-resolvable-deep-imports',
  setup(b) {
    b.onResolve({ filter: /^(@[^/]+\/)?[^./@][^/]*\/./ }, (args) => {
      if (args.path.startsWith('node:')) return undefined;
      const name = packageOf(args.path);
      const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
      if (manifest.exports) return { path: args.path, external: true };
      // The CommonJS resolver knows folders with an index.js and missing extensions.
      const resolved = createRequire(join(args.resolveDir, 'importer.js')).resolve(args.path);
      const file = relative(join(ROOT, 'node_modules', name), resolved).split(sep).join('/');
      return { path: `${name}/${file}`, external: true };
    });
  },
};

/**
 * Temporal's packages are CommonJS, and Node's ESM loader reads each CommonJS file an `import` reaches
 * (and every file it re-exports) to find its export names: ~70 ms of a command's start for the client
 * alone (decision 78). They are loaded with `require` instead, through the `require` the banner gives
 * each output file; esbuild turns the named imports into property reads.
 */
const TEMPORAL = /^@temporalio\/[^/]+(\/.*)?$/;
const temporalByRequire = {
  name: 'temporal-by-require',
  setup(b) {
    b.onResolve({ filter: TEMPORAL }, (args) => (args.kind === 'import-statement' ? { path: args.path, namespace: 'required' } : undefined));
    b.onResolve({ filter: /.*/, namespace: 'required' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // Packages stay imports, resolved from node_modules at run time as under tsx.
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
  plugins: [temporalByRequire, nodeResolvableDeepImports],
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
};

/** Source files (relative to the root) an esbuild metafile lists, packages excluded. */
const sourcesOf = (metafile) =>
  Object.keys(metafile.inputs).filter((path) => !path.includes('node_modules/') && !path.startsWith('required:'));

/** The package a bare import specifier names (`@scope/name/deep` → `@scope/name`). */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

async function buildApp(log) {
  const result = await build({
    ...common,
    entryPoints: ENTRIES,
    outdir: DIST,
    splitting: true, // each command's dynamic import() becomes a chunk loaded only when it runs
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    write: false,
  });
  // Chunks first, entry points last, each file replaced whole: a `got` starting meanwhile loads
  // either the old entry with its old chunks (content-named, left in place) or the new one.
  const isEntry = (path) => Object.keys(ENTRIES).some((name) => path === join(DIST, `${name}.js`));
  const files = [...result.outputFiles].sort((a, b) => Number(isEntry(a.path)) - Number(isEntry(b.path)));
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  const { manifestOf, writeManifest } = await import(pathToFileURL(join(DIST, 'build-manifest.js')).href);
  writeManifest(APP_MANIFEST, manifestOf(ROOT, [...sourcesOf(result.metafile), relative(ROOT, fileURLToPath(import.meta.url))]));
  log(`  compiled ${Object.keys(result.metafile.inputs).length} sources to dist/`);
}

/** The sources and packages webpack puts into the workflow bundle, found by the same import graph esbuild follows. */
async function workflowInputs() {
  const { metafile } = await build({ ...common, entryPoints: [WORKFLOWS_ENTRY], write: false, outdir: join(DIST, 'workflows-scan') });
  const packages = Object.values(metafile.inputs)
    .flatMap((input) => input.imports)
    .filter((i) => i.external && !i.path.startsWith('node:'))
    .map((i) => packageOf(i.path));
  // The bundler itself adds the SDK's workflow runtime, whatever the workflows import.
  return { files: sourcesOf(metafile), packages: [...packages, '@temporalio/worker', '@temporalio/workflow'] };
}

async function buildWorkflowBundle(ifStale, log) {
  const { freshness, readManifest } = await import(pathToFileURL(join(DIST, 'build-manifest.js')).href);
  // A new input can only come through an edit of an input already listed, so the digest alone says
  // whether to rebuild; the import graph is scanned, and the SDK's bundler loaded, only to rebuild.
  const previous = readManifest(join(DIST, 'workflows', 'manifest.json'));
  if (ifStale && previous && freshness(previous, ROOT) === 'current') return;
  const started = Date.now();
  const { writeWorkflowBundle } = await import(pathToFileURL(join(DIST, 'worker', 'bundle.js')).href);
  const manifest = await writeWorkflowBundle(await workflowInputs());
  log(`  bundled the workflows (${manifest.files.length} sources) to dist/workflows/${manifest.code} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Whether dist/'s JavaScript was compiled from the sources as they are now. */
export async function appIsCurrent() {
  try {
    const { freshness, readManifest } = await import(pathToFileURL(join(DIST, 'build-manifest.js')).href);
    const manifest = readManifest(APP_MANIFEST);
    return Boolean(manifest) && freshness(manifest, ROOT) !== 'stale';
  } catch {
    return false;
  }
}

/**
 * Builds dist/. `ifStale`: only the outputs whose inputs changed, and nothing is deleted (a
 * running `got` may still load its chunks); otherwise dist/ is rebuilt from scratch.
 */
export async function buildDist({ ifStale = false, log = (line) => console.error(line) } = {}) {
  const started = Date.now();
  if (!ifStale) rmSync(DIST, { recursive: true, force: true });
  if (!ifStale || !(await appIsCurrent())) await buildApp(log);
  await buildWorkflowBundle(ifStale, log);
  log(`  dist/ ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildDist({ ifStale: process.argv.includes('--if-stale') }).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
