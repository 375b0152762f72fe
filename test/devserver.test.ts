import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type DevServerHandle, isServerHealthy, startDevServer } from '../src/devserver/dev-server';
import { freePort } from '../src/devserver/process';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import { SEARCH_ATTRIBUTES } from '../src/run/search-attributes';

// Values of temporal.api.enums.v1.IndexedValueType.
const INDEXED_VALUE_TYPE: Record<string, number> = { Keyword: 2, Double: 4 };

describe('Temporal dev server', () => {
  const address = inject('temporalAddress');

  it('the shared server from global setup is healthy', async () => {
    expect(await isServerHealthy(address)).toBe(true);
    expect(await isServerHealthy(address, 'default')).toBe(true);
  });

  it('registers every GoT search attribute with its type', async () => {
    const connection = await Connection.connect({ address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
        expect(customAttributes[name], name).toBe(INDEXED_VALUE_TYPE[type]);
      }
    } finally {
      await connection.close();
    }
  });

  it('reports a port without a server as unhealthy', async () => {
    expect(await isServerHealthy(`127.0.0.1:${await freePort()}`)).toBe(false);
  });
});

describe('startDevServer with a SQLite file', () => {
  let dir: string | undefined;
  let server: DevServerHandle | undefined;

  afterEach(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps workflow executions across a server restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'got-devserver-'));
    const options = {
      binary: await ensureTemporalCli(),
      port: await freePort(),
      ui: false,
      dbFile: join(dir, 'temporal.sqlite'),
      logFile: join(dir, 'server.log'),
    };
    const workflowId = `survives-restart-${Date.now()}`;

    server = await startDevServer(options);
    // No worker polls this queue: the execution just stays open, which is all we need.
    await withClient(server.address, (client) => client.workflow.start('NoSuchWorkflow', { taskQueue: 'no-worker-queue', workflowId }));
    await server.stop();

    server = await startDevServer(options);
    const description = await withClient(server.address, (client) => client.workflow.getHandle(workflowId).describe());
    expect(description.workflowId).toBe(workflowId);
    expect(description.type).toBe('NoSuchWorkflow');
    expect(description.status.name).toBe('RUNNING');
  });
});

describe('ensureTemporalCli', () => {
  it('rejects a TEMPORAL_CLI_PATH that does not exist, naming the variable', async () => {
    const previous = process.env.TEMPORAL_CLI_PATH;
    process.env.TEMPORAL_CLI_PATH = join(tmpdir(), 'definitely-not-a-temporal-binary');
    try {
      await expect(ensureTemporalCli()).rejects.toThrow(/TEMPORAL_CLI_PATH/);
    } finally {
      if (previous === undefined) delete process.env.TEMPORAL_CLI_PATH;
      else process.env.TEMPORAL_CLI_PATH = previous;
    }
  });
});

async function withClient<T>(address: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await fn(new Client({ connection }));
  } finally {
    await connection.close();
  }
}
