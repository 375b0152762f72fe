import { performance } from 'node:perf_hooks';
import { isGrpcServiceError, type WorkflowService } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { BlobStore, StoredBlob } from './blob-store';
import { StoreReferences, UnreadablePayloadError } from './refs';

const PayloadProto = proto.temporal.api.common.v1.Payload;
const RUNNING = proto.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
// gRPC status codes: a run deleted by retention between the listing and its history; a server without schedules.
const NOT_FOUND = 5;
const UNIMPLEMENTED = 12;

/** 24 hours: far longer than a blob waits between its write and the history event that refers to it. */
export const DEFAULT_GC_GRACE_MS = 24 * 3_600_000;

/** The collector refused to delete anything; the message says why. */
export class StoreGcRefusedError extends Error {
  override readonly name = 'StoreGcRefusedError';
}

export interface StoreGcOptions {
  /** The namespace's workflow service (raw: stored payloads stay references, nothing is resolved). */
  workflowService: WorkflowService;
  namespace: string;
  store: BlobStore;
  /** The deployment's codecs (`GOT_CODEC_KEYS`), to read references inside encrypted payloads. */
  codecs?: readonly PayloadCodec[];
  /** Only blobs last written longer ago than this may go (default {@link DEFAULT_GC_GRACE_MS}). */
  graceMs?: number;
  /** Find what would go, delete nothing. */
  dryRun?: boolean;
  /** Delete even when retained runs refer to blobs the store lacks (by default a sign of the wrong store: refused). */
  allowMissing?: boolean;
  /** Histories (and stored payloads) read at once; default 8. */
  concurrency?: number;
  now?: Date;
}

/** A count of blobs and their bytes. */
export interface BlobTally {
  count: number;
  bytes: number;
}

/** What one collection found and did. */
export interface StoreGcReport {
  store: string;
  namespace: string;
  dryRun: boolean;
  graceMs: number;
  /** Blobs last written before this may be deleted. */
  writtenBefore: string;
  executions: number;
  openExecutions: number;
  schedules: number;
  /** Distinct blobs the retained runs refer to, directly or inside stored payloads. */
  referenced: number;
  /** Stored payloads read for the references inside them. */
  storedPayloadsRead: BlobTally;
  /** References of other External Storage drivers (not this store's). */
  foreignReferences: number;
  /** Referred to but not in the store (each with where it was found). */
  missing: { key: string; from: string }[];
  blobs: {
    listed: BlobTally;
    keptReferenced: BlobTally;
    /** Unreferenced but newer than the grace: runs starting now may be about to refer to them. */
    keptRecent: BlobTally;
    /** Deleted, or with `dryRun` to be deleted. */
    deleted: BlobTally;
    /** Chosen, then left: written again by a run while the collector worked. */
    reused: number;
  };
  /** Temporary files of writes that never finished (a folder store): deleted when older than the grace. */
  abandonedWrites: { deleted: BlobTally; inProgress: number };
  /** What was (or would be) deleted. */
  deleted: { key: string; bytes: number; modified: string; partial?: true }[];
  ms: { mark: number; list: number; read: number; sweep: number; total: number };
}

/**
 * `got store gc`: deletes the blobs no retained workflow execution refers to (docs/decisions.md 64).
 * Mark: every execution the namespace lists (open, or closed within its retention: workflow runs,
 * studies, trials, whatever the workers run), its whole history, and for an open one its pending
 * activities (heartbeat details); every schedule's action; then every stored payload those refer to,
 * read for the `StoredRef`s inside it, recursively. Sweep: unreferenced blobs older than the grace.
 * Anything unreadable (a listing or history that fails, a payload encrypted with an unknown key, a
 * referenced blob missing from the store) ends it before anything is deleted.
 */
