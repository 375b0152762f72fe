import { join } from 'node:path';
import { findOnPath, goInstallOnce, isExecutable, toolCacheRoot } from './go-install';

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

/** One build per machine, cached per user (`go-install.ts`: a lock, a staging folder, the tool cache's GOPATH). */
function buildTemporalCli(log: (line: string) => void): Promise<void> {
  return goInstallOnce({
    what: `the Temporal CLI v${TEMPORAL_CLI_VERSION}`,
    module: TEMPORAL_CLI_MODULE,
    binary: cachedTemporalCliPath(),
    howToFix: HOW_TO_FIX,
    log,
  });
}
