import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  authDef,
  flowOf,
  flowServerDef,
  freePort,
  helper,
  lastStatus,
  messagesOf,
  probeEndpoint,
  rpc,
  runtimeDef,
  runtimeLogText,
  statuses,
  storageDef,
  toolDef,
  usePalette,
  waitForStatus,
  type TestNode,
} from './node-helper.js';
import { exchange } from '../support/loopback-http.js';

// authDef's issuer is http://127.0.0.1:9/: the upstream provider is discovered lazily, on the first
// sign-in, so these tests never contact it.
const SECRET = 'oidc-client-secret-for-node-tests-Q7w';
const CREDENTIALS = { auth: { oidcClientSecret: SECRET } };

const CATALOG = {
  noStorage: 'No storage selected: choose an mcp storage configuration',
  invalidSlug: 'OAuth slug must start with a lowercase letter and contain only lowercase letters, digits or - (1-63 characters)',
  oauthNeedsBaseUrl: "OAuth sign-in needs the runtime's Base URL: set it on the mcp runtime",
  oauthNeedsAuth: 'OAuth sign-in needs an mcp auth configuration: select one under Sign-in',
  oauthNeedsGroups: 'OAuth sign-in needs at least one group',
};

/** Every message a node logged at any level, and every status text it showed. */
function everythingSaidBy(node: TestNode): string[] {
  return [
    ...messagesOf(node, 'error'),
    ...messagesOf(node, 'warn'),
    ...messagesOf(node, 'log'),
    ...statuses(node).map((status) => status.text ?? ''),
  ];
}

/** The path to the first string containing `needle` reachable from `value` (own properties, Maps, Sets). */
function findString(value: unknown, needle: string, path = '$', seen = new WeakSet<object>()): string | undefined {
  if (typeof value === 'string') return value.includes(needle) ? path : undefined;
  if (typeof value !== 'object' || value === null || seen.has(value)) return undefined;
  seen.add(value);
  const entries: Array<[string, unknown]> =
    value instanceof Map ? [...value.entries()].flatMap(([k, v], i) => [[`${path}<key ${i}>`, k], [`${path}<${String(k)}>`, v]] as Array<[string, unknown]>)
    : value instanceof Set ? [...value].map((v, i) => [`${path}<${i}>`, v] as [string, unknown])
    : Reflect.ownKeys(value).map((key) => [`${path}.${String(key)}`, (value as Record<PropertyKey, unknown>)[key]] as [string, unknown]);
  for (const [childPath, child] of entries) {
    const found = findString(child, needle, childPath, seen);
    if (found) return found;
  }
  return undefined;
}

function assertSecretNeverLogged(...nodes: TestNode[]): void {
  const logged = runtimeLogText();
  assert.ok(logged.length > 0, 'the runtime log is being read');
  for (const line of logged) assert.ok(!line.includes(SECRET), `the client secret reached the log: ${line}`);
  for (const node of nodes) {
    for (const text of everythingSaidBy(node)) assert.ok(!text.includes(SECRET), `${node.id} said the client secret: ${text}`);
  }
}