export async function collectStoreGarbage(o: StoreGcOptions): Promise<StoreGcReport> {
  const started = performance.now();
  const now = o.now ?? new Date();
  const graceMs = o.graceMs ?? DEFAULT_GC_GRACE_MS;
  const writtenBefore = new Date(now.getTime() - graceMs);
  const concurrency = o.concurrency ?? 8;
  const refs = new StoreReferences(o.codecs ?? []);
  const { workflowService: service, namespace } = o;

  const fail = (what: string, error: unknown): never => {
    // An unreadable payload's message already says where it is.
    const why =
      error instanceof UnreadablePayloadError ? error.message : `${what}: ${error instanceof Error ? error.message : String(error)}`;
    throw new StoreGcRefusedError(`nothing deleted: ${why}`);
  };

  // Mark, step 1: what the server keeps.
  let executions = 0;
  let openExecutions = 0;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service
      .listWorkflowExecutions({ namespace, pageSize: 1000, nextPageToken: nextPageToken ?? null })
      .catch((e: unknown) => fail(`listing the workflow executions of namespace "${namespace}" failed after ${executions}`, e));
    await eachLimited(page.executions ?? [], concurrency, async (info) => {
      const workflowId = info.execution?.workflowId ?? '';
      const runId = info.execution?.runId ?? '';
      const holder = `workflow ${workflowId} (run ${runId})`;
      try {
        await scanHistory(service, namespace, { workflowId, runId }, (event) => refs.scanMessage(event, holder));
        if (info.status === RUNNING) {
          openExecutions += 1;
          // Heartbeat details and last failures of pending activities are not in the history yet.
          const described = await service.describeWorkflowExecution({ namespace, execution: { workflowId, runId } });
          await refs.scanMessage(described, holder);
        }
      } catch (e) {
        if (isGrpcServiceError(e) && e.code === NOT_FOUND) return; // deleted by retention meanwhile: nothing to keep
        fail(`reading the history of ${holder}`, e);
      }
    });
    executions += page.executions?.length ?? 0;
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);

  let schedules = 0;
  nextPageToken = undefined;
  do {
    let page: proto.temporal.api.workflowservice.v1.ListSchedulesResponse;
    try {
      page = await service.listSchedules({ namespace, maximumPageSize: 1000, nextPageToken: nextPageToken ?? null });
    } catch (e) {
      if (isGrpcServiceError(e) && e.code === UNIMPLEMENTED) break; // a server without schedules has none
      return fail(`listing the schedules of namespace "${namespace}" failed`, e);
    }
    for (const entry of page.schedules ?? []) {
      const scheduleId = entry.scheduleId ?? '';
      // A schedule's action holds the input of every run it will start.
      const described = await service
        .describeSchedule({ namespace, scheduleId })
        .catch((e: unknown) => (isGrpcServiceError(e) && e.code === NOT_FOUND ? undefined : fail(`reading schedule ${scheduleId}`, e)));
      if (described) await refs.scanMessage(described.schedule, `schedule ${scheduleId}`).catch((e: unknown) => fail('a schedule', e));
      schedules += 1;
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  const markEnd = performance.now();

  // The store, listed after the histories: a blob referred to in them was written before the listing.
  const listed = new Map<string, StoredBlob>();
  const partial: StoredBlob[] = [];
  try {
    for await (const blob of o.store.list()) {
      if (blob.partial) partial.push(blob);
      else listed.set(blob.key, blob);
    }
  } catch (e) {
    fail(`listing ${o.store.description} failed`, e);
  }
  const listEnd = performance.now();

  const unreferencedOld = () => [...listed.values()].filter((b) => !refs.found.has(b.key) && b.modified < writtenBefore);
  // Mark, step 2: references inside stored payloads (e.g. a step's stored input holding its run's
  // problemRef), read only when there is something to delete that they might keep.
  const storedPayloadsRead = { count: 0, bytes: 0 };
  if (unreferencedOld().length) {
    const read = new Set<string>();
    for (;;) {
      const next = [...refs.found.keys()].filter((key) => !read.has(key) && listed.has(key));
      if (!next.length) break;
      await eachLimited(next, concurrency, async (key) => {
        read.add(key);
        const bytes = await o.store.get(key).catch((e: unknown) => fail(`reading blob ${key}`, e));
        storedPayloadsRead.count += 1;
        storedPayloadsRead.bytes += bytes.length;
        const holder = `blob ${key} (of ${refs.found.get(key)})`;
        let payload: proto.temporal.api.common.v1.Payload;
        try {
          payload = PayloadProto.decode(bytes);
        } catch (e) {
          return fail(`${holder} is not a stored payload`, e);
        }
        await refs.scanPayload(payload, holder).catch((e: unknown) => fail('a stored payload', e));
      });
    }
  }
  const readEnd = performance.now();

  const missing = [...refs.found].filter(([key]) => !listed.has(key)).map(([key, from]) => ({ key, from }));
  if (missing.length && !o.allowMissing) {
    const first = missing[0]!;
    throw new StoreGcRefusedError(
      `nothing deleted: ${missing.length} blob(s) that retained runs refer to are not in ${o.store.description} (e.g. ${first.key}, from ${first.from}); ` +
        'is GOT_STORE the store these runs were written to? If those blobs are known to be lost, --allow-missing collects the rest',
    );
  }

  const tally = (blobs: Iterable<StoredBlob>): BlobTally => {
    let count = 0;
    let bytes = 0;
    for (const b of blobs) {
      count += 1;
      bytes += b.bytes;
    }
    return { count, bytes };
  };
  const all = [...listed.values()];
  const doomed = unreferencedOld();
  const stalePartial = partial.filter((p) => p.modified < writtenBefore);
  const deleted = o.dryRun ? [...doomed, ...stalePartial] : await o.store.delete([...doomed, ...stalePartial], writtenBefore);
  const deletedBlobs = deleted.filter((d) => !d.partial);
  const deletedPartial = deleted.filter((d) => d.partial);
  const end = performance.now();
  const round = (ms: number) => Math.round(ms);
  return {
    store: o.store.description,
    namespace,
    dryRun: o.dryRun ?? false,
    graceMs,
    writtenBefore: writtenBefore.toISOString(),
    executions,
    openExecutions,
    schedules,
    referenced: refs.found.size,
    storedPayloadsRead,
    foreignReferences: refs.foreignReferences,
    missing,
    blobs: {
      listed: tally(all),
      keptReferenced: tally(all.filter((b) => refs.found.has(b.key))),
      keptRecent: tally(all.filter((b) => !refs.found.has(b.key) && b.modified >= writtenBefore)),
      deleted: tally(deletedBlobs),
      reused: doomed.length - deletedBlobs.length,
    },
    abandonedWrites: { deleted: tally(deletedPartial), inProgress: partial.length - stalePartial.length },
    deleted: deleted.map((d) => ({
      key: d.key,
      bytes: d.bytes,
      modified: d.modified.toISOString(),
      ...(d.partial ? { partial: true as const } : {}),
    })),
    ms: {
      mark: round(markEnd - started),
      list: round(listEnd - markEnd),
      read: round(readEnd - listEnd),
      sweep: round(end - readEnd),
      total: round(end - started),
    },
  };
}

/** Every event of one run's history, page by page, as the server keeps them (references unresolved). */
async function scanHistory(
  service: WorkflowService,
  namespace: string,
  execution: { workflowId: string; runId: string },
  onEvent: (event: proto.temporal.api.history.v1.IHistoryEvent) => Promise<void>,
): Promise<void> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.getWorkflowExecutionHistory({
      namespace,
      execution,
      maximumPageSize: 1000,
      nextPageToken: nextPageToken ?? null,
    });
    for (const event of page.history?.events ?? []) await onEvent(event);
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}

/** Runs `work` on every item, at most `limit` at once; the first failure ends it (after those running settle). */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
}
