import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, runtime, tab, tool } from '../support/flows.js';
import { connect, JSON_HEADERS, rawRequest, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

describe(`the prebuilt tools/list answer on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    const port = await freePort();
    // 600 tools: the first page (500) is prebuilt, the second comes through the SDK.
    const tools = Array.from({ length: 600 }, (_, index) => tool(`t${index}`, { name: `tool_${String(index).padStart(3, '0')}`, endpoint: '/list', taskSupport: index % 2 ? 'optional' : 'never' }));
    nodeRed = await startNodeRed([tab(), runtime('rt', port), flowServer('fs', { runtime: 'rt', path: '/list', wires: ['a'] }), answer('a', 'return null;', 'fs'), ...tools]);
    url = `http://127.0.0.1:${port}/list`;
    await waitForEndpoint(url);
  });
  after(() => nodeRed?.stop());

  const list = (headers: Record<string, string>, params?: object) =>
    rawRequest(url, { headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 'same', method: 'tools/list', ...(params ? { params } : {}) }) });

  it('is byte for byte what the SDK answers for the same list', async () => {
    const prebuilt = await list({ 'mcp-protocol-version': '2025-11-25' });
    // Without the revision header (2025-03-26 by the spec) the request goes through the SDK.
    const throughSdk = await list({});
    assert.equal(prebuilt.status, 200);
    assert.equal(prebuilt.headers['content-type'], 'application/json');
    assert.equal(prebuilt.body, throughSdk.body);
    assert.equal(prebuilt.json().result.tools.length, 500);
  });

  it('still pages, and the official client walks both pages in each era', async () => {
    const first = (await list({ 'mcp-protocol-version': '2025-11-25' })).json().result;
    const second = (await list({ 'mcp-protocol-version': '2025-11-25' }, { cursor: first.nextCursor })).json().result;
    assert.equal(second.tools.length, 100);
    assert.equal(second.nextCursor, undefined);
    for (const era of ['legacy', 'modern'] as const) {
      const client = await connect(url, era);
      try {
        // The official client follows nextCursor itself.
        assert.equal((await client.listTools()).tools.length, 600, era);
      } finally {
        await client.close();
      }
    }
  });

  it('answers a malformed list request as before: the SDK refuses it', async () => {
    const refused = await list({ 'mcp-protocol-version': '2025-11-25', accept: 'application/json' });
    assert.equal(refused.status, 406);
  });
});
