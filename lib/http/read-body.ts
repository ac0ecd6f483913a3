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
  return readStream(req, maxBytes);
}

/**
 * Listeners, not `for await`: the async iterator leaves its end-of-stream watchers and generator on
 * the request until it closes, and a request stays open for as long as its call is pending (about
 * 1 KB of heap per pending call, of the ~9 KB a pending call costs). These detach at the end.
 */
function readStream(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  // Neither would ever emit an end: read already (nothing left), or gone.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(new Error('the request closed before its body ended'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: Error | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (error === undefined) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      else reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      // Not buffered further; the rest is drained so the connection can carry the answer.
      settle(new BodyTooLargeError(maxBytes));
      req.resume();
    };
    const onEnd = () => settle(undefined);
    // A client that hangs up mid-body: the request closes without an end.
    const onClose = () => settle(new Error('the request closed before its body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', settle);
    req.on('close', onClose);
  });
}

export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
