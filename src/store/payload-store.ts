import { createHash } from 'node:crypto';
import {
  defaultPayloadConverter,
  type Payload,
  type PayloadCodec,
  type StorageDriver,
  StorageDriverClaim,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import type { BlobStore } from './blob-store';
import { DEFAULT_STORE_THRESHOLD_BYTES } from './route';

const PayloadProto = proto.temporal.api.common.v1.Payload;

/** The driver name written into every reference: readers find the store by it. */
export const STORE_DRIVER_NAME = 'got-store';

/** A value kept in the store instead of travelling inline: its blob's key and size. */
export interface StoredRef {
  /** SHA-256 of the stored bytes (the encoded, possibly encrypted, payload). */
  key: string;
  bytes: number;
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * The claim check (docs/decisions.md 32). Temporal's External Storage hands it every payload above
 * the threshold (after the codecs, so what is stored is encrypted when the payloads are), and it
 * keeps them in a blob store under their content hash: only a small reference enters the history.
 * It also stores values the workflow passes by reference itself (a run's problem, which every step
 * of a document merge would otherwise carry), encoded with the same codecs.
 */
export class PayloadStore implements StorageDriver {
  readonly name = STORE_DRIVER_NAME;
  readonly type = 'got.blob-store';
  /** Decoded values by key: a worker reads a run's problem once, however many steps use it. */
  private readonly values = new Map<string, Promise<unknown>>();
  /**
   * Blobs this process stored or read lately, by key (content-addressed, so never stale): a workflow
   * task reads the results its worker's activities have just stored, and a replay reads a run's
   * whole history, one store round trip per workflow task otherwise (decision 72).
   */
  private readonly recent = new RecentBlobs(RECENT_BLOB_BYTES);

  constructor(
    readonly blobs: BlobStore,
    /** The deployment's codecs (encryption), applied before storing and undone after reading. */
    readonly codecs: readonly PayloadCodec[] = [],
    /** Values whose JSON is at least this long are worth storing (the External Storage threshold). */
    readonly threshold = DEFAULT_STORE_THRESHOLD_BYTES,
    /** How many decoded values to keep in memory. */
    private readonly keepValues = 8,
  ) {}

  async store(_context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    return Promise.all(payloads.map(async (payload) => new StorageDriverClaim({ key: (await this.putPayload(payload)).key })));
  }

  async retrieve(_context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(claims.map(async (claim) => PayloadProto.decode(await this.blob(keyOf(claim.claimData)))));
  }

  private async blob(key: string): Promise<Uint8Array> {
    const known = this.recent.get(key);
    if (known) return known;
    const bytes = await this.blobs.get(key);
    this.recent.add(key, bytes);
    return bytes;
  }

  /** Stores a JSON value (encoded and encrypted like any payload) and returns its reference. */
  async putValue(value: unknown): Promise<StoredRef> {
    return (await this.keepValue(value, 0))!;
  }

  /** Stores a value whose encoded JSON is at least the threshold; undefined (nothing stored) for a smaller one. */
  holdIfLarge(value: unknown): Promise<StoredRef | undefined> {
    return this.keepValue(value, this.threshold);
  }

  private async keepValue(value: unknown, atLeastBytes: number): Promise<StoredRef | undefined> {
    let payload = defaultPayloadConverter.toPayload(value);
    if ((payload.data?.length ?? 0) < atLeastBytes) return undefined;
    for (const codec of this.codecs) payload = (await codec.encode([payload]))[0]!;
    return this.putPayload(payload);
  }

  /** Keeps a payload's bytes under their hash. */
  private async putPayload(payload: Payload): Promise<StoredRef> {
    const bytes = PayloadProto.encode(payload).finish();
    const key = sha256(bytes);
    await this.blobs.put(key, bytes);
    this.recent.add(key, bytes);
    return { key, bytes: bytes.length };
  }

  /** Reads a value `putValue` stored, from memory when it was read lately. */
  getValue<T>(ref: StoredRef): Promise<T> {
    let value = this.values.get(ref.key);
    if (!value) {
      value = this.readValue(ref.key);
      // A failed read is not remembered: the next step tries again (the store may have been down).
      value.catch(() => this.values.delete(ref.key));
      this.values.set(ref.key, value);
      if (this.values.size > this.keepValues) this.values.delete(this.values.keys().next().value!);
    }
    return value as Promise<T>;
  }

  private async readValue(key: string): Promise<unknown> {
    let payload: Payload = PayloadProto.decode(await this.blob(key));
    for (const codec of [...this.codecs].reverse()) payload = (await codec.decode([payload]))[0]!;
    return defaultPayloadConverter.fromPayload(payload);
  }
}

/** How many bytes of recent blobs a process keeps. */
const RECENT_BLOB_BYTES = 64 * 1024 * 1024;

/** Blobs by key, least recently used first out once they pass a byte budget; a blob larger than a quarter of it is not kept. */
class RecentBlobs {
  private readonly byKey = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(key: string): Uint8Array | undefined {
    const blob = this.byKey.get(key);
    if (blob) {
      this.byKey.delete(key);
      this.byKey.set(key, blob);
    }
    return blob;
  }

  add(key: string, blob: Uint8Array): void {
    if (blob.length > this.budget / 4 || this.byKey.has(key)) return;
    this.byKey.set(key, blob);
    this.bytes += blob.length;
    for (const [oldest, old] of this.byKey) {
      if (this.bytes <= this.budget) break;
      this.byKey.delete(oldest);
      this.bytes -= old.length;
    }
  }
}

function keyOf(claim: Record<string, string>): string {
  const key = claim.key;
  if (typeof key !== 'string' || !key) throw new Error(`a ${STORE_DRIVER_NAME} reference without a key: ${JSON.stringify(claim)}`);
  return key;
}
