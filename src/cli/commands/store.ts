import { type Command, InvalidArgumentError, Option } from 'commander';
import type { StoreGcReport } from '../../store/gc';

/** The shortest grace `got store gc` accepts: a reused blob's date is renewed only every 10 minutes (BLOB_REFRESH_MS). */
export const MIN_GC_GRACE_MS = 3_600_000;

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `24h`, `7d` in milliseconds; throws for anything else. */
export function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError(`"${value}" is not a duration: expected a number and a unit, s, m, h or d (e.g. 24h, 7d)`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

const graceOption = (value: string) => {
  const ms = parseDuration(value);
  if (ms < MIN_GC_GRACE_MS)
    throw new InvalidArgumentError(
      `${value} is too short: at least 1h (a run reusing a stored blob renews its date every 10 minutes, and a blob may wait a while between its write and the event that refers to it)`,
    );
  return ms;
};

interface StoreGcCommandOptions {
  dryRun: boolean;
  grace: number;
  json: boolean;
  allowMissing: boolean;
}

/** Adds `got store gc`: deletes the stored payloads no retained run refers to (docs/decisions.md 64). */
export function addStoreCommand(program: Command, log: (line: string) => void): void {
  const store = program.command('store').description('the payload store (GOT_STORE) that keeps large payloads out of the histories');
  store
    .command('gc')
    .description(
      "delete the stored blobs no workflow execution the server still keeps (open, or closed within the namespace's retention) refers to, and that are older than the grace",
    )
    .option('--dry-run', 'list what would be deleted and the bytes it would free, delete nothing', false)
    .addOption(
      new Option('--grace <duration>', 'keep every blob written less than this long ago, referred to or not (at least 1h)')
        .argParser(graceOption)
        .default(UNITS.d, '24h'),
    )
    .option('--allow-missing', 'delete even though retained runs refer to blobs that are not in the store (lost ones)', false)
    .option('--json', 'print the report as JSON', false)
    .action(async (o: StoreGcCommandOptions) => {
      const { blobStoreFromEnv } = await import('../../store/config');
      let blobs: ReturnType<typeof blobStoreFromEnv>;
      try {
        blobs = blobStoreFromEnv();
      } catch (error) {
        log(`nothing to collect: ${(error as Error).message}`);
        process.exitCode = 2;
        return;
      }
      if (!blobs) {
        log('nothing to collect: GOT_STORE is off, so there is no payload store (set GOT_STORE to the store the runs were written to)');
        process.exitCode = 2;
        return;
      }
      const [{ withCliClient }, { codecFromEnv }, { collectStoreGarbage }] = await Promise.all([
        import('../cli-client'),
        import('../../codec/data-converter'),
        import('../../store/gc'),
      ]);
      const codec = codecFromEnv();
      const report = await withCliClient(log, ({ client }) =>
        collectStoreGarbage({
          workflowService: client.workflowService,
          namespace: client.options.namespace,
          store: blobs,
          codecs: codec ? [codec] : [],
          graceMs: o.grace,
          dryRun: o.dryRun,
          allowMissing: o.allowMissing,
        }),
      );
      console.log(o.json ? JSON.stringify(report, null, 2) : formatStoreGc(report));
    });
}

const size = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const duration = (ms: number) =>
  ms % UNITS.d! === 0 ? `${ms / UNITS.d!}d` : ms % UNITS.h! === 0 ? `${ms / UNITS.h!}h` : `${Math.round(ms / UNITS.m!)}m`;
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The report as a few aligned lines; a dry run lists each blob that would go. */
export function formatStoreGc(r: StoreGcReport): string {
  const verb = r.dryRun ? 'would delete' : 'deleted';
  const b = r.blobs;
  return [
    `payload store ${r.store} · namespace ${r.namespace} · grace ${duration(r.graceMs)}: blobs written before ${r.writtenBefore} may go`,
    `  marked      ${plural(r.executions, 'execution')} (${r.openExecutions} open), ${plural(r.schedules, 'schedule')}: ${plural(r.referenced, 'blob')} referred to (${plural(r.storedPayloadsRead.count, 'stored payload')}, ${size(r.storedPayloadsRead.bytes)}, read for references inside them)`,
    `  kept        ${plural(b.keptReferenced.count, 'blob')}, ${size(b.keptReferenced.bytes)} referred to · ${plural(b.keptRecent.count, 'blob')}, ${size(b.keptRecent.bytes)} newer than the grace${b.reused ? ` · ${b.reused} written again meanwhile` : ''}${r.abandonedWrites.inProgress ? ` · ${r.abandonedWrites.inProgress} write(s) in progress` : ''}`,
    `  ${verb.padEnd(11)} ${plural(b.deleted.count, 'blob')}, ${size(b.deleted.bytes)}${r.abandonedWrites.deleted.count ? ` · ${plural(r.abandonedWrites.deleted.count, 'abandoned temporary file')}, ${size(r.abandonedWrites.deleted.bytes)}` : ''} (of ${plural(b.listed.count, 'blob')}, ${size(b.listed.bytes)})`,
    ...(r.missing.length ? [`  missing     ${plural(r.missing.length, 'blob')} referred to but not in the store (--allow-missing)`] : []),
    ...(r.dryRun
      ? r.deleted.map((d) => `    ${d.key}  ${size(d.bytes).padStart(10)}  ${d.modified}${d.partial ? '  (abandoned write)' : ''}`)
      : []),
    `  took        ${seconds(r.ms.total)} (histories ${seconds(r.ms.mark)}, listing ${seconds(r.ms.list)}, stored payloads ${seconds(r.ms.read)}, deleting ${seconds(r.ms.sweep)})`,
  ].join('\n');
}
