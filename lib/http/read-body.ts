import type { IncomingMessage } from 'node:http';
import { heldBody } from './held-body.js';

export class BodyTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`request body exceeds ${limit} bytes`);
    this.name = 'BodyTooLargeError';
    this.limit = limit;
  }
}

/** Reads a request body up to `maxBytes`, stopping (not buffering further) as soon as it is exceeded. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  // Read already, before the host's own body parsers could (one-port mode; see held-body).
  const held = heldBody(req);
  if (held !== undefined) {
    if (held === 'too_large' || held.length > maxBytes) throw new BodyTooLargeError(maxBytes);
    return held;
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
