import { randomBytes } from 'node:crypto';

/** The environment variable holding the payload encryption keys. */
export const CODEC_KEYS_ENV = 'GOT_CODEC_KEYS';

/** AES-256: a key is exactly 32 bytes. */
export const KEY_BYTES = 32;

export interface CodecKey {
  id: string;
  key: Buffer;
}

/**
 * The keys a codec knows: `active` encrypts every new payload; every key (the active one
 * included) can decrypt, so payloads written under an older key stay readable after a rotation.
 */
export interface CodecKeyring {
  active: CodecKey;
  byId: ReadonlyMap<string, CodecKey>;
}

/** Thrown for a malformed key list. Its message never contains key material. */
export class CodecKeyError extends Error {
  override readonly name = 'CodecKeyError';
}

const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

const EXPECTED =
  `expected a comma-separated list of <key id>:<base64 of ${KEY_BYTES} random bytes>, the first being the key new payloads are encrypted with ` +
  `and the others older keys kept for reading, e.g. ${CODEC_KEYS_ENV}="k2:$(openssl rand -base64 ${KEY_BYTES}),k1:<the previous key>"`;

/**
 * Parses `k2:<base64>,k1:<base64>`: key ids (letters, digits, `.`, `_`, `-`) each with the base64 of
 * 32 random bytes. Errors name the variable and the entry but never echo a key.
 */
export function parseCodecKeys(value: string, source = CODEC_KEYS_ENV): CodecKeyring {
  const fail = (problem: string): never => {
    throw new CodecKeyError(`${source}: ${problem}; ${EXPECTED}`);
  };
  const entries = value.split(',').map((e) => e.trim());
  const keys: CodecKey[] = [];
  entries.forEach((entry, i) => {
    const where = `entry ${i + 1} of ${entries.length}`;
    if (entry === '') fail(`${where} is empty`);
    const colon = entry.indexOf(':');
    // Without a colon the entry may well be a bare key: never echo it.
    if (colon < 0) fail(`${where} has no key id (no ":")`);
    const id = entry.slice(0, colon).trim();
    const material = entry.slice(colon + 1).trim();
    // An id that is not an id may be key material written the wrong way round: never echo it either.
    if (!KEY_ID.test(id))
      fail(`${where} has an invalid key id (expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit)`);
    if (keys.some((k) => k.id === id)) fail(`key id "${id}" appears more than once`);
    if (material === '') fail(`key "${id}" has no key after the ":"`);
    if (!BASE64.test(material)) fail(`key "${id}" is not base64`);
    const key = Buffer.from(material, material.includes('-') || material.includes('_') ? 'base64url' : 'base64');
    if (key.length !== KEY_BYTES) fail(`key "${id}" is ${key.length} bytes once decoded, not ${KEY_BYTES} (AES-256)`);
    keys.push({ id, key });
  });
  return { active: keys[0]!, byId: new Map(keys.map((k) => [k.id, k])) };
}

/** The keyring from `GOT_CODEC_KEYS`, or undefined when it is unset or blank (payloads stay plain). */
export function codecKeysFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKeyring | undefined {
  const value = env[CODEC_KEYS_ENV];
  if (value === undefined || value.trim() === '') return undefined;
  return parseCodecKeys(value);
}

/** A fresh `<id>:<base64>` entry, to put first in `GOT_CODEC_KEYS`. */
export function generateCodecKey(id: string): string {
  if (!KEY_ID.test(id))
    throw new CodecKeyError(`invalid key id "${id}": expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}
