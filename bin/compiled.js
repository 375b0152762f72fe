// Runs a program compiled to dist/ by `npm run build` (which `npm install` runs). When a source
// changed since that build, dist/ is rebuilt first (0.2 s for the JavaScript; a few seconds for the
// workflow bundle, only when the workflows changed), so `got` never runs older code than the
// sources it sits next to (decision 21).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => new URL(`../dist/${path}`, import.meta.url);

/** Imports `dist/<entry>` after making sure dist/ is built and current; `name` is the command, for messages. */
export async function runCompiled(entry, name) {
  if (!existsSync(dist(entry)) || !existsSync(dist('build-manifest.js'))) {
    console.error(`${name}: dist/ is not built: run \`npm run build\` (\`npm install\` runs it too).`);
    process.exit(3);
  }
  const { freshness, readManifest } = await import(dist('build-manifest.js').href);
  // The workflow bundle counts too: rebuilt once here, it saves its few seconds at every later start.
  const manifests = ['build.json', 'workflows/manifest.json'].map((path) => readManifest(fileURLToPath(dist(path))));
  if (manifests.some((manifest) => !manifest || freshness(manifest, ROOT) === 'stale')) {
    const started = Date.now();
    console.error(`${name}: the sources changed since the last build; rebuilding dist/...`);
    try {
      const { buildDist } = await import(pathToFileURL(`${ROOT}scripts/build.mjs`).href);
      await buildDist({ ifStale: true, log: () => undefined });
    } catch (error) {
      console.error(
        `${name}: the build failed (${error instanceof Error ? error.message : String(error)}); fix the sources, then run \`npm run build\`.`,
      );
      process.exit(3);
    }
    console.error(`${name}: rebuilt in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
  await import(dist(entry).href);
}