describe('mcp-auth', () => {
  const nodes = usePalette(['mcp-runtime', 'mcp-flow-server', 'mcp-tool-registry', 'mcp-redis', 'mcp-auth']);

  it('builds a configuration from a valid OIDC config and its storage', async () => {
    await helper.load(nodes, flowOf(storageDef('store'), authDef('auth', 'store')), CREDENTIALS);
    const auth = helper.getNode('auth');
    const storage = helper.getNode('store');
    assert.deepEqual(messagesOf(auth, 'error'), []);
    assert.equal(auth.configError, undefined);
    const configuration = auth.configuration;
    assert.ok(configuration, 'the node exposes a configuration');
    assert.equal(configuration.id, 'auth');
    assert.equal(configuration.slug, 'team-login');
    assert.match(configuration.namespace, /^[0-9a-f]{16}$/);
    assert.deepEqual([...configuration.scopes], ['openid', 'profile', 'email', 'groups']);
    assert.equal(configuration.accessTokenTtlSeconds, 900);
    assert.equal(configuration.store, storage.store, 'the storage node’s own store');
    assert.ok(Object.isFrozen(configuration));
    assert.equal(findString(configuration, SECRET), undefined, 'the configuration carries no secret in its data');
    assertSecretNeverLogged(auth, storage);
  });

  it('finds its storage whatever the order of the config nodes in the flow', async () => {
    await helper.load(nodes, flowOf(authDef('auth', 'store'), storageDef('store')), CREDENTIALS);
    const auth = helper.getNode('auth');
    assert.deepEqual(messagesOf(auth, 'error'), []);
    assert.equal(auth.configuration?.store, helper.getNode('store').store);
  });

  it('keeps the namespace across redeploys and changes it with the slug', async () => {
    await helper.load(nodes, flowOf(storageDef('store'), authDef('auth', 'store')), CREDENTIALS);
    const first = helper.getNode('auth').configuration?.namespace;
    await helper.unload();
    await helper.load(nodes, flowOf(storageDef('store'), authDef('auth', 'store')), { auth: { oidcClientSecret: 'rotated-secret' } });
    assert.equal(helper.getNode('auth').configuration?.namespace, first, 'rotating the secret keeps everyone signed in');
    await helper.unload();
    await helper.load(nodes, flowOf(storageDef('store'), authDef('auth', 'store', { slug: 'other' })), CREDENTIALS);
    const other = helper.getNode('auth').configuration;
    assert.equal(other?.slug, 'other');
    assert.notEqual(other?.namespace, first);
  });

  it('reads the secret from an MCP_ environment variable', async () => {
    const name = 'MCP_NODE_TEST_OIDC_SECRET';
    process.env[name] = SECRET;
    try {
      await helper.load(nodes, flowOf(storageDef('store'), authDef('auth', 'store', { oidcSecretEnv: name })));
      const auth = helper.getNode('auth');
      assert.deepEqual(messagesOf(auth, 'error'), []);
      assert.ok(auth.configuration);
      assertSecretNeverLogged(auth);
    } finally {
      delete process.env[name];
    }
  });

  it('without storage: no configuration, configError and an error with the catalog text', async () => {
    await helper.load(nodes, flowOf(authDef('auth', '')), CREDENTIALS);
    const auth = helper.getNode('auth');
    assert.equal(auth.configuration, undefined);
    assert.equal(auth.configError, CATALOG.noStorage);
    assert.deepEqual(messagesOf(auth, 'error'), [CATALOG.noStorage]);
  });

  it('with a storage node that does not exist: the same no-storage error', async () => {
    await helper.load(nodes, flowOf(authDef('auth', 'missing-store')), CREDENTIALS);
    const auth = helper.getNode('auth');
    assert.equal(auth.configuration, undefined);
    assert.equal(auth.configError, CATALOG.noStorage);
  });

  it('with an invalid storage node: names the storage problem', async () => {
    await helper.load(nodes, flowOf(storageDef('store', { mode: 'redis', urlEnv: 'REDIS_URL' }), authDef('auth', 'store')), CREDENTIALS);
    const auth = helper.getNode('auth');
    assert.equal(auth.configuration, undefined);
    assert.equal(
      auth.configError,
      'The selected storage configuration is invalid: Environment variable REDIS_URL is not allowed: names must start with MCP_ and contain only A-Z, 0-9 and _',
    );
    assert.deepEqual(messagesOf(auth, 'error'), [auth.configError]);
  });

  it('logs the catalog error for an invalid slug and builds no configuration', async () => {
    await helper.load(nodes, flowOf(storageDef('store'), authDef('auth', 'store', { slug: 'Team Login' })), CREDENTIALS);
    const auth = helper.getNode('auth');
    assert.equal(auth.configuration, undefined);
    assert.equal(auth.configError, CATALOG.invalidSlug);
    assert.deepEqual(messagesOf(auth, 'error'), [CATALOG.invalidSlug]);
  });

  it('logs the catalog error for a missing provider, a bad TTL and a missing secret', async () => {
    await helper.load(
      nodes,
      flowOf(
        storageDef('store'),
        authDef('auth-no-provider', 'store', { provider: '' }),
        authDef('auth-ttl', 'store', { slug: 'ttl', accessTokenTtl: '901' }),
        authDef('auth-no-secret', 'store', { slug: 'no-secret' }),
      ),
      { 'auth-no-provider': { oidcClientSecret: SECRET }, 'auth-ttl': { oidcClientSecret: SECRET } },
    );
    assert.deepEqual(messagesOf(helper.getNode('auth-no-provider'), 'error'), ['Choose the identity provider: OIDC or Microsoft Entra ID']);
    assert.deepEqual(messagesOf(helper.getNode('auth-ttl'), 'error'), ['Token lifetime must be a whole number of seconds from 1 to 900']);
    assert.deepEqual(messagesOf(helper.getNode('auth-no-secret'), 'error'), [
      'Client secret is missing: enter it, or name an MCP_* environment variable in Secret env',
    ]);
  });

  it('never logs the client secret, whatever is wrong with the configuration', async () => {
    // Node ids must not equal another property's value (a slug): Node-RED would read that as a
    // reference to a config node.
    const variants: Record<string, Record<string, unknown>> = {
      'auth-ok': { slug: 'ok' },
      // The secret pasted where the variable name belongs.
      'auth-pasted': { slug: 'pasted', oidcSecretEnv: SECRET },
      'auth-issuer': { slug: 'issuer', oidcIssuer: `https://user:${SECRET}@idp.example.com/` },
      'auth-hosts': { slug: 'hosts', clientHosts: 'https://claude.ai/' },
      'auth-pinned': { slug: 'pinned', pinnedClients: '{"client_id": "http://not-https.example/c.json"}' },
      'auth-slug': { slug: SECRET },
      'auth-unset': { slug: 'unset', oidcSecretEnv: 'MCP_NODE_TEST_NOT_SET' },
    };
    const ids = Object.keys(variants);
    await helper.load(
      nodes,
      flowOf(storageDef('store'), ...ids.map((id) => authDef(id, 'store', variants[id]))),
      Object.fromEntries(ids.map((id) => [id, { oidcClientSecret: SECRET }])),
    );
    const authNodes = ids.map((id) => helper.getNode(id));
    assert.ok(helper.getNode('auth-ok').configuration);
    for (const node of authNodes.slice(1)) {
      assert.equal(node.configuration, undefined, node.id);
      assert.equal(messagesOf(node, 'error').length, 1, `${node.id} logs one error`);
    }
    assert.equal(helper.getNode('auth-unset').configError, 'Environment variable MCP_NODE_TEST_NOT_SET is not set');
    assert.equal(helper.getNode('auth-pasted').configError, 'Environment variable (not a variable name) is not allowed: names must start with MCP_ and contain only A-Z, 0-9 and _');
    assertSecretNeverLogged(...authNodes);
  });

  describe('mcp-flow-server with OAuth access', () => {
    /** runtime (+ optional Base URL) + storage + auth + one OAuth endpoint on /mcp + a tool. */
    async function deploy(port: number, options: { baseUrl?: string; auth?: string; groups?: string; authExtra?: Record<string, unknown> }) {
      const flow = flowOf(
        runtimeDef('rt', port, { baseUrl: options.baseUrl ?? '' }),
        storageDef('store'),
        authDef('auth', 'store', options.authExtra),
        flowServerDef('srv', 'rt', [[]], { access: 'oauth', auth: options.auth ?? 'auth', groups: options.groups ?? 'mcp-users' }),
        toolDef('tool', 'echo'),
      );
      await helper.load(nodes, flow, CREDENTIALS);
      return helper.getNode('srv');
    }

    it('does not start without the runtime Base URL', async () => {
      const port = await freePort();
      const server = await deploy(port, {});
      const status = await waitForStatus(server, 'red');
      assert.deepEqual(status, { fill: 'red', shape: 'ring', text: CATALOG.oauthNeedsBaseUrl });
      assert.ok(messagesOf(server, 'error').includes(CATALOG.oauthNeedsBaseUrl));
      assert.equal(await probeEndpoint(port), 'refused', 'nothing is served open');
      assert.equal(statuses(server).some((s) => s.fill === 'green'), false);
    });

    /** Deploys with `options(port)`; the endpoint turns red saying `why(port)` and serves nothing. */
    async function assertRefused(options: (port: number) => Parameters<typeof deploy>[1], why: (port: number) => string) {
      const port = await freePort();
      const server = await deploy(port, options(port));
      const status = await waitForStatus(server, 'red');
      assert.equal(status.text, why(port));
      assert.equal(await probeEndpoint(port), 'refused');
    }
    const origin = (port: number) => `http://127.0.0.1:${port}`;

    it('does not start with a Base URL that has a path', () =>
      assertRefused((port) => ({ baseUrl: `${origin(port)}/tools` }), (port) => `OAuth sign-in needs a Base URL without a path, such as ${origin(port)}`));

    it('does not start with a Base URL but no mcp auth', () =>
      assertRefused((port) => ({ baseUrl: origin(port), auth: '' }), () => CATALOG.oauthNeedsAuth));

    it('does not start with an invalid mcp auth, and says why', () =>
      assertRefused((port) => ({ baseUrl: origin(port), authExtra: { slug: 'Bad Slug' } }), () => `The mcp auth configuration is invalid: ${CATALOG.invalidSlug}`));

    it('does not start with an mcp auth but no group', () =>
      assertRefused((port) => ({ baseUrl: origin(port), groups: ' , ' }), () => CATALOG.oauthNeedsGroups));

    it('serves with everything set: green, discovery documents, and 401 with the RFC 9728 challenge', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const server = await deploy(port, { baseUrl: base });
      const status = await waitForStatus(server, 'green');
      // Singular or plural: the catalog's plural forms are not what this test is about.
      assert.match(status.text ?? '', new RegExp(`^1 tools? on ${base.replace(/\./g, '\\.')}/mcp$`));
      assert.equal(lastStatus(server)?.fill, 'green');

      const prm = await exchange(port, 'GET', '/.well-known/oauth-protected-resource/mcp');
      assert.equal(prm.status, 200);
      assert.match(String(prm.headers['content-type']), /^application\/json/);
      const resource = JSON.parse(prm.body);
      assert.equal(resource.resource, `${base}/mcp`);
      assert.deepEqual(resource.authorization_servers, [base]);
      assert.deepEqual(resource.scopes_supported, ['openid', 'profile', 'email', 'groups']);
      assert.deepEqual(resource.bearer_methods_supported, ['header']);

      const metadata = await exchange(port, 'GET', '/.well-known/oauth-authorization-server');
      assert.equal(metadata.status, 200);
      const as = JSON.parse(metadata.body);
      assert.equal(as.issuer, base);
      assert.equal(as.authorization_endpoint, `${base}/oauth/team-login/authorize`);
      assert.equal(as.token_endpoint, `${base}/oauth/team-login/token`);
      assert.deepEqual(as.code_challenge_methods_supported, ['S256']);

      const listed = await exchange(
        port,
        'POST',
        '/mcp',
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      );
      assert.equal(listed.status, 401);
      const challenge = String(listed.headers['www-authenticate'] ?? '');
      assert.match(challenge, /^Bearer /);
      assert.ok(challenge.includes(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`), challenge);
      assert.ok(!listed.body.includes('"tools"'), 'no tool is listed without a token');

      // A made-up token is no better; the refusal is audited without the token.
      const forged = await rpc(port, 'tools/list', {}, 2, '/mcp', { authorization: 'Bearer not-a-real-token' });
      assert.equal(forged.status, 401);
      assert.equal(forged.body?.result, undefined);
      const audit = messagesOf(server, 'log').map((line) => { try { return JSON.parse(line); } catch { return undefined; } });
      assert.ok(audit.some((event) => event?.event === 'mcp.auth' && event.reason === 'invalid_token' && event.endpoint === '/mcp'), JSON.stringify(audit));
      assert.ok(runtimeLogText().every((line) => !line.includes('not-a-real-token')), 'the bearer token was logged');

      // The root documents answer too (one auth configuration on this port); documents are GET only.
      const rootPrm = await exchange(port, 'GET', '/.well-known/oauth-protected-resource');
      assert.equal(rootPrm.status, 200);
      assert.equal(JSON.parse(rootPrm.body).resource, base);
      assert.equal((await exchange(port, 'POST', '/.well-known/oauth-protected-resource/mcp', { 'content-type': 'application/json' }, '{}')).status, 405);
      assert.equal(JSON.parse((await exchange(port, 'GET', '/.well-known/openid-configuration')).body).issuer, base);

      assertSecretNeverLogged(server, helper.getNode('auth'));
    });

    it('lets an anonymous client negotiate (initialize) before sign-in', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const server = await deploy(port, { baseUrl: base });
      await waitForStatus(server, 'green');
      const init = await rpc(port, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'node-test', version: '1.0.0' },
      });
      assert.equal(init.status, 200);
      assert.equal(init.body?.result?.serverInfo?.name, 'test-server');
    });

    it('stops serving the discovery documents when the flow is stopped', async () => {
      const port = await freePort();
      const server = await deploy(port, { baseUrl: `http://127.0.0.1:${port}` });
      await waitForStatus(server, 'green');
      assert.equal((await exchange(port, 'GET', '/.well-known/oauth-protected-resource/mcp')).status, 200);
      await helper.unload();
      assert.equal(await probeEndpoint(port), 'refused');
    });
  });
});
