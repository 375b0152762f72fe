import { Connection } from '@temporalio/client';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';

// The namespace's retention as the server has it, read and set (decision 84); the setting itself is retention.ts.

/** The namespace's retention in seconds, as the server has it. */
export async function namespaceRetentionSeconds(connection: Connection, namespace: string): Promise<number | undefined> {
  const { config } = await connection.workflowService.describeNamespace({ namespace });
  const ttl = config?.workflowExecutionRetentionTtl;
  return ttl ? Math.round(tsToMs(ttl) / 1000) : undefined;
}

/** Sets the namespace's retention unless it already is `seconds`; says whether it changed it, and from what. */
export async function ensureRetention(address: string, namespace: string, seconds: number): Promise<{ changed: boolean; from?: number }> {
  const connection = await Connection.connect({ address });
  try {
    const current = await namespaceRetentionSeconds(connection, namespace);
    if (current === seconds) return { changed: false };
    await connection.workflowService.updateNamespace({ namespace, config: { workflowExecutionRetentionTtl: msToTs(seconds * 1000) } });
    return { changed: true, ...(current === undefined ? {} : { from: current }) };
  } finally {
    await connection.close();
  }
}
