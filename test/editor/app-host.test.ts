// A real MCP Apps host against a real Node-RED endpoint: the host side of the official
// @modelcontextprotocol/ext-apps package (AppBridge) and the official MCP client run in headless
// Chromium, load the shipped examples' views, render them in a sandboxed frame with the content
// security they declare, deliver the tool's input and result, and the view's own buttons call
// app-only tools through the bridge, the endpoint and the flow.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, type EditorBrowser } from '../support/browser.js';
import { repoRoot, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const WAIT = { timeout: 30_000 };
const skip = chromiumMissing();

/** Where the browser finds each module: the packages as npm installed them, served from node_modules. */
const IMPORTS: Record<string, string> = {
  '@modelcontextprotocol/client': '@modelcontextprotocol/client/dist/index.mjs',
  '@modelcontextprotocol/client/_shims': '@modelcontextprotocol/client/dist/shimsBrowser.mjs',
  '@modelcontextprotocol/core': '@modelcontextprotocol/core/dist/index.mjs',
  '@modelcontextprotocol/core/internal': '@modelcontextprotocol/core/dist/internal.mjs',
  '@modelcontextprotocol/ext-apps/app-bridge': '@modelcontextprotocol/ext-apps/dist/src/app-bridge.js',
  eventsource: 'eventsource/dist/index.js',
  'eventsource-parser': 'eventsource-parser/dist/index.js',
  'eventsource-parser/stream': 'eventsource-parser/dist/stream.js',
  'pkce-challenge': 'pkce-challenge/dist/index.browser.js',
  'zod/v4': 'zod/v4/index.js',
};
const MODULE_ROOTS = ['@modelcontextprotocol/', 'eventsource/', 'eventsource-parser/', 'pkce-challenge/', 'zod/'];

// The host page: what a web host does with a tool that names a view (SEP-1865, "Host Behavior").
const HOST_SCRIPT = `
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const params = new URLSearchParams(location.search);
const UI = 'io.modelcontextprotocol/ui';

// The spec's construction from _meta.ui.csp; with nothing declared, nothing may be reached.
function contentSecurity(csp) {
  const list = (origins, none) => (origins && origins.length ? origins.join(' ') : none);
  const resources = csp && csp.resourceDomains && csp.resourceDomains.length ? ' ' + csp.resourceDomains.join(' ') : '';
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'" + resources,
    "style-src 'unsafe-inline'" + resources,
    'img-src data:' + resources,
    'font-src' + (resources || " 'none'"),
    'media-src data:' + resources,
    'connect-src ' + list(csp && csp.connectDomains, "'none'"),
    'frame-src ' + list(csp && csp.frameDomains, "'none'"),
    "object-src 'none'",
    'base-uri ' + list(csp && csp.baseUriDomains, "'none'"),
  ].join('; ');
}

try {
  const client = new Client({ name: 'chromium-host', version: '1.0.0' }, {
    capabilities: { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } },
    versionNegotiation: { mode: params.get('era') === 'legacy' ? 'legacy' : 'auto' },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(params.get('endpoint'), location.href)));
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === params.get('tool'));
  const uri = getToolUiResourceUri(tool);
  const read = await client.readResource({ uri });
  const view = read.contents[0];
  const csp = contentSecurity(view._meta && view._meta.ui && view._meta.ui.csp);
  const meta = '<meta http-equiv="Content-Security-Policy" content="' + csp + '">';
  const html = view.text.replace(/<head[^>]*>/i, (head) => head + meta);

  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'width: 600px; height: 400px; border: 1px solid #ccc';
  document.body.appendChild(frame);

  const bridge = new AppBridge(client, { name: 'chromium-host', version: '1.0.0' }, { serverTools: {}, serverResources: {} });
  const args = JSON.parse(params.get('args') || '{}');
  window.viewCalls = [];
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(await client.callTool({ name: tool.name, arguments: args }));
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  // A host refuses a view's call of a tool whose visibility lacks "app" (SEP-1865, Visibility).
  bridge.oncalltool = async (call) => {
    const called = tools.find((t) => t.name === call.name);
    const visibility = (called && called._meta && called._meta.ui && called._meta.ui.visibility) || ['model', 'app'];
    window.viewCalls.push(call.name);
    if (!visibility.includes('app')) throw new Error('Tool ' + call.name + ' is not callable from a view');
    return client.callTool(call);
  };
  frame.srcdoc = html;
  window.hostReady = {
    extension: client.getServerCapabilities().extensions?.[UI] ?? null,
    tools: tools.map((t) => ({ name: t.name, ui: t._meta && t._meta.ui })),
    uri,
    mimeType: view.mimeType,
    csp,
  };
} catch (error) {
  window.hostError = String((error && error.stack) || error);
}
`;

function hostPage(): string {
  const imports = Object.fromEntries(Object.entries(IMPORTS).map(([name, file]) => [name, `/node_modules/${file}`]));
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>MCP Apps test host</title>
<script type="importmap">${JSON.stringify({ imports })}</script></head>
<body><script type="module">${HOST_SCRIPT}</script></body></html>`;
}

/**
 * The host's own server: its page, the modules, and its backend's way to the MCP server. Like a web
 * host's backend it calls the endpoint server to server (the endpoint answers no cross-origin browser
 * requests), passing the MCP exchange through unchanged.
 */
function startHost(port: number, endpointPorts: Readonly<Record<string, number>>): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/host.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage());
      return;
    }
    if (url.pathname.startsWith('/node_modules/')) {
      const file = normalize(decodeURIComponent(url.pathname.slice('/node_modules/'.length)));
      if (!MODULE_ROOTS.some((root) => file.startsWith(root)) || file.includes('..')) {
        res.writeHead(404).end();
        return;
      }
      try {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(join(repoRoot, 'node_modules', file)));
      } catch {
        res.writeHead(404).end();
      }
      return;
    }
    const endpointPort = endpointPorts[url.pathname.split('/')[2] ?? ''];
    if (url.pathname.startsWith('/mcp/') && endpointPort !== undefined) {
      const headers = { ...req.headers };
      for (const name of ['host', 'origin', 'referer', 'connection']) delete headers[name];
      const upstream = request({ host: '127.0.0.1', port: endpointPort, method: req.method, path: url.pathname.slice('/mcp'.length) + url.search, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** A shipped example with its runtime moved to a port of this run. */
function example(file: string, port: number): FlowNode[] {
  const flow = JSON.parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')) as FlowNode[];
  return flow.map((node) => (node.type === 'mcp-runtime' ? { ...node, port: String(port) } : node));
}

describe('MCP Apps in a real host (AppBridge of @modelcontextprotocol/ext-apps, headless Chromium)', () => {
  let nodeRed: NodeRedProcess | undefined;
  let host: Server | undefined;
  let session: EditorBrowser | undefined;
  let hostUrl = '';
  let endpointPort = 0;

  before(async () => {
    if (skip) return;
    const chartPort = await freePort();
    const formPort = await freePort();
    nodeRed = await startNodeRed([...example('app-live-chart.json', chartPort), ...example('app-confirm-form.json', formPort)]);
    endpointPort = chartPort;
    const hostPort = await freePort();
    host = await startHost(hostPort, { apps: chartPort, setpoint: formPort });
    hostUrl = `http://127.0.0.1:${hostPort}/host.html`;
    session = await launchEditorBrowser();
  });

  after(async () => {
    await session?.close();
    await new Promise((resolve) => (host ? host.close(resolve) : resolve(undefined)));
    await nodeRed?.stop();
  });

  async function openHost(query: Record<string, string>): Promise<Record<string, any>> {
    const page = session!.page;
    await page.goto(`${hostUrl}?${new URLSearchParams(query)}`);
    await page.waitForFunction(() => (window as any).hostReady || (window as any).hostError, undefined, WAIT);
    const error = await page.evaluate(() => (window as any).hostError);
    assert.equal(error, undefined, error);
    return page.evaluate(() => (window as any).hostReady);
  }

  for (const era of ['modern', 'legacy']) {
    it(`shows the live chart, and its Refresh button calls the app-only tool through the bridge (${era} era)`, { skip }, async () => {
      const ready = await openHost({ endpoint: '/mcp/apps', tool: 'show_line_chart', era });
      assert.deepEqual(ready.extension, {});
      assert.equal(ready.uri, 'ui://plant/line-chart');
      assert.equal(ready.mimeType, 'text/html;profile=mcp-app');
      assert.deepEqual(ready.tools.find((t: { name: string }) => t.name === 'refresh_line_chart').ui, { resourceUri: 'ui://plant/line-chart', visibility: ['app'] });
      assert.match(ready.csp, /connect-src 'none'/);

      const view = session!.page.frameLocator('#view');
      // The tool's result reached the view: it drew the readings and shows the text.
      await view.locator('#status').filter({ hasText: /^Line 1 temperature: (\d+ readings, last [\d.]+ °C|no readings yet)/ }).waitFor(WAIT);
      await view.locator('#refresh').click();
      await view.locator('#status').filter({ hasText: /^Refreshed at \d\d:\d\d:\d\d: \d+ readings, last [\d.]+ °C$/ }).waitFor(WAIT);
      assert.notEqual(await view.locator('#line').getAttribute('points'), '');
      assert.deepEqual(await session!.page.evaluate(() => (window as any).viewCalls), ['refresh_line_chart']);
    });
  }

  it('enforces the content security the view declares: nothing undeclared can be fetched', { skip }, async () => {
    await openHost({ endpoint: '/mcp/apps', tool: 'show_line_chart', era: 'modern' });
    const view = session!.page.frameLocator('#view');
    await view.locator('#status').filter({ hasText: /^Line 1 temperature/ }).waitFor(WAIT);
    const frame = session!.page.frames().find((f) => f !== session!.page.mainFrame())!;
    const violation = await frame.evaluate(async (url: string) => {
      const seen = new Promise<string>((resolve) => document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective), { once: true }));
      await fetch(url).catch(() => undefined);
      return seen;
    }, `http://127.0.0.1:${endpointPort}/apps`);
    assert.equal(violation, 'connect-src');
  });

  // Each era changes its own line, so what one confirmed is not the other's starting point.
  for (const [era, line] of [['modern', 'line-2'], ['legacy', 'line-3']] as const) {
    it(`shows the confirmation form with the proposal, and Confirm applies it through the app-only tool (${era} era)`, { skip }, async () => {
      await openHost({ endpoint: '/mcp/setpoint', tool: 'propose_setpoint', era, args: JSON.stringify({ line, value: 55 }) });
      const view = session!.page.frameLocator('#view');
      await view.locator('#question').filter({ hasText: `Set ${line} to 55 °C (now 40 °C)?` }).waitFor(WAIT);
      await view.locator('#confirm').click();
      await view.locator('#answer').filter({ hasText: `Set ${line} to 55 °C (was 40 °C).` }).waitFor(WAIT);
      assert.deepEqual(await session!.page.evaluate(() => (window as any).viewCalls), ['apply_setpoint']);
      // The flow kept it: the next proposal starts from the confirmed value.
      await openHost({ endpoint: '/mcp/setpoint', tool: 'propose_setpoint', era, args: JSON.stringify({ line, value: 60 }) });
      await session!.page.frameLocator('#view').locator('#question').filter({ hasText: `Set ${line} to 60 °C (now 55 °C)?` }).waitFor(WAIT);
    });
  }
});
