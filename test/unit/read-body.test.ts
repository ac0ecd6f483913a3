import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyTooLargeError, readBody } from '../../lib/http/read-body.js';

// A real node:http server on loopback; each test sets what the handler does with the request.

const MAX_BYTES = 1024;
const EVENTS = ['data', 'end', 'error', 'close', 'readable', 'finish', 'aborted'] as const;
let server: Server;
let port: number;
let handle: (req: IncomingMessage) => Promise<void>;

before(async () => {
  server = createServer(async (req, res) => {
    try {
      await handle(req);
      res.writeHead(204).end();
    } catch (error) {
      res.writeHead(error instanceof BodyTooLargeError ? 413 : 500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends `chunks` as a chunked body (no content-length), one write each; resolves with the status. */
function post(chunks: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const listenerCounts = (req: IncomingMessage) => EVENTS.map((event) => req.listenerCount(event));

describe('readBody', () => {
  it('reads a body sent in many chunks whole', async () => {
    let read = '';
    handle = async (req) => {
      read = (await readBody(req, MAX_BYTES)).toString('utf8');
    };
    const parts = Array.from({ length: 20 }, (_, i) => `"part-${i}",`);
    assert.equal(await post(parts), 204);
    assert.equal(read, parts.join(''));
  });

  it('leaves none of its listeners on the request once the body is read', async () => {
    // The request stays open for as long as its call is pending: whatever the reader leaves on it
    // is heap held per pending call (an async iterator left its end-of-stream watchers there).
    let counts: { before: number[]; after: number[] } | undefined;
    handle = async (req) => {
      const before = listenerCounts(req);
      await readBody(req, MAX_BYTES);
      counts = { before, after: listenerCounts(req) };
    };
    assert.equal(await post(['{"a":', '1}']), 204);
    assert.deepEqual(counts!.after, counts!.before, `listeners on ${EVENTS.join(', ')}`);
  });

  it('stops at the limit of a body without a declared length, and the answer still reaches the client', async () => {
    let buffered: unknown;
    handle = async (req) => {
      try {
        await readBody(req, MAX_BYTES);
      } catch (error) {
        buffered = error;
        throw error;
      }
    };
    assert.equal(await post(Array.from({ length: 40 }, () => 'x'.repeat(100))), 413);
    assert.ok(buffered instanceof BodyTooLargeError);
    assert.equal(buffered.limit, MAX_BYTES);
  });

  it('fails, rather than waiting forever, when the client hangs up in the middle of the body', async () => {
    let outcome: Promise<unknown> | undefined;
    const started = new Promise<void>((resolve) => {
      handle = (req) => {
        outcome = readBody(req, MAX_BYTES).then(
          () => 'read',
          (error: Error) => error.message,
        );
        resolve();
        return outcome.then(() => undefined);
      };
    });
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': '500' } });
    req.on('error', () => undefined);
    req.write('{"partial":');
    await started;
    req.destroy();
    // Node reports the hang-up as an `aborted` error, or the request closes without an end.
    assert.match(String(await outcome), /^(aborted|the request closed before its body ended)$/);
  });
});
