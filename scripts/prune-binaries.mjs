// Removes native code this machine never loads but npm installs anyway (decision 67). Runs as
// `postinstall` and in the worker image; running it again changes nothing.
// - @temporalio/core-bridge ships its binary for all five platforms in one package (~27 MB each), and
//   the Rust sources to build one: only this machine's binary stays. On a platform it has no binary
//   for (musl's Linux included, where it is built from those sources), nothing is removed.
// - node-llama-cpp's linux-arm64 and linux-armv7l packages also declare x64, so npm installs them on
//   x64 machines too: their binaries stay only on their own arch. Their package.json stays, so npm
//   still sees them installed and does not fetch them again.
// - node-llama-cpp's git bundle of the llama.cpp sources (34 MB) only saves `node-llama-cpp source
//   download` a clone from GitHub; the local model never builds (`build: 'never'`).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');
const removed = [];
const remove = (path) => {
  if (!existsSync(path)) return;
  rmSync(path, { recursive: true, force: true });
  removed.push(relative(modules, path));
};

const bridge = join(modules, '@temporalio', 'core-bridge');
const musl = process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime;
if (existsSync(bridge) && !musl) {
  let own;
  try {
    own = createRequire(import.meta.url)(join(bridge, 'common.js')).getPrebuiltTargetName();
  } catch {
    // No binary for this platform: leave the package as it came.
  }
  const releases = join(bridge, 'releases');
  if (own !== undefined && existsSync(join(releases, own, 'index.node'))) {
    for (const target of readdirSync(releases)) if (target !== own) remove(join(releases, target));
    remove(join(bridge, 'sdk-core'));
  }
}

const llamaArch = { 'linux-arm64': 'arm64', 'linux-armv7l': 'arm' };
for (const [pkg, arch] of Object.entries(llamaArch)) {
  if (arch !== process.arch) remove(join(modules, '@node-llama-cpp', pkg, 'bins'));
}
remove(join(modules, 'node-llama-cpp', 'llama', 'gitRelease.bundle'));

if (removed.length > 0) console.log(`prune-binaries: removed what this machine never loads: ${removed.join(', ')}`);
