import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, runtime, tab, tool } from '../support/flows.js';
import { connect, JSON_HEADERS, rawRequest, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';
import { modernMeta } from '../support/served-endpoint.js';

/** A tool that mirrors its `region` argument in an Mcp-Param-Region header, and one declared wrongly. */
function headerFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    flowServer('fs', { runtime: 'rt', path: '/routed', wires: ['echo-region'] }),
    answer('echo-region', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'served in ' + msg.payload.arguments.region };\nreturn msg;`, 'fs'),
    tool('t-routed', {
      name: 'routed',
      endpoint: '/routed',
      input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] },
    }),
    // `number` is not a type a header may carry (2026-07-28, x-mcp-header): refused at deploy.
    tool('t-priced', {
      name: 'priced',
      endpoint: '/routed',
      input: { type: 'object', properties: { price: { type: 'number', 'x-mcp-header': 'Price' } } },
    }),
  ];
}

const MODERN_META = modernMeta({}, {}, 'raw');

describe(`Mcp-Param-* headers on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    ({ nodeRed, url } = await startServing(headerFlows, '/routed'));
  });
  after(() => nodeRed?.stop());

  it('refuses a tool with an invalid x-mcp-header declaration at deploy, saying which rule it breaks', async () => {
    await nodeRed.waitForOutput(/price: x-mcp-header is only permitted on string, integer or boolean properties, not number/);
    const client = await connect(url, 'modern');
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((listed) => listed.name), ['routed']);
    } finally {
      await client.close();
    }
  });

  for (const era of ['modern', 'legacy'] as Era[]) {
    it(`serves the official client's call, ${era} era${era === 'modern' ? ' (the client sends the header itself)' : ''}`, async () => {
      const client = await connect(url, era);
      try {
        await client.listTools();
        const result = await client.callTool({ name: 'routed', arguments: { region: 'eu-west' } });
        assert.deepEqual(result.content, [{ type: 'text', text: 'served in eu-west' }]);
      } finally {
        await client.close();
      }
    });
  }

  it('refuses a 2026-07-28 call whose header is missing or disagrees with 400 / -32020, as the SDK server does', async () => {
    const call = (headers: Record<string, string>) =>
      rawRequest(url, {
        headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'routed', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'routed', arguments: { region: 'eu-west' }, _meta: MODERN_META } }),
      });
    const missing = await call({});
    assert.equal(missing.status, 400);
    assert.equal(missing.json().id, 9);
    assert.equal(missing.json().error.code, -32020);
    assert.deepEqual(missing.json().error.data.mismatch, { header: 'Mcp-Param-Region', body: 'the body carries region="eu-west" but the Mcp-Param-Region header is absent' });
    const disagreeing = await call({ 'mcp-param-region': 'us-east' });
    assert.equal(disagreeing.status, 400);
    assert.equal(disagreeing.json().error.code, -32020);
    const matching = await call({ 'mcp-param-region': 'eu-west' });
    assert.equal(matching.status, 200);
    assert.deepEqual(matching.json().result.content, [{ type: 'text', text: 'served in eu-west' }]);
  });
});
