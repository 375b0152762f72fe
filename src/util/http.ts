import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An HTTP answer other than 200 that a local server's handler throws: its status and the reason in words. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A request's body as text, refused (413) once it grows past `maxBytes` instead of buffering it all. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpError(413, `request body larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether a secret given by a client is the expected one, compared in constant time (digests of equal length). */
export const sameSecret = (given: string | undefined | null, expected: string): boolean =>
  given !== undefined && given !== null && timingSafeEqual(digest(given), digest(expected));
