import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, runtime, storage, tab, tool } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

describe('edge smoke', () => {
  let nodeRed: NodeRedProcess;
  let port: number;
  before(async () => {
    port = await freePort();
    nodeRed = await startNodeRed([
      tab(),
      runtime('rt', port),
      storage('st', 'memory'),
      { ...flowServer('edge', { runtime: 'rt', path: '/edge', wires: ['ans'] }), storage: 'st', edgeSite: 'plant-a' },
      { ...flowServer('hub', { runtime: 'rt', path: '/hub', wires: [] }), storage: 'st', hubSites: 'plant-a' },
      tool('t1', { name: 'open_valve', endpoint: '/edge', input: { type: 'object', properties: { valve: { type: 'string' } }, required: ['valve'] } }),
      answer('ans', `return { topic: 'mcp-tool-response', payload: { executionId: msg.payload.executionId, result: 'opened ' + msg.payload.arguments.valve + ' for ' + (msg.mcp.relayedFrom || '?') } };`, 'edge'),
    ]);
    await waitForEndpoint(`http://127.0.0.1:${port}/hub`);
  });
  after(async () => nodeRed?.stop());

  it('lists and calls an edge tool through the hub', async () => {
    const client = await connect(`http://127.0.0.1:${port}/hub`, 'modern');
    let names: string[] = [];
    for (let i = 0; i < 50 && !names.includes('plant-a.open_valve'); i++) {
      names = (await client.listTools()).tools.map((t) => t.name);
      if (!names.includes('plant-a.open_valve')) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(names.includes('plant-a.open_valve'), names.join(','));
    const result = await client.callTool({ name: 'plant-a.open_valve', arguments: { valve: 'v1' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'opened v1 for /hub' }]);
    const bad = await client.callTool({ name: 'plant-a.open_valve', arguments: {} });
    assert.equal(bad.isError, true);
    await client.close();
  });
});
