import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { answer, appView, flowServer, runtime, tab, tool } from '../support/flows.js';
import { connect, waitForEndpoint, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const UI = 'io.modelcontextprotocol/ui';
const VIEW_TYPE = 'text/html;profile=mcp-app';
const CHART_HTML = '<!DOCTYPE html><html><body><p id="out">chart</p></body></html>';

// Tools answer with a text for hosts without views and the data a view draws, plus what msg.mcp.ui
// said; the flow-answered view tries to widen its own content security, and one view answers the
// wrong type.
const ROUTER = `
const p = msg.payload;
if (msg.topic === 'mcp-tool-execute') {
  const ui = msg.mcp.ui === undefined ? 'unsaid' : msg.mcp.ui;
  return { topic: 'mcp-tool-response', payload: { executionId: p.executionId, result: {
    content: [{ type: 'text', text: 'Line ' + (p.arguments.line || 'all') + ': 3, 5, 8' }],
    structuredContent: { values: [3, 5, 8], ui, tool: p.toolName } } } };
}
if (msg.topic === 'mcp-resource-read' && p.uri === 'ui://plant/live') {
  return { topic: 'mcp-resource-response', payload: { executionId: p.executionId, contents: {
    text: '<!DOCTYPE html><p>live</p>', _meta: { ui: { csp: { connectDomains: ['https://evil.example.com'] } } } } } };
}
if (msg.topic === 'mcp-resource-read' && p.uri === 'ui://plant/huge') {
  return { topic: 'mcp-resource-response', payload: { executionId: p.executionId, contents: '<p>' + 'x'.repeat(1100000) + '</p>' } };
}
if (msg.topic === 'mcp-resource-read') {
  return { topic: 'mcp-resource-response', payload: { executionId: p.executionId, contents: { text: '<p>x</p>', mimeType: 'text/html' } } };
}
return null;`;

function appFlows(port: number): FlowNode[] {
  const lineSchema = { type: 'object', properties: { line: { type: 'string' } }, required: ['line'] };
  return [
    tab(),
    runtime('rt', port),
    flowServer('fs-apps', { runtime: 'rt', path: '/apps', wires: ['router'] }),
    answer('router', ROUTER, 'fs-apps'),
    appView('v-chart', { uri: 'ui://plant/chart', source: 'static', text: CHART_HTML, connectDomains: 'https://api.example.com', prefersBorder: 'true' }),
    appView('v-live', { uri: 'ui://plant/live', source: 'flow' }),
    appView('v-wrong', { uri: 'ui://plant/wrong', source: 'flow' }),
    appView('v-huge', { uri: 'ui://plant/huge', source: 'flow' }),
    { ...tool('t-show', { name: 'show_chart', endpoint: '/apps' }), appView: 'ui://plant/chart' },
    // A tool that may run as a task takes the SDK's path rather than the direct one: both must tell the flow.
    { ...tool('t-show-sdk', { name: 'show_chart_sdk', endpoint: '/apps', taskSupport: 'optional' }), appView: 'ui://plant/chart', visibility: 'model' },
    { ...tool('t-refresh', { name: 'refresh_chart', endpoint: '/apps', input: lineSchema }), appView: 'ui://plant/chart', visibility: 'app' },
    flowServer('fs-plain', { runtime: 'rt', path: '/plain' }),
    tool('t-plain', { name: 'plain_tool', endpoint: '/plain' }),
  ];
}

/** The official client declaring the extension, as a host that shows views does. */
async function connectHost(url: string, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'apps-host-test', version: '1.0.0' },
    { capabilities: { extensions: { [UI]: { mimeTypes: [VIEW_TYPE] } } }, versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe(`MCP Apps views and tools on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let apps: string;
  let plain: string;

  before(async () => {
    const port = await freePort();
    nodeRed = await startNodeRed(appFlows(port));
    apps = `http://127.0.0.1:${port}/apps`;
    plain = `http://127.0.0.1:${port}/plain`;
    await Promise.all([waitForEndpoint(apps), waitForEndpoint(plain)]);
  });
  after(() => nodeRed?.stop());

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`with the official MCP client, ${era} era`, () => {
      it('declares the extension only on the endpoint with views', async () => {
        const host = await connectHost(apps, era);
        const other = await connectHost(plain, era);
        try {
          assert.deepEqual(host.getServerCapabilities()?.extensions?.[UI], {}, JSON.stringify(host.getServerCapabilities()));
          assert.equal(other.getServerCapabilities()?.extensions?.[UI], undefined);
        } finally {
          await Promise.all([host.close(), other.close()]);
        }
      });

      it('lists the view a tool shows and who may call it', async () => {
        const host = await connectHost(apps, era);
        try {
          const { tools } = await host.listTools();
          const byName = new Map(tools.map((t) => [t.name, t]));
          // Next to the endpoint's own `_meta` (its securitySchemes).
          const ui = (name: string) => {
            const meta = byName.get(name)?._meta ?? {};
            return { ui: meta['ui'], legacy: meta['ui/resourceUri'] };
          };
          assert.deepEqual(ui('show_chart'), { ui: { resourceUri: 'ui://plant/chart' }, legacy: 'ui://plant/chart' });
          assert.deepEqual(ui('refresh_chart'), { ui: { resourceUri: 'ui://plant/chart', visibility: ['app'] }, legacy: 'ui://plant/chart' });
          assert.deepEqual((byName.get('show_chart_sdk')?._meta as { ui: unknown }).ui, { resourceUri: 'ui://plant/chart', visibility: ['model'] });
        } finally {
          await host.close();
        }
      });

      it("lists and reads the views as text/html;profile=mcp-app with the node's _meta.ui", async () => {
        const host = await connectHost(apps, era);
        try {
          const { resources } = await host.listResources();
          const chart = resources.find((r) => r.uri === 'ui://plant/chart');
          assert.equal(chart?.mimeType, VIEW_TYPE);
          const ui = { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true };
          assert.deepEqual(chart?._meta, { ui });
          const read = await host.readResource({ uri: 'ui://plant/chart' });
          assert.deepEqual(read.contents, [{ uri: 'ui://plant/chart', mimeType: VIEW_TYPE, text: CHART_HTML, _meta: { ui } }]);
          // The flow's answer tried to allow another origin: what the node declares (nothing) goes out.
          const live = await host.readResource({ uri: 'ui://plant/live' });
          assert.deepEqual(live.contents, [{ uri: 'ui://plant/live', mimeType: VIEW_TYPE, text: '<!DOCTYPE html><p>live</p>', _meta: { ui: {} } }]);
          await assert.rejects(host.readResource({ uri: 'ui://plant/wrong' }), (error: Error) => {
            assert.match(error.message, /text\/html;profile=mcp-app, not text\/html/);
            return true;
          });
          await assert.rejects(host.readResource({ uri: 'ui://plant/huge' }), (error: Error) => {
            assert.match(error.message, /over the 1048576-byte limit/);
            return true;
          });
        } finally {
          await host.close();
        }
      });

      it('tells the flow whether the client shows views, on the direct and the SDK path', async () => {
        const host = await connectHost(apps, era);
        const textOnly = await connect(apps, era);
        try {
          for (const name of ['show_chart', 'show_chart_sdk']) {
            const shown = await host.callTool({ name, arguments: {} });
            const notShown = await textOnly.callTool({ name, arguments: {} });
            // Only 2026-07-28 requests say what the client declared; a 2025-era call does not.
            assert.equal((shown.structuredContent as { ui: unknown }).ui, era === 'modern' ? true : 'unsaid', name);
            assert.equal((notShown.structuredContent as { ui: unknown }).ui, era === 'modern' ? false : 'unsaid', name);
            assert.deepEqual(notShown.content, [{ type: 'text', text: 'Line all: 3, 5, 8' }]);
          }
        } finally {
          await Promise.all([host.close(), textOnly.close()]);
        }
      });

      it('runs an app-only tool as any call: its arguments are checked before the flow sees them', async () => {
        const host = await connectHost(apps, era);
        try {
          const done = await host.callTool({ name: 'refresh_chart', arguments: { line: '2' } });
          assert.deepEqual(done.content, [{ type: 'text', text: 'Line 2: 3, 5, 8' }]);
          assert.equal((done.structuredContent as { tool: string }).tool, 'refresh_chart');
          const refused = await host.callTool({ name: 'refresh_chart', arguments: {} });
          assert.equal(refused.isError, true);
          assert.match(JSON.stringify(refused.content), /line/);
        } finally {
          await host.close();
        }
      });
    });
  }
});
