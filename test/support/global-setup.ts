import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../src/devserver/dev-server';
import { freePort } from '../../src/devserver/process';
import { ensureTemporalCli } from '../../src/devserver/temporal-cli';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

const log = (line: string) => process.stderr.write(`[global-setup] ${line}\n`);

/** One in-memory, headless Temporal dev server shared by the whole test run. */
export default async function setup(project: TestProject) {
  // Payloads the tests' clients and workers store stay out of the user's own store (forks inherit this).
  process.env.GOT_STORE ??= mkdtempSync(join(tmpdir(), 'got-test-store-'));
  const binary = await ensureTemporalCli({ log });
  const startedAt = Date.now();
  const server = await startDevServer({ binary, port: await freePort(), ui: false });
  log(`Temporal dev server ${server.address} (pid ${server.pid}) ready in ${Date.now() - startedAt}ms`);
  project.provide('temporalAddress', server.address);

  return async () => {
    await server.stop();
    log(`Temporal dev server ${server.address} stopped`);
  };
}
