import { join } from 'node:path';
import { ensureGoTool, toolCacheRoot } from './go-install';

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
export function ensureTemporalCli(opts: EnsureTemporalCliOptions = {}): Promise<string> {
  return ensureGoTool({
    what: `Temporal CLI v${TEMPORAL_CLI_VERSION}`,
    module: TEMPORAL_CLI_MODULE,
    binary: cachedTemporalCliPath(),
    pathEnv: 'TEMPORAL_CLI_PATH',
    fileName: BINARY_NAME,
    howToFix: HOW_TO_FIX,
    log: opts.log ?? (() => {}),
  });
}

const HOW_TO_FIX =
  'To fix: install Go >= 1.25 (https://go.dev/dl/) so the Temporal CLI can be built automatically, ' +
  'or set TEMPORAL_CLI_PATH to an existing `temporal` binary, or put `temporal` on your PATH ' +
  '(https://docs.temporal.io/cli#install).';
