import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodylessWebRequest, writeWebResponse } from '../../lib/http/web-exchange.js';

// A real node:http server on loopback: each test installs what the server does with one request.

let server: Server;
let port: number;
let onRequest: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

before(async () => {
  server = createServer((req, res) => void onRequest(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Reply {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

function send(options: { method?: string; path?: string; headers?: Record<string, string | string[]>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path ?? '/mcp', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('bodylessWebRequest', () => {
  it('carries method, URL and every header, without a body or a length for one', async () => {
    let seen: Request | undefined;
    onRequest = (req, res) => {
      req.resume();
      seen = bodylessWebRequest(req);
      res.end();
    };
    await send({
      path: '/mcp?x=1',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18', 'x-multi': ['a', 'b'] },
      body: '{"jsonrpc":"2.0"}',
    });
    assert.ok(seen);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, `http://127.0.0.1:${port}/mcp?x=1`);
    assert.equal(seen.headers.get('mcp-protocol-version'), '2025-06-18');
    assert.equal(seen.headers.get('content-type'), 'application/json');
    assert.equal(seen.headers.get('x-multi'), 'a, b');
    assert.equal(seen.headers.get('content-length'), null, 'the parsed body travels separately');
    assert.equal(seen.body, null);
  });

  it('throws a TypeError when the Host header cannot form a URL', async () => {
    let thrown: unknown;
    onRequest = (req, res) => {
      req.resume();
      try {
        bodylessWebRequest(req);
      } catch (error) {
        thrown = error;
      }
      res.end();
    };
    await send({ method: 'GET', headers: { host: 'bad host:99999' } });
    assert.ok(thrown instanceof TypeError);
  });
});

describe('writeWebResponse', () => {
  it('writes status, headers and the whole body with its length', async () => {
    onRequest = async (req, res) => {
      req.resume();
      await writeWebResponse(res, Response.json({ jsonrpc: '2.0', id: 1, result: { text: 'héllo' } }, { status: 200, headers: { 'x-extra': 'yes' } }));
    };
    const reply = await send({ body: '{}' });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['content-type'], 'application/json');
    assert.equal(reply.headers['x-extra'], 'yes');
    assert.equal(reply.headers['content-length'], String(Buffer.byteLength(reply.body)));
    assert.deepEqual(JSON.parse(reply.body), { jsonrpc: '2.0', id: 1, result: { text: 'héllo' } });
  });

  it('writes a response without a body (202 Accepted) as an empty one', async () => {
    onRequest = async (req, res) => {
      req.resume();
      await writeWebResponse(res, new Response(null, { status: 202 }));
    };
    const reply = await send({ body: '{}' });
    assert.equal(reply.status, 202);
    assert.equal(reply.body, '');
  });
});
