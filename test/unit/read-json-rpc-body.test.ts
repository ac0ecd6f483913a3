import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nestingExceeds, readJsonRpcBody } from '../../lib/http/read-json-rpc-body.js';

// A real node:http server on loopback that reads each body the way an MCP endpoint does and
// answers with what it parsed, or with the refusal readJsonRpcBody chose.

const MAX_BYTES = 256 * 1024;
let server: Server;
let port: number;

before(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    const read = await readJsonRpcBody(req, MAX_BYTES);
    if ('reject' in read) return read.reject(res);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ parsed: read.body }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function post(body: string, contentType = 'application/json'): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { 'content-type': contentType } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const nested = (levels: number, inner: string) => '['.repeat(levels) + inner + ']'.repeat(levels);
const deepArguments = (levels: number) =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":${nested(levels, '1')}}}}`;

describe('readJsonRpcBody', () => {
  it('refuses a batch nested 5,000 levels deep with 400 / -32600, naming the limit', async () => {
    const response = await post(nested(5_000, JSON.stringify(ping(1))));
    assert.equal(response.status, 400);
    assert.equal(response.json.error.code, -32600);
    assert.match(response.json.error.message, /nested deeper than 128 levels/);
    assert.equal(response.json.id, null);
  });

  it('refuses arguments nested past the limit, and accepts them at the limit', async () => {
    // The message, params and arguments objects take three levels, the "a" array chain the rest.
    const refused = await post(deepArguments(126));
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.code, -32600);
    const accepted = await post(deepArguments(125));
    assert.equal(accepted.status, 200);
    assert.equal(accepted.json.parsed.params.name, 't');
  });

  it('refuses what is neither a JSON-RPC message object nor a flat batch of them', async () => {
    const bodies = ['42', '"ping"', 'null', 'true', '[]', '[1, 2]', JSON.stringify([[ping(1)]]), JSON.stringify([ping(1), [ping(2)]]), '{"id":1,"method":"ping"}', '{"jsonrpc":"1.0","id":1,"method":"ping"}'];
    for (const body of bodies) {
      const response = await post(body);
      assert.equal(response.status, 400, body);
      assert.equal(response.json.error.code, -32600, body);
      assert.match(response.json.error.message, /JSON-RPC message object or a non-empty array of them/, body);
    }
  });

  it('passes a message and a flat batch through parsed', async () => {
    assert.deepEqual((await post(JSON.stringify(ping(1)))).json.parsed, ping(1));
    assert.deepEqual((await post(JSON.stringify([ping(1), ping(2)]))).json.parsed, [ping(1), ping(2)]);
  });

  it('does not count brackets inside strings, escaped quotes included', async () => {
    const text = `\\" ${'[{'.repeat(400)}`;
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { text } } };
    const response = await post(JSON.stringify(message));
    assert.equal(response.status, 200);
    assert.equal(response.json.parsed.params.arguments.text, text);
  });

  it('keeps its answers for malformed JSON (-32700), a foreign content type (415) and a large body (413)', async () => {
    const malformed = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.deepEqual([malformed.status, malformed.json.error.code], [400, -32700]);
    const foreign = await post('{}', 'text/plain');
    assert.equal(foreign.status, 415);
    const large = await post(JSON.stringify({ ...ping(1), params: { pad: 'x'.repeat(MAX_BYTES) } }));
    assert.equal(large.status, 413);
  });
});

describe('nestingExceeds', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('counts arrays and objects alike, and stops at the first level too deep', () => {
    const text = `${'{"a":['.repeat(40)}1${']}'.repeat(40)}`;
    assert.equal(nestingExceeds(bytes(text), 80), false);
    assert.equal(nestingExceeds(bytes(text), 79), true);
  });

  it('ignores brackets in strings and multi-byte characters next to them', () => {
    assert.equal(nestingExceeds(bytes(`["${'[[[ü€'.repeat(50)}\\\\", ["x"]]`), 2), false);
    assert.equal(nestingExceeds(bytes(`["\\"", [["x"]]]`), 2), true);
  });
});
