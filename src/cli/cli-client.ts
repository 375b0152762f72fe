import { Client } from '@temporalio/client';
import { dataConverterFromEnv } from '../codec/data-converter';
import { connectClient } from '../temporal/connect';
import { type CliServer, cliServer } from './server';

/** What a command that reads or signals runs is given: a client with the deployment's payload converter, and its server. */
export interface CliClient {
  client: Client;
  server: CliServer;
  /** The environment's data converter (codec, payload store); undefined for plain payloads. */
  dataConverter: ReturnType<typeof dataConverterFromEnv>;
}

/** Connects to the command's Temporal server (the local dev server unless configured), runs `use`, and closes the connection. */
export async function withCliClient<T>(log: (line: string) => void, use: (c: CliClient) => Promise<T>): Promise<T> {
  const server = await cliServer(log);
  const connection = await connectClient(server.connection);
  try {
    const dataConverter = dataConverterFromEnv();
    const client = new Client({ connection, namespace: server.namespace, ...(dataConverter ? { dataConverter } : {}) });
    return await use({ client, server, dataConverter });
  } finally {
    await connection.close();
  }
}
