import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flowOf, flowServerDef, freePort, helper, lastStatus, usePalette, messagesOf, probeEndpoint, runtimeDef, toolDef, waitForStatus } from './node-helper.js';

describe('mcp-runtime', () => {
  const nodes = usePalette();

  it('loads with defaults when the editor left every field empty', async () => {
    await helper.load(nodes, flowOf({ id: 'rt', type: 'mcp-runtime', port: '', host: '', baseUrl: '' }));
    const runtime = helper.getNode('rt');
    assert.ok(runtime, 'the runtime config node exists');
    assert.deepEqual({ ...runtime.settings }, { server: 'own', port: 1881, host: '127.0.0.1', pathPrefix: '', baseUrl: undefined, trustedProxies: [] });
    assert.equal(runtime.configError, undefined);
    assert.deepEqual(messagesOf(runtime, 'error'), []);
  });

  it('reads the port as a number and drops a trailing slash from the Base URL', async () => {
    await helper.load(nodes, flowOf(runtimeDef('rt', '4567', { baseUrl: 'https://mcp.example.com/tools/' })));
    const runtime = helper.getNode('rt');
    assert.deepEqual({ ...runtime.settings }, { server: 'own', port: 4567, host: '127.0.0.1', pathPrefix: '', baseUrl: 'https://mcp.example.com/tools', trustedProxies: [] });
    assert.deepEqual(messagesOf(runtime, 'error'), []);
  });

  it('serves on Node-RED\'s own HTTP server when asked, ignoring the port and bind address of the form', async () => {
    await helper.load(nodes, flowOf(runtimeDef('rt', '4567', { server: 'node-red', host: '0.0.0.0' })));
    const runtime = helper.getNode('rt');
    assert.equal(runtime.settings.server, 'node-red');
    assert.equal(runtime.settings.pathPrefix, '');
    assert.equal(runtime.site.key, 'node-red');
    assert.deepEqual(messagesOf(runtime, 'error'), []);
  });

  // A setting the runtime cannot use leaves it without settings, and the log says why.
  for (const [title, fields, logged] of [
    ['logs an error for an unknown Serve on value', { server: 'elsewhere' }, "Serve on must be a port of its own or Node-RED's HTTP server"],
    [
      'logs an error naming a trusted proxy that is not an address or range',
      { trustedProxies: '10.0.0.0/8, lb.internal' },
      'Trusted proxies must be IP addresses or CIDR ranges separated by commas, such as 10.0.0.0/8; lb.internal is neither',
    ],
  ] as const) {
    it(title, async () => {
      await helper.load(nodes, flowOf(runtimeDef('rt', '4567', fields)));
      const runtime = helper.getNode('rt');
      assert.equal(runtime.settings, undefined);
      assert.deepEqual(messagesOf(runtime, 'error'), [logged]);
    });
  }

  it('logs an error for port 70000 and endpoints using it fail with a red status', async () => {
    await helper.load(nodes, flowOf(
      runtimeDef('rt', '70000'),
      flowServerDef('srv', 'rt'),
      toolDef('tool', 'echo'),
    ));
    const runtime = helper.getNode('rt');
    assert.equal(runtime.settings, undefined);
    assert.deepEqual(messagesOf(runtime, 'error'), ['Port must be a whole number from 1 to 65535']);

    const server = helper.getNode('srv');
    const status = await waitForStatus(server, 'red');
    assert.equal(status.shape, 'ring');
    assert.match(status.text ?? '', /MCP runtime configuration is invalid: Port must be a whole number from 1 to 65535/);
    assert.ok(
      messagesOf(server, 'error').some((text) => text.includes('MCP runtime configuration is invalid')),
      'the flow-server logs why it does not start',
    );
    // Nothing ever turns it green: it has no endpoint to start.
    assert.equal(lastStatus(server)?.fill, 'red');
  });

  it('logs an error for a Base URL with a query string', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(runtimeDef('rt', port, { baseUrl: 'https://mcp.example.com/?a=1' }), flowServerDef('srv', 'rt')));
    const runtime = helper.getNode('rt');
    assert.deepEqual(messagesOf(runtime, 'error'), ['Base URL must be an absolute http(s) URL without query or fragment']);
    const status = await waitForStatus(helper.getNode('srv'), 'red');
    assert.match(status.text ?? '', /MCP runtime configuration is invalid: Base URL/);
    assert.equal(await probeEndpoint(port), 'refused');
  });
});
