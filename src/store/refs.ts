import type { Payload, PayloadCodec } from '@temporalio/common';
import { isEncrypted, keyIdOf } from '../codec/aes-gcm-codec';
import { CODEC_KEYS_ENV } from '../codec/keys';
import { BLOB_KEY } from './blob-store';
import { STORE_DRIVER_NAME } from './payload-store';

/**
 * Finding the blobs a history refers to, without retrieving stored payloads (docs/decisions.md 64).
 * Two kinds of reference exist: Temporal's External Storage replaces a large payload by a reference
 * payload (written after the codecs, so never encrypted), and our own values kept by reference
 * (`StoredRef`, e.g. a run's `problemRef`) sit inside JSON payloads, encrypted when payloads are.
 */

const METADATA_ENCODING = 'encoding';
const METADATA_MESSAGE_TYPE = 'messageType';
/** How the SDK (1.24) writes a reference: `json/protobuf` of `temporal.api.sdk.v1.ExternalStorageReference` {driverName, claimData}. */
const REFERENCE_ENCODING = 'json/protobuf';
const REFERENCE_MESSAGE_TYPE = 'temporal.api.sdk.v1.ExternalStorageReference';

const utf8 = new TextDecoder();
const text = (bytes: Uint8Array | null | undefined) => (bytes ? utf8.decode(bytes) : undefined);

/** A payload the collector cannot read (encrypted with a key it lacks): what it refers to is unknown. */
export class UnreadablePayloadError extends Error {
  override readonly name = 'UnreadablePayloadError';
}

/** Whether a payload is an External Storage reference (the SDK's own test, on its metadata). */
export function isReferencePayload(payload: Payload): boolean {
  return (
    text(payload.metadata?.[METADATA_ENCODING]) === REFERENCE_ENCODING &&
    text(payload.metadata?.[METADATA_MESSAGE_TYPE]) === REFERENCE_MESSAGE_TYPE
  );
}

/** A payload as protobufjs decodes it: a `metadata` map of bytes, and `data`. */
function isPayload(value: object): value is Payload {
  const { metadata, data } = value as Payload;
  if (!metadata || typeof metadata !== 'object' || (data != null && !(data instanceof Uint8Array))) return false;
  const entries = Object.values(metadata);
  return entries.length > 0 && entries.every((v) => v instanceof Uint8Array);
}

/** Every payload anywhere in a decoded message (a history event, a describe answer); payloads are not descended into. */
export function payloadsIn(message: unknown): Payload[] {
  const found: Payload[] = [];
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (isPayload(value)) {
      found.push(value);
      return;
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(message);
  return found;
}

/** `StoredRef`-shaped objects ({key: 64 hex digits, bytes: number}) anywhere in a JSON value. */
export function storedRefKeysIn(value: unknown, into: (key: string) => void): void {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) storedRefKeysIn(item, into);
    return;
  }
  const { key, bytes } = value as { key?: unknown; bytes?: unknown };
  if (typeof key === 'string' && BLOB_KEY.test(key) && typeof bytes === 'number') into(key);
  for (const child of Object.values(value)) storedRefKeysIn(child, into);
}

/**
 * The blobs of our store that payloads refer to, each with where it was first found. Payloads are
 * decoded with the deployment's codecs (to see inside encrypted JSON) but stored payloads are not
 * retrieved here: the keys found are what the collector reads next, for references nested in them.
 */
export class StoreReferences {
  /** Key → where it was first found (a run, a schedule, or the blob that held it). */
  readonly found = new Map<string, string>();
  /** References of other External Storage drivers: not in our store, nothing for us to keep. */
  foreignReferences = 0;

  constructor(private readonly codecs: readonly PayloadCodec[]) {}

  /** Notes every reference in a message's payloads; throws `UnreadablePayloadError` for one it cannot decode. */
  async scanMessage(message: unknown, holder: string): Promise<void> {
    for (const payload of payloadsIn(message)) await this.scanPayload(payload, holder);
  }

  /** Notes the references one payload holds (a stored blob is a payload too). */
  async scanPayload(payload: Payload, holder: string): Promise<void> {
    if (isReferencePayload(payload)) return this.noteReference(payload, holder);
    let decoded = payload;
    try {
      for (const codec of [...this.codecs].reverse()) decoded = (await codec.decode([decoded]))[0]!;
    } catch (error) {
      throw new UnreadablePayloadError(`${holder}: a payload cannot be decoded: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (isEncrypted(decoded)) {
      throw new UnreadablePayloadError(
        `${holder}: a payload is encrypted (key "${keyIdOf(decoded) ?? '?'}") and ${CODEC_KEYS_ENV} ${this.codecs.length ? 'lacks that key' : 'is not set'}: the references inside it cannot be read`,
      );
    }
    if (decoded !== payload && isReferencePayload(decoded)) return this.noteReference(decoded, holder);
    if (!text(decoded.metadata?.[METADATA_ENCODING])?.startsWith('json/') || !decoded.data?.length) return;
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(decoded.data));
    } catch {
      return; // not JSON after all: nothing a reference could be written in
    }
    storedRefKeysIn(value, (key) => this.note(key, holder));
  }

  private noteReference(payload: Payload, holder: string): void {
    const reference = JSON.parse(utf8.decode(payload.data ?? new Uint8Array())) as { driverName?: string; claimData?: { key?: unknown } };
    if (reference.driverName !== STORE_DRIVER_NAME) {
      this.foreignReferences += 1;
      return;
    }
    const key = reference.claimData?.key;
    if (typeof key !== 'string' || !BLOB_KEY.test(key))
      throw new UnreadablePayloadError(`${holder}: a ${STORE_DRIVER_NAME} reference without a blob key: ${JSON.stringify(reference)}`);
    this.note(key, holder);
  }

  private note(key: string, holder: string): void {
    if (!this.found.has(key)) this.found.set(key, holder);
  }
}
