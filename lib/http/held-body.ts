import type { IncomingMessage } from 'node:http';

/** A body read before the route ran, or the fact that it was longer than anything a route accepts. */
type HeldBody = Buffer | 'too_large';

const held = new WeakMap<IncomingMessage, HeldBody>();

/** The body read for `req` by `holdBody`, if any (readBody answers from it instead of the stream). */
export function heldBody(req: IncomingMessage): HeldBody | undefined {
  return held.get(req);
}

/**
 * Reads a request body up to `maxBytes` and keeps it for the route that will serve the request.
 * For hosts whose own middleware parses bodies before their routes run (Node-RED's admin app on
 * the same root parses every JSON and form body): reading first keeps the exact bytes, so every
 * check and limit of the route applies unchanged. Marked the way body-parser knows (`_body`), so
 * the host's parsers leave it alone. Past the limit, the rest is drained and the route refuses it.
 */
export function holdBody(req: IncomingMessage, maxBytes: number): Promise<void> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (body: HeldBody) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      held.set(req, body);
      (req as IncomingMessage & { _body?: boolean })._body = true;
      resolve();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        finish('too_large');
        req.resume();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks));
    // A broken upload: the route sees an empty body and the connection is gone anyway.
    const onError = () => finish(Buffer.alloc(0));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
