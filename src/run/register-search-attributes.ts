import { connectClient } from '../temporal/connect';
import type { TemporalConnectionOptions } from '../temporal/connection';
import { SEARCH_ATTRIBUTES } from './search-attributes';

// Kept apart from search-attributes.ts: the workflow bundle imports that module and must not pull in a gRPC client.

// Names of temporal.api.enums.v1.IndexedValueType by numeric value (avoids a direct @temporalio/proto dependency).
const INDEXED_VALUE_TYPES = ['Unspecified', 'Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'];

/**
 * Registers any of SEARCH_ATTRIBUTES the namespace lacks (e.g. a server we did not start, or a
 * SQLite file created before an attribute existed), and fails if one exists with another type.
 */
export async function ensureSearchAttributes(server: TemporalConnectionOptions, namespace: string): Promise<void> {
  const connection = await connectClient(server);
  try {
    const missing: Record<string, number> = {};
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
      const existing = customAttributes[name];
      if (existing === undefined) missing[name] = INDEXED_VALUE_TYPES.indexOf(type);
      else if (INDEXED_VALUE_TYPES[existing] !== type) {
        throw new Error(
          `Search attribute ${name} is registered as ${INDEXED_VALUE_TYPES[existing]} in namespace "${namespace}" ` +
            `at ${server.address}, but this project needs ${type}. Use a fresh server/database.`,
        );
      }
    }
    if (Object.keys(missing).length > 0) {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
    }
  } finally {
    await connection.close();
  }
}
