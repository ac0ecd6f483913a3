import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpPaletteError } from '../../lib/core/errors.js';
import { endpointUrl, parseRuntimeConfig } from '../../lib/config/runtime-config.js';

function assertCode(config: Record<string, unknown>, code: string): void {
  assert.throws(
    () => parseRuntimeConfig(config),
    (error: unknown) => error instanceof McpPaletteError && error.code === code,
    `${JSON.stringify(config)} should fail with ${code}`,
  );
}

describe('parseRuntimeConfig', () => {
  it('defaults to 127.0.0.1:1881 without a base URL', () => {
    assert.deepEqual(parseRuntimeConfig({}), { server: 'own', port: 1881, host: '127.0.0.1', pathPrefix: '', baseUrl: undefined, trustedProxies: [] });
  });

  it('uses the defaults for blank or null fields, as an untouched editor saves them', () => {
    const defaults = { server: 'own', port: 1881, host: '127.0.0.1', pathPrefix: '', baseUrl: undefined, trustedProxies: [] };
    assert.deepEqual(parseRuntimeConfig({ port: '', host: '', baseUrl: '', trustedProxies: '' }), defaults);
    assert.deepEqual(parseRuntimeConfig({ port: null, host: null, baseUrl: null, trustedProxies: null }), defaults);
  });

  it('accepts ports as numbers or numeric strings', () => {
    assert.equal(parseRuntimeConfig({ port: '8080' }).port, 8080);
    assert.equal(parseRuntimeConfig({ port: ' 90 ' }).port, 90);
    assert.equal(parseRuntimeConfig({ port: 65535 }).port, 65535);
  });

  it('refuses ports outside 1..65535 or not whole numbers with invalid_port', () => {
    for (const port of ['0', 0, 65536, 'abc', 1.5, '-1', '80a']) assertCode({ port }, 'invalid_port');
  });

  it('accepts IP addresses and host names, trimmed', () => {
    assert.equal(parseRuntimeConfig({ host: '::1' }).host, '::1');
    assert.equal(parseRuntimeConfig({ host: ' localhost ' }).host, 'localhost');
    assert.equal(parseRuntimeConfig({ host: 'my-host.local' }).host, 'my-host.local');
  });

  it('refuses malformed hosts with invalid_host', () => {
    for (const host of ['bad host', 'http://localhost', '-bad.example', 5]) assertCode({ host }, 'invalid_host');
  });

  it('strips trailing slashes from the base URL', () => {
    assert.equal(parseRuntimeConfig({ baseUrl: 'https://mcp.example.com/' }).baseUrl, 'https://mcp.example.com');
    assert.equal(parseRuntimeConfig({ baseUrl: 'https://mcp.example.com/prefix//' }).baseUrl, 'https://mcp.example.com/prefix');
  });

  it('refuses base URLs that are not plain http(s) origins with invalid_base_url', () => {
    for (const baseUrl of ['ftp://example.com', 'not a url', 'https://example.com/?q=1', 'https://example.com/#x', 'https://u:p@example.com']) {
      assertCode({ baseUrl }, 'invalid_base_url');
    }
  });

  it('reads trusted proxies as addresses and CIDR ranges, from a string or a hand-written list', () => {
    assert.deepEqual(parseRuntimeConfig({ trustedProxies: ' 10.0.0.0/8, 192.168.1.5  fd00::/8,,10.0.0.0/8 ' }).trustedProxies, ['10.0.0.0/8', '192.168.1.5', 'fd00::/8']);
    assert.deepEqual(parseRuntimeConfig({ trustedProxies: ['127.0.0.1', '::1'] }).trustedProxies, ['127.0.0.1', '::1']);
  });

  it('refuses a trusted proxy that is not an address or range with invalid_trusted_proxies, naming it', () => {
    for (const trustedProxies of ['proxy.example.com', '10.0.0.0/33', '::1/129', '10.0.0.1/8/8', '10.0.0/8', '10.0.0.0/x']) {
      assertCode({ trustedProxies }, 'invalid_trusted_proxies');
    }
    assert.throws(() => parseRuntimeConfig({ trustedProxies: '10.0.0.1, lb.internal' }), (error: unknown) => error instanceof McpPaletteError && error.params['entry'] === 'lb.internal');
  });

  it('returns a frozen result', () => {
    assert.ok(Object.isFrozen(parseRuntimeConfig({})));
    assert.ok(Object.isFrozen(parseRuntimeConfig({ trustedProxies: '10.0.0.1' }).trustedProxies));
  });
});

describe('parseRuntimeConfig on Node-RED\'s own server (one-port mode)', () => {
  const nodeRed = { root: '/', port: 1880, host: undefined };

  it('keeps an own listener for flows saved before the option existed, and for "own"', () => {
    assert.equal(parseRuntimeConfig({}, nodeRed).server, 'own');
    assert.equal(parseRuntimeConfig({ server: '' }, nodeRed).server, 'own');
    assert.equal(parseRuntimeConfig({ server: 'own', port: 9000 }, nodeRed).port, 9000);
  });

  it('takes port and address from Node-RED, not from the form, and the prefix from httpNodeRoot', () => {
    const runtime = parseRuntimeConfig({ server: 'node-red', port: 9000, host: '127.0.0.1' }, { root: '/api/', port: 1880, host: '0.0.0.0' });
    assert.equal(runtime.server, 'node-red');
    assert.equal(runtime.port, 1880);
    assert.equal(runtime.host, 'localhost', 'an address listening everywhere is shown as localhost');
    assert.equal(runtime.pathPrefix, '/api');
    assert.equal(endpointUrl(runtime, '/mcp'), 'http://localhost:1880/api/mcp');
  });

  it('puts httpNodeRoot after the Base URL, which is the address of Node-RED itself', () => {
    const runtime = parseRuntimeConfig({ server: 'node-red', baseUrl: 'https://red.example.com' }, { root: '/', port: undefined, host: undefined });
    assert.equal(runtime.pathPrefix, '');
    assert.equal(runtime.port, 1880, "Node-RED's default port when settings.js names none");
    assert.equal(endpointUrl(runtime, '/mcp'), 'https://red.example.com/mcp');
    assert.equal(endpointUrl(parseRuntimeConfig({ server: 'node-red', baseUrl: 'https://red.example.com/' }, { ...nodeRed, root: '/nodes/' }), '/mcp'), 'https://red.example.com/nodes/mcp');
  });

  it('refuses when Node-RED serves no HTTP node routes, when it is unknown, and an unknown mode', () => {
    assert.throws(() => parseRuntimeConfig({ server: 'node-red' }, { root: false, port: 1880, host: undefined }), (error: unknown) => error instanceof McpPaletteError && error.code === 'node_red_http_disabled');
    assertCode({ server: 'node-red' }, 'node_red_server_unavailable');
    assertCode({ server: 'shared' }, 'invalid_server');
  });
});

describe('endpointUrl', () => {
  it('builds the URL from host and port when there is no base URL', () => {
    assert.equal(endpointUrl(parseRuntimeConfig({ port: '1881' }), '/mcp'), 'http://127.0.0.1:1881/mcp');
  });

  it('brackets an IPv6 host', () => {
    assert.equal(endpointUrl(parseRuntimeConfig({ host: '::1', port: 9000 }), '/mcp'), 'http://[::1]:9000/mcp');
  });

  it('uses the base URL, including its path prefix, when set', () => {
    const runtime = parseRuntimeConfig({ host: '::1', baseUrl: 'https://tools.example.com/red/' });
    assert.equal(endpointUrl(runtime, '/mcp'), 'https://tools.example.com/red/mcp');
  });
});
