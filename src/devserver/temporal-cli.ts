import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { findOnPath, isExecutable, runStreaming, toolCacheRoot } from './go-install';

// Later CLI tags cannot be built with `go install` (they use replace directives).
export const TEMPORAL_CLI_VERSION = '1.5.1';
const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;
const BINARY_NAME = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

export interface EnsureTemporalCliOptions {
  log?: (line: string) => void;
}

export function temporalCacheDir(): string {
  return join(toolCacheRoot(), `temporal-${TEMPORAL_CLI_VERSION}`);
}

export function cachedTemporalCliPath(): string {
  return join(temporalCacheDir(), BINARY_NAME);
}

/** Returns the path of a usable `temporal` binary, building it with Go if nothing else is available. */
export async function ensureTemporalCli(opts: EnsureTemporalCliOptions = {}): Promise<string> {
  const log = opts.log ?? (() => {});

  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!(await isExecutable(fromEnv))) {
      throw new Error(
        `TEMPORAL_CLI_PATH is set to "${fromEnv}", but that file does not exist or is not executable. ` +
          'Point TEMPORAL_CLI_PATH at a Temporal CLI binary, or unset it to use the cached/PATH/built one.',
      );
    }
    return fromEnv;
  }

  const cached = cachedTemporalCliPath();
  if (await isExecutable(cached)) return cached;

  const onPath = await findOnPath(BINARY_NAME);
  if (onPath) return onPath;

  await buildTemporalCli(log);
  if (!(await isExecutable(cached))) {
    throw new Error(`go install reported success, but ${cached} was not produced. ${HOW_TO_FIX}`);
  }
  return cached;
}

const HOW_TO_FIX =
  'To fix: install Go >= 1.25 (https://go.dev/dl/) so the Temporal CLI can be built automatically, ' +
  'or set TEMPORAL_CLI_PATH to an existing `temporal` binary, or put `temporal` on your PATH ' +
  '(https://docs.temporal.io/cli#install).';

async function buildTemporalCli(log: (line: string) => void): Promise<void> {
  const goBinary = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go');
  if (!goBinary) {
    throw new Error(`No Temporal CLI found and \`go\` is not on PATH, so it cannot be built. ${HOW_TO_FIX}`);
  }

  const gobin = temporalCacheDir();
  await mkdir(gobin, { recursive: true });
  log(`Building the Temporal CLI v${TEMPORAL_CLI_VERSION} with Go into ${gobin}.`);
  log('This takes several minutes the first time; later runs reuse the cached binary.');

  const output: string[] = [];
  const onLine = (line: string) => {
    log(line);
    output.push(line);
    if (output.length > 20) output.shift();
  };
  const startedAt = Date.now();
  const exitCode = await runStreaming(goBinary, ['install', TEMPORAL_CLI_MODULE], { ...process.env, GOBIN: gobin }, onLine);
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);

  if (exitCode !== 0) {
    throw new Error(
      `Building the Temporal CLI failed: \`go install ${TEMPORAL_CLI_MODULE}\` exited with code ${exitCode} ` +
        `after ${seconds}s. ${HOW_TO_FIX}\nLast go output:\n${output.join('\n')}`,
    );
  }
  log(`Built the Temporal CLI in ${seconds}s.`);
}
