import type { DataConverter, Payload } from '@temporalio/common';
import { externalStorageOf, payloadStoreFromEnv } from '../store/config';
import { PayloadStore } from '../store/payload-store';
import { AesGcmCodec, isEncrypted, keyIdOf } from './aes-gcm-codec';
import { CODEC_KEYS_ENV, codecKeysFromEnv } from './keys';

export { AesGcmCodec, ENCRYPTED_ENCODING, isEncrypted, KEY_ID_METADATA, keyIdOf, PayloadDecryptionError } from './aes-gcm-codec';
export { CODEC_KEYS_ENV, CodecKeyError, type CodecKeyring, codecKeysFromEnv, generateCodecKey, parseCodecKeys } from './keys';

/** The encryption codec configured by `GOT_CODEC_KEYS`, or undefined when it is unset (payloads stay plain). Throws `CodecKeyError` on a malformed value. */
export function codecFromEnv(env: NodeJS.ProcessEnv = process.env): AesGcmCodec | undefined {
  const keys = codecKeysFromEnv(env);
  return keys ? new AesGcmCodec(keys) : undefined;
}

/**
 * The data converter every client, worker and replayer of one deployment must share: payloads are
 * encrypted with the `GOT_CODEC_KEYS` codec (when set), and those above the store's threshold are
 * kept in the payload store (`GOT_STORE`, a folder by default) with only a reference in the history.
 * Undefined when neither applies (no keys, `GOT_STORE=off`).
 */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const codec = codecFromEnv(env);
  const codecs = codec ? [codec] : [];
  const store = payloadStoreFromEnv(codecs, env);
  if (!codec && !store) return undefined;
  return {
    ...(codec ? { payloadCodecs: codecs } : {}),
    ...(store ? { externalStorage: externalStorageOf(store) } : {}),
  };
}

/** The payload store a data converter keeps large payloads in, if any (workers pass it to their activities). */
export function payloadStoreOf(dataConverter: DataConverter | undefined): PayloadStore | undefined {
  return dataConverter?.externalStorage?.drivers.find((d): d is PayloadStore => d instanceof PayloadStore);
}

/**
 * The ids of the keys a history's (or any message's) encrypted payloads were written with, in the
 * order first met; empty when nothing in it is encrypted. Lets a reader without the keys say so.
 */
export function encryptionKeyIdsIn(value: unknown): string[] {
  const ids = new Set<string>();
  const visit = (v: unknown): void => {
    if (!v || typeof v !== 'object' || ArrayBuffer.isView(v)) return;
    if (Array.isArray(v)) {
      for (const item of v) visit(item);
      return;
    }
    const payload = v as Payload;
    if (payload.metadata && typeof payload.metadata === 'object' && isEncrypted(payload)) {
      ids.add(keyIdOf(payload) ?? '(no key id)');
      return;
    }
    for (const child of Object.values(v)) visit(child);
  };
  visit(value);
  return [...ids];
}

/**
 * Why a history cannot be read with this data converter, before trying: its payloads are
 * encrypted and there is no codec, or the encryption codec lacks a key they were written with.
 * Undefined when it looks readable.
 */
export function whyUnreadable(value: unknown, dataConverter: DataConverter | undefined): string | undefined {
  const used = encryptionKeyIdsIn(value);
  if (!used.length) return undefined;
  const quoted = (ids: string[]) => ids.map((k) => `"${k}"`).join(', ');
  const codecs = dataConverter?.payloadCodecs ?? [];
  if (!codecs.length)
    return `the run's payloads are encrypted (key ${quoted(used)}): set ${CODEC_KEYS_ENV} to the keys they were written with to read them`;
  const aes = codecs.filter((c): c is AesGcmCodec => c instanceof AesGcmCodec);
  if (aes.length !== codecs.length) return undefined;
  const known = new Set(aes.flatMap((c) => c.keyIds));
  const missing = used.filter((k) => !known.has(k));
  return missing.length
    ? `the run's payloads are encrypted with key ${quoted(missing)}, which ${CODEC_KEYS_ENV} lacks (it has ${quoted([...known])}); keep retired keys after the active one to read older runs`
    : undefined;
}
