import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exampleFlow } from '../support/flows.js';
import { connect, JSON_HEADERS, postJsonRpc, rawRequest, withClient, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';

describe(`the example flow on ${nodeRedPackage} (packed tarball installed into a user dir)`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    ({ nodeRed, url } = await startServing(exampleFlow, '/mcp'));
  });
  after(() => nodeRed?.stop());

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`with the official MCP client, ${era} protocol era`, () => {
      it('negotiates the expected revision and lists both tools with their schemas', async () => {
        await withClient(connect(url, era), async (client) => {
          assert.equal(client.getNegotiatedProtocolVersion(), era === 'modern' ? '2026-07-28' : '2025-11-25');
          const { tools } = await client.listTools();
          assert.deepEqual(tools.map((tool) => tool.name), ['add_numbers', 'greet']);
          const add = tools.find((tool) => tool.name === 'add_numbers')!;
          assert.deepEqual(add.inputSchema.required, ['a', 'b']);
          assert.equal(add.outputSchema?.type, 'object');
          assert.equal(add.annotations?.readOnlyHint, true);
          assert.equal(add.title, 'Add two numbers');
        });
      });

      it('answers a structured tool through the flow', async () => {
        await withClient(connect(url, era), async (client) => {
          const result = await client.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3.5 } });
          assert.equal(result.isError ?? false, false);
          assert.deepEqual(result.structuredContent, { sum: 5.5 });
          assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text), { sum: 5.5 });
        });
      });

      it('answers a text tool through the flow', async () => {
        await withClient(connect(url, era), async (client) => {
          const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
          assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
        });
      });

      it('rejects invalid arguments in one isError result naming each argument', async () => {
        await withClient(connect(url, era), async (client) => {
          const result = await client.callTool({ name: 'add_numbers', arguments: { a: 'two', c: 1 } });
          assert.equal(result.isError, true);
          const text = (result.content as Array<{ text: string }>)[0]!.text;
          assert.match(text, /add_numbers/);
          assert.match(text, /- a: must be number/);
          assert.match(text, /- b: is required/);
          assert.match(text, /- c: is not allowed/);
        });
      });

      it('reports an unknown tool as JSON-RPC error -32602, as the spec and the SDK do', async () => {
        await withClient(connect(url, era), async (client) => {
          await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: { code?: unknown; message?: unknown }) => {
            assert.equal(error.code, -32602);
            assert.match(String(error.message), /Unknown tool "no_such_tool"/);
            return true;
          });
        });
      });

      it('refuses a sum JSON cannot carry (Infinity) instead of sending it as null', async () => {
        await withClient(connect(url, era), async (client) => {
          const result = await client.callTool({ name: 'add_numbers', arguments: { a: 1e308, b: 1e308 } });
          assert.equal(result.isError, true);
          assert.equal(result.structuredContent, undefined);
          assert.match((result.content as Array<{ text: string }>)[0]!.text, /does not match its output schema: \/sum: must be number/);
        });
      });
    });
  }

  describe('Streamable HTTP edges', () => {
    it('answers ping and acknowledges notifications with 202', async () => {
      const ping = await postJsonRpc(url, { jsonrpc: '2.0', id: 7, method: 'ping' });
      assert.equal(ping.status, 200);
      assert.deepEqual(ping.json(), { jsonrpc: '2.0', id: 7, result: {} });
      const note = await postJsonRpc(url, { jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal(note.status, 202);
    });

    it('answers GET and DELETE with 405', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await rawRequest(url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } });
        assert.equal(response.status, 405, method);
      }
    });

    it('refuses a non-JSON content type with 415', async () => {
      const response = await rawRequest(url, { headers: { 'content-type': 'text/plain', accept: JSON_HEADERS.accept }, body: 'ping' });
      assert.equal(response.status, 415);
    });

    it('refuses a body over 256 KiB with 413 before parsing it', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(256 * 1024) } });
      const response = await rawRequest(url, { headers: JSON_HEADERS, body });
      assert.equal(response.status, 413);
    });

    it('answers malformed JSON with a JSON-RPC parse error', async () => {
      const response = await rawRequest(url, { headers: JSON_HEADERS, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
      assert.equal(response.status, 400);
      assert.equal(response.json().error.code, -32700);
    });

    it('refuses a batch nested 5,000 levels deep, and bodies that are no JSON-RPC message, with 400 / -32600', async () => {
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      for (const body of ['['.repeat(5_000) + ping + ']'.repeat(5_000), `[[${ping}]]`, '42', '[]']) {
        const response = await rawRequest(url, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-03-26' }, body });
        assert.equal(response.status, 400, body.slice(0, 20));
        assert.equal(response.json().error.code, -32600, body.slice(0, 20));
      }
    });

    it('takes one message per POST on 2025-06-18 and later, and batches on 2025-03-26', async () => {
      const batch = [1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' }));
      for (const version of ['2025-06-18', '2025-11-25']) {
        const refused = await postJsonRpc(url, batch, { 'mcp-protocol-version': version });
        assert.equal(refused.status, 400, version);
        assert.equal(refused.json().error.code, -32600, version);
      }
      const served = await postJsonRpc(url, batch, { 'mcp-protocol-version': '2025-03-26' });
      assert.equal(served.status, 200);
      assert.deepEqual(served.json().map((reply: { id: number }) => reply.id).sort(), [1, 2]);
    });

    it('names only the revisions it serves when a request declares another', async () => {
      const response = await postJsonRpc(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '2024-11-05' });
      assert.equal(response.status, 400);
      assert.match(response.json().error.message, /\(supported versions: 2025-11-25, 2025-06-18, 2025-03-26\)$/);
    });

    it('answers an unknown method with -32601', async () => {
      const response = await postJsonRpc(url, { jsonrpc: '2.0', id: 3, method: 'tools/frobnicate' });
      assert.equal(response.json().error.code, -32601);
    });

    it('refuses a foreign Host header (DNS rebinding) and a foreign Origin with 403', async () => {
      const rebound = await postJsonRpc(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { host: `attacker.example:${new URL(url).port}` });
      assert.equal(rebound.status, 403);
      const foreignOrigin = await postJsonRpc(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://attacker.example' });
      assert.equal(foreignOrigin.status, 403);
      const localOrigin = await postJsonRpc(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'http://localhost:6274' });
      assert.equal(localOrigin.status, 200);
    });

    it('sends no CORS headers and answers unknown paths with 404', async () => {
      const response = await postJsonRpc(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'http://localhost:6274' });
      assert.equal(response.headers['access-control-allow-origin'], undefined);
      const missing = await postJsonRpc(new URL('/elsewhere', url).href, { jsonrpc: '2.0', id: 1, method: 'ping' });
      assert.equal(missing.status, 404);
    });
  });

  describe('packaging: what the editor loads from the installed tarball', () => {
    const types = ['mcp-runtime', 'mcp-flow-server', 'mcp-tool-registry', 'mcp-resource', 'mcp-prompt', 'mcp-app-view', 'mcp-redis', 'mcp-auth', 'mcp-server-metrics'];

    it('registers every node type from the package', async () => {
      const response = await fetch(`${nodeRed.adminUrl}/nodes`, { headers: { accept: 'application/json' } });
      const sets = (await response.json()) as Array<{ module: string; types: string[]; enabled: boolean; err?: string }>;
      const ours = sets.filter((set) => set.module === '@flowmcp/node-red-mcp');
      assert.deepEqual(ours.flatMap((set) => set.types).sort(), [...types].sort());
      for (const set of ours) {
        assert.equal(set.err, undefined, `load error: ${set.err}`);
        assert.equal(set.enabled, true);
      }
    });

    it('serves each type\'s editor template and help', async () => {
      const response = await fetch(`${nodeRed.adminUrl}/nodes`, { headers: { accept: 'text/html' } });
      const html = await response.text();
      for (const type of types) {
        assert.ok(html.includes(`data-template-name="${type}"`), `template for ${type}`);
        assert.ok(html.includes(`data-help-name="${type}"`), `help for ${type}`);
        // Tools, resources and prompts register through registerDeclaration, which calls register.
        assert.match(html, new RegExp(`flowmcpEditor\\.register(Declaration)?\\("${type}"`), `registration of ${type} through the shared editor parts`);
      }
      // The registrations above only work when the shared parts they call are served from the package.
      for (const part of ['mcp-editor.js', 'mcp-editor-form.js', 'mcp-editor-types.js']) {
        assert.ok(html.includes(`src="resources/@flowmcp/node-red-mcp/${part}"`), `${part} is loaded`);
        const served = await fetch(`${nodeRed.adminUrl}/resources/@flowmcp/node-red-mcp/${part}`);
        assert.equal(served.status, 200, `${part} is served`);
        assert.ok((await served.text()).length > 200, `${part} has content`);
      }
      const registration = await (await fetch(`${nodeRed.adminUrl}/resources/@flowmcp/node-red-mcp/mcp-editor-types.js`)).text();
      assert.ok(registration.includes('RED.nodes.registerType('), 'the shared parts register the types with Node-RED');
    });

    it('serves each type\'s message catalog', async () => {
      for (const type of types) {
        const response = await fetch(`${nodeRed.adminUrl}/locales/@flowmcp/node-red-mcp/${type}?lng=en-US`);
        assert.equal(response.status, 200, type);
        const catalog = (await response.json()) as Record<string, Record<string, unknown>>;
        assert.ok(catalog[type], `catalog root for ${type}`);
        assert.ok(Object.keys(catalog[type]!).length > 2, `catalog entries for ${type}`);
      }
    });

    it('serves the icons', async () => {
      for (const icon of ['mcp.svg', 'mcp-tool.svg', 'mcp-runtime.svg', 'mcp-metrics.svg']) {
        const response = await fetch(`${nodeRed.adminUrl}/icons/@flowmcp/node-red-mcp/${icon}`);
        assert.equal(response.status, 200, icon);
        assert.match(await response.text(), /<svg/);
      }
    });

    it('offers the example flow under Import > Examples', async () => {
      const response = await fetch(`${nodeRed.adminUrl}/library/examples/flows/@flowmcp/node-red-mcp/two-tools`);
      assert.equal(response.status, 200);
      const flow = (await response.json()) as Array<{ type: string }>;
      assert.ok(flow.some((node) => node.type === 'mcp-flow-server'));
    });
  });
});
