import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { CallFinished } from '../../lib/mcp/calls/call-types.js';
import { McpEndpoint } from '../../lib/mcp/endpoint/mcp-endpoint.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { localEndpoint, modernMeta, serveEndpoint, type ServedEndpoint } from '../support/served-endpoint.js';

// One McpEndpoint behind a real node:http server on loopback, with Local access. Its "flow" answers
// each call at once with what `answers` holds for the tool.

const answers: Record<string, unknown> = {};
const executed: string[] = [];
const finished: CallFinished[] = [];
let endpoint: McpEndpoint;
let served: ServedEndpoint;
let port: number;

before(async () => {
  endpoint = localEndpoint({
    serverName: 'protocol-test',
    maxInFlight: 8,
    onCallFinished: (event) => finished.push(event),
    execute: (request) => {
      executed.push(request.toolName);
      setImmediate(() => endpoint.settle(request.executionId, { result: answers[request.toolName] }));
    },
  });
  endpoint.setCatalog(
    new ToolCatalog([
      parseToolConfig({
        toolName: 'add',
        endpoint: '/mcp',
        inputSchema: '{"type":"object"}',
        outputSchema: '{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}',
      }),
      parseToolConfig({
        toolName: 'routed',
        endpoint: '/mcp',
        inputSchema: JSON.stringify({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } } }),
      }),
    ]),
  );
  answers['routed'] = 'routed';
  served = await serveEndpoint(endpoint);
  port = served.port;
});
after(() => served.close());

const MODERN_META = modernMeta();

function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** One tools/call in the 2025 era (header) or the 2026-07-28 era (envelope and standard headers). */
function callTool(era: 'legacy' | 'modern', name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  if (era === 'legacy') {
    return post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: args } }, { 'mcp-protocol-version': '2025-11-25', ...headers });
  }
  return post(
    { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_META } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name, ...headers },
  );
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

for (const era of ['legacy', 'modern'] as const) {
  describe(`McpEndpoint, ${era} era`, () => {
    it('answers an unknown tool with JSON-RPC -32602, not a tool result, and still counts the call', async () => {
      const before = finished.length;
      const response = await callTool(era, 'no_such_tool', {});
      assert.equal(response.status, 200);
      assert.equal(response.json.id, 5);
      assert.equal(response.json.result, undefined);
      assert.equal(response.json.error.code, -32602);
      assert.match(response.json.error.message, /Unknown tool "no_such_tool"/);
      assert.deepEqual(finished.slice(before).map((event) => [event.tool, event.outcome]), [['unknown', 'unknown_tool']]);
    });

    it('refuses a result whose number JSON would turn into null, instead of sending null', async () => {
      answers['add'] = { sum: Infinity };
      const response = await callTool(era, 'add', {});
      assert.equal(response.json.result.isError, true);
      assert.match(response.json.result.content[0].text, /"add" returned structured content that does not match its output schema: \/sum: must be number/);
      assert.equal(response.json.result.structuredContent, undefined);
    });
  });
}

describe('McpEndpoint, Mcp-Param-* headers (2026-07-28)', () => {
  it('serves a call whose header matches its argument', async () => {
    const response = await callTool('modern', 'routed', { region: 'eu' }, { 'mcp-param-region': 'eu' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json.result.content, [{ type: 'text', text: 'routed' }]);
  });

  it('refuses a missing or disagreeing header with 400 / -32020 before the flow sees the call', async () => {
    const calls = executed.length;
    const missing = await callTool('modern', 'routed', { region: 'eu' });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.id, 5);
    assert.equal(missing.json.error.code, -32020);
    assert.deepEqual(missing.json.error.data, {
      mismatch: { header: 'Mcp-Param-Region', body: 'the body carries region="eu" but the Mcp-Param-Region header is absent' },
    });
    const disagreeing = await callTool('modern', 'routed', { region: 'eu' }, { 'mcp-param-region': 'us' });
    assert.equal(disagreeing.status, 400);
    assert.equal(disagreeing.json.error.code, -32020);
    assert.match(disagreeing.json.error.message, /the Mcp-Param-Region header decodes to "us" but the body carries region="eu"/);
    assert.equal(executed.length, calls, 'no refused call reached the flow');
  });

  it('needs no header for an argument the call leaves out, nor in the 2025 era, which has no such headers', async () => {
    assert.equal((await callTool('modern', 'routed', { note: 'x' })).status, 200);
    const legacy = await callTool('legacy', 'routed', { region: 'eu' });
    assert.equal(legacy.status, 200);
    assert.deepEqual(legacy.json.result.content, [{ type: 'text', text: 'routed' }]);
  });
});

describe('McpEndpoint, batches and revisions of the 2025 era', () => {
  it('refuses a batch on 2025-06-18 and 2025-11-25, which take one message per POST', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const response = await post([ping(1), ping(2)], { 'mcp-protocol-version': version });
      assert.equal(response.status, 400, version);
      assert.equal(response.json.error.code, -32600, version);
      assert.match(response.json.error.message, new RegExp(`revision ${version} takes one JSON-RPC message per POST`));
    }
  });

  it('answers a batch on 2025-03-26, declared or assumed for a request without the header, as that revision allows', async () => {
    for (const headers of [{ 'mcp-protocol-version': '2025-03-26' }, {}] as Array<Record<string, string>>) {
      const response = await post([ping(1), ping(2)], headers);
      assert.equal(response.status, 200, JSON.stringify(headers));
      assert.deepEqual(response.json.map((answer: { id: number }) => answer.id).sort(), [1, 2]);
    }
  });

  it('names only the revisions it serves when a request declares another one', async () => {
    for (const version of ['2024-11-05', '1999-01-01']) {
      const response = await post(ping(1), { 'mcp-protocol-version': version });
      assert.equal(response.status, 400, version);
      assert.equal(response.json.error.message, `Bad Request: Unsupported protocol version: ${version} (supported versions: 2025-11-25, 2025-06-18, 2025-03-26)`);
    }
  });

  it('settles initialize on a revision it serves when the client asks for an older one', async () => {
    const response = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1.0.0' } },
    });
    assert.equal(response.json.result.protocolVersion, '2025-11-25');
  });

  it('refuses a deeply nested batch with 400 / -32600 instead of failing inside the SDK', async () => {
    const response = await post('['.repeat(5_000) + JSON.stringify(ping(1)) + ']'.repeat(5_000));
    assert.equal(response.status, 400);
    assert.equal(response.json.error.code, -32600);
  });
});
