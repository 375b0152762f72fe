/**
 * Builds the Temporal server, its SQL schema tool and the Web UI server that `got cluster up` and the
 * cluster's fault tests run, once per user (cached in ~/.cache/got-temporal/). Run by `npm test`'s
 * pretest hook, so the builds (minutes the first time) happen before the tests, not inside a test's
 * time limit.
 *
 *   npx tsx scripts/ensure-cluster-tools.ts
 */
import { ensureClusterTools } from '../src/cluster/tools';

const binaries = await ensureClusterTools((line) => process.stderr.write(`[cluster tools] ${line}\n`));
console.log(Object.values(binaries).join('\n'));
