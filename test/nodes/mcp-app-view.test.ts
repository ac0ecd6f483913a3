import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flowOf, helper, lastStatus, messagesOf, toolDef, usePalette } from './node-helper.js';

function viewDef(id: string, uri: string, extra: Record<string, unknown> = {}) {
  return { id, type: 'mcp-app-view', z: 'tab1', x: 400, y: 40, resourceName: id, uri, source: 'static', text: '<p>hi</p>', endpoint: '/mcp', timeout: '60', ...extra };
}

describe('mcp-app-view', () => {
  const nodes = usePalette(['mcp-runtime', 'mcp-flow-server', 'mcp-tool-registry', 'mcp-app-view']);

  it('shows a green status naming the view and its binding', async () => {
    await helper.load(nodes, flowOf(viewDef('v', 'ui://plant/chart', { connectDomains: 'https://api.example.com' })));
    assert.deepEqual(lastStatus(helper.getNode('v')), { fill: 'green', shape: 'dot', text: 'ui://plant/chart on /mcp' });
  });

  it('refuses a URI that is not ui://, an origin that is not one, and a tool naming a non-ui:// view, with a red ring and the log line', async () => {
    await helper.load(
      nodes,
      flowOf(
        viewDef('not-ui', 'plant://chart'),
        viewDef('bad-origin', 'ui://plant/a', { connectDomains: "https://ok.example.com 'unsafe-eval'" }),
        { ...toolDef('bad-tool', 'chart'), appView: 'https://example.com/view.html' },
      ),
    );
    const expected: Array<[string, string]> = [
      ['not-ui', 'URI plant://chart: must start with ui:// (for example ui://plant/chart)'],
      ['bad-origin', "connectDomains 'unsafe-eval': must be an origin such as https://api.example.com or https://*.example.com (no path, quotes or spaces)"],
      ['bad-tool', 'App view https://example.com/view.html: must start with ui:// (for example ui://plant/chart)'],
    ];
    for (const [id, text] of expected) {
      const node = helper.getNode(id);
      assert.deepEqual(lastStatus(node), { fill: 'red', shape: 'ring', text }, id);
      assert.deepEqual(messagesOf(node, 'error'), [text], id);
    }
  });
});
