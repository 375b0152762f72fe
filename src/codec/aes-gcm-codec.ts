import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { CODEC_KEYS_ENV, type CodecKey, type CodecKeyring } from './keys';

/** `metadata.encoding` of an encrypted payload (the value Temporal's encryption samples use). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** `metadata` entry naming the key a payload was encrypted with. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ProtoPayload = proto.temporal.api.common.v1.Payload;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** Thrown when a payload cannot be decrypted: unknown key, altered bytes, or not an encrypted payload at all. */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
}

export const isEncrypted = (payload: Payload): boolean => {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && fromUtf8.decode(encoding) === ENCRYPTED_ENCODING;
};

export const keyIdOf = (payload: Payload): string | undefined => {
  const id = payload.metadata?.[KEY_ID_METADATA];
  return id ? fromUtf8.decode(id) : undefined;
};

/**
 * Encrypts every payload with AES-256-GCM under the keyring's active key. The whole original
 * payload (metadata and data, protobuf-serialized) is the plaintext; the encrypted payload carries
 * only `encoding: binary/encrypted` and the key id in its metadata, and `iv (12) | ciphertext | tag (16)`
 * as its data, the layout of Temporal's encryption samples. Decoding picks the key by id, so payloads
 * written under a retired key stay readable as long as that key stays in the keyring, and passes
 * payloads that were never encrypted through unchanged (runs from before encryption was turned on).
 */
export class AesGcmCodec implements PayloadCodec {
  constructor(private readonly keys: CodecKeyring) {}

  get activeKeyId(): string {
    return this.keys.active.id;
  }

  get keyIds(): string[] {
    return [...this.keys.byId.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (isEncrypted(p) ? this.decrypt(p) : p));
  }

  encrypt(payload: Payload): Payload {
    const { id, key } = this.keys.active;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const plaintext = ProtoPayload.encode(payload).finish();
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(id) },
      data: new Uint8Array(Buffer.concat([iv, ciphertext, cipher.getAuthTag()])),
    };
  }

  decrypt(payload: Payload): Payload {
    const id = keyIdOf(payload);
    if (id === undefined)
      throw new PayloadDecryptionError(
        `cannot decrypt a payload: it is marked ${ENCRYPTED_ENCODING} but has no "${KEY_ID_METADATA}" in its metadata`,
      );
    const key: CodecKey | undefined = this.keys.byId.get(id);
    if (!key) {
      throw new PayloadDecryptionError(
        `cannot decrypt a payload encrypted with key "${id}": ${CODEC_KEYS_ENV} has no key "${id}" (it has ${this.keyIds.map((k) => `"${k}"`).join(', ')}); ` +
          `keep retired keys after the active one in ${CODEC_KEYS_ENV} to read older runs`,
      );
    }
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError(`cannot decrypt a payload encrypted with key "${id}": its data is truncated (${data.length} bytes)`);
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key.key, iv);
    decipher.setAuthTag(tag);
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError(
        `cannot decrypt a payload encrypted with key "${id}": authentication failed (the payload was altered, or the key "${id}" in ${CODEC_KEYS_ENV} is not the one it was encrypted with)`,
      );
    }
    return ProtoPayload.decode(plaintext);
  }
}
