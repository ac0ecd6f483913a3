import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flowOf, flowServerDef, freePort, helper, helperDef, lastStatus, messagesOf, rpc, runtimeDef, toolDef, usePalette, waitForStatus } from './node-helper.js';

function resourceDef(id: string, uri: string, extra: Record<string, unknown> = {}) {
  return { id, type: 'mcp-resource', z: 'tab1', x: 400, y: 40, resourceName: id, uri, mimeType: 'text/plain', source: 'static', text: 'hello', endpoint: '/mcp', timeout: '60', ...extra };
}

function promptDef(id: string, promptName: string, extra: Record<string, unknown> = {}) {
  return { id, type: 'mcp-prompt', z: 'tab1', x: 400, y: 80, promptName, arguments: [], source: 'template', messages: [{ role: 'user', text: 'hi' }], endpoint: '/mcp', timeout: '60', ...extra };
}

describe('mcp-resource and mcp-prompt', () => {
  const nodes = usePalette(['mcp-runtime', 'mcp-flow-server', 'mcp-tool-registry', 'mcp-resource', 'mcp-prompt']);

  it('show a green status naming the URI or prompt and the binding', async () => {
    await helper.load(nodes, flowOf(resourceDef('r', 'plant://a'), promptDef('p', 'report', { endpoint: '*' })));
    assert.deepEqual(lastStatus(helper.getNode('r')), { fill: 'green', shape: 'dot', text: 'plant://a on /mcp' });
    assert.deepEqual(lastStatus(helper.getNode('p')), { fill: 'green', shape: 'dot', text: 'report on all endpoints' });
  });

  it('refuse an invalid template, MIME type or duplicate argument with a red ring and the same error in the log', async () => {
    await helper.load(
      nodes,
      flowOf(
        resourceDef('bad-template', 'sensors://{line'),
        resourceDef('bad-mime', 'plant://b', { mimeType: 'plain' }),
        promptDef('bad-args', 'twice', { arguments: [{ name: 'a' }, { name: 'a' }] }),
      ),
    );
    const expected: Array<[string, string]> = [
      ['bad-template', 'URI sensors://{line: has a "{" without its "}"'],
      ['bad-mime', 'MIME type plain is not of the form type/subtype'],
      ['bad-args', 'Argument a is declared twice'],
    ];
    for (const [id, text] of expected) {
      const node = helper.getNode(id);
      assert.deepEqual(lastStatus(node), { fill: 'red', shape: 'ring', text }, id);
      assert.deepEqual(messagesOf(node, 'error'), [text], id);
    }
  });

  it('the endpoint counts tools, resources and prompts in its status and serves them', async () => {
    const port = await freePort();
    await helper.load(
      nodes,
      flowOf(
        runtimeDef('rt', port),
        flowServerDef('srv', 'rt', [['out']]),
        helperDef('out'),
        toolDef('t', 'echo'),
        resourceDef('r1', 'plant://a'),
        resourceDef('r2', 'plant://{line}/x'),
        promptDef('p', 'report'),
      ),
    );
    const server = helper.getNode('srv');
    await waitForStatus(server, 'green');
    assert.equal(lastStatus(server)?.text, `1 tool, 2 resources, 1 prompt on http://127.0.0.1:${port}/mcp`);
    const read = await rpc(port, 'resources/read', { uri: 'plant://a' });
    assert.deepEqual(read.body.result.contents, [{ uri: 'plant://a', mimeType: 'text/plain', text: 'hello' }]);
  });
});
