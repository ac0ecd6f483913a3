import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { answer, oauthServer, oidcAuth, prompt, resource, router, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { JSON_HEADERS, rawRequest, waitForEndpoint, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { browserSignIn, claudeLikeDocument, postToken, rawTokens, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTestIdp, type TestIdp, type TestUser } from '../support/test-idp.js';

/**
 * Scope step-up with the real OpenID provider and the official client: `set_point`, `plant://secret`
 * and the `plan` prompt require `setpoints:write`, which the bridge issues only to maintenance
 * (mcp-auth's Scopes by group). A token without it gets 403 insufficient_scope; the client signs in
 * again asking for it, and then its call goes through. A user outside the group never gets it, and
 * one who leaves the group loses it at the next refresh.
 */

const CLIENT_ID = 'https://client.test/oauth/step-up.json';
const REDIRECT = 'http://127.0.0.1:49152/callback';
const SECRET = 'bridge-secret-for-step-up';
const SCOPE = 'setpoints:write';
const USERS: readonly TestUser[] = [
  { username: 'ana', email: 'ana@example.test', name: 'Ana', groups: ['staff'] },
  { username: 'max', email: 'max@example.test', name: 'Max', groups: ['staff', 'maintenance'] },
];
const DONE = `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'done ' + msg.payload.toolName + ' for ' + msg.mcp.email };\nreturn msg;`;

function flows(port: number, issuer: string): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    { ...oidcAuth('auth', { storage: 'st', issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }), scopeGroups: `# changing set points\n${SCOPE} = maintenance` },
    oauthServer('plant', { runtime: 'rt', auth: 'auth', path: '/plant', groups: 'staff', wires: ['route'] }),
    router('route', { read_state: 'done-fn', set_point: 'done-fn', vault: 'done-fn' }),
    answer('done-fn', DONE, 'plant'),
    tool('t-read', { name: 'read_state', endpoint: '/plant' }),
    { ...tool('t-set', { name: 'set_point', endpoint: '/plant' }), requiredScopes: SCOPE },
    // Hidden from everyone outside admins: never challenged for, answered as a name nobody serves.
    { ...tool('t-vault', { name: 'vault', endpoint: '/plant' }), requiredScopes: SCOPE, allowedGroups: 'admins' },
    { ...resource('r-secret', { uri: 'plant://secret', endpoint: '/plant', source: 'static', text: 'the door code' }), requiredScopes: SCOPE },
    { ...prompt('p-plan', { name: 'plan', endpoint: '/plant', messages: [{ role: 'user', text: 'Plan the set points' }] }), requiredScopes: SCOPE },
  ];
}

describe(`scope step-up on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let redis: RedisServer;
  let nodeRed: NodeRedProcess;
  let base: string;
  let url: string;

  const tokensOf = (username: string, scope?: string) =>
    rawTokens({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: REDIRECT, idp, username, resource: url, ...(scope ? { scope } : {}) });
  const post = (token: string, method: string, params: Record<string, unknown>, era: 'legacy' | 'modern' = 'legacy'): Promise<RawResponse> => {
    const name = params['uri'] ?? params['name'];
    const modern = era === 'modern'
      ? { headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}) }, meta: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }
      : { headers: { 'mcp-protocol-version': '2025-11-25' }, meta: {} };
    return rawRequest(url, { headers: { ...JSON_HEADERS, ...modern.headers, authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method, params: { ...params, ...modern.meta } }) });
  };
  const challengeOf = (response: RawResponse) => String(response.headers['www-authenticate'] ?? '');

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    url = `${base}/plant`;
    idp = await startTestIdp({ users: USERS, clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`${base}/oauth/team/callback`] }], refreshTokens: true });
    redis = await startRedis();
    nodeRed = await startNodeRed(flows(port, idp.issuer), {
      env: { MCP_TEST_REDIS_URL: `redis://127.0.0.1:${redis.port}`, MCP_TEST_SECRET: SECRET },
      credentials: { auth: { oidcRefreshKey: randomBytes(32).toString('hex') } },
    });
    await waitForEndpoint(url);
  });

  after(async () => {
    await nodeRed?.stop();
    await idp?.stop();
    await redis?.stop();
  });

  it('offers the scope in its metadata, and asks a first sign-in only for the sign-in scopes', async () => {
    const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource/plant`)).json();
    assert.ok(metadata.scopes_supported.includes(SCOPE), JSON.stringify(metadata));
    const anonymous = await rawRequest(url, { headers: JSON_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    assert.equal(anonymous.status, 401);
    assert.doesNotMatch(challengeOf(anonymous), /setpoints/);
  });

  for (const era of ['legacy', 'auto'] as const) {
    it(`sends the official client (${era === 'legacy' ? '2025-11-25' : '2026-07-28'}) to sign in again for the scope, after which the call goes through`, async () => {
      const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
      const connect = async () => {
        const client = new Client({ name: 'step-up-test', version: '1.0.0' }, { versionNegotiation: { mode: era } });
        const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
        await client.connect(transport);
        return { client, transport };
      };
      const signIn = async (transport: StreamableHTTPClientTransport) => {
        provider.openedUrl = provider.authorizationUrl;
        const landing = await browserSignIn(provider.openedUrl!.toString(), idp, 'max');
        await transport.finishAuth(landing.searchParams);
      };
      // First use: signed in with what the 401 challenge asked for, which is not the scope.
      let { client, transport } = await connect();
      await assert.rejects(client.listTools(), UnauthorizedError);
      assert.doesNotMatch(provider.authorizationUrl!.searchParams.get('scope') ?? '', /setpoints/);
      await signIn(transport);
      await client.close();
      ({ client, transport } = await connect());
      const listed = (await client.listTools()).tools.find((listedTool) => listedTool.name === 'set_point');
      assert.ok((listed?._meta?.['securitySchemes'] as Array<{ scopes: string[] }>)[0]!.scopes.includes(SCOPE), 'the tool names the scope it needs');
      assert.equal((await client.callTool({ name: 'read_state', arguments: {} })).isError, undefined);
      // The call that needs the scope: 403 insufficient_scope, and the client starts a step-up sign-in.
      provider.authorizationUrl = undefined;
      await assert.rejects(client.callTool({ name: 'set_point', arguments: {} }), UnauthorizedError);
      const asked = (provider.authorizationUrl as URL | undefined)?.searchParams.get('scope')?.split(' ') ?? [];
      assert.ok(asked.includes(SCOPE) && asked.includes('openid'), `step-up asked for ${asked.join(' ')}`);
      await signIn(transport);
      assert.ok(String(provider.tokens().scope).split(' ').includes(SCOPE), `granted ${provider.tokens().scope}`);
      await client.close();
      ({ client } = await connect());
      assert.deepEqual((await client.callTool({ name: 'set_point', arguments: {} })).content, [{ type: 'text', text: 'done set_point for max@example.test' }]);
      assert.deepEqual((await client.readResource({ uri: 'plant://secret' })).contents.map((part) => ('text' in part ? part.text : '')), ['the door code']);
      assert.match(JSON.stringify((await client.getPrompt({ name: 'plan' })).messages), /Plan the set points/);
      await client.close();
    });
  }

  for (const era of ['legacy', 'modern'] as const) {
    it(`answers a token without the scope with the challenge, before the flow runs (${era === 'legacy' ? '2025-11-25' : '2026-07-28'})`, async () => {
      const tokens = await tokensOf('max');
      const since = nodeRed.output().length;
      for (const [method, params] of [['tools/call', { name: 'set_point', arguments: {} }], ['resources/read', { uri: 'plant://secret' }], ['prompts/get', { name: 'plan' }]] as const) {
        const refused = await post(tokens.access_token as string, method, params, era);
        assert.equal(refused.status, 403, `${method}: ${refused.body}`);
        const challenge = challengeOf(refused);
        assert.match(challenge, /^Bearer error="insufficient_scope", scope="[^"]*\bsetpoints:write\b[^"]*", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/plant"/);
        assert.match(challenge, /scope="openid profile email groups/, 'the challenge keeps what the token has');
        assert.equal(refused.json().error.code, -32001);
      }
      assert.doesNotMatch(nodeRed.output().slice(since), /done set_point/);
      await nodeRed.waitForOutput(/"event":"mcp\.auth","reason":"insufficient_scope","subject":"max".*"scopes":"setpoints:write"/, since);
    });
  }

  it('never issues the scope to a user outside its groups, and never challenges for an item the caller cannot see', async () => {
    const since = nodeRed.output().length;
    const ana = await tokensOf('ana', `openid email ${SCOPE}`);
    assert.deepEqual(String(ana.scope).split(' '), ['openid', 'email'], 'granted without the scope');
    await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"narrowed","reason":"scope_not_in_groups".*"scopes":"setpoints:write"/, since);
    const refused = await post(ana.access_token as string, 'tools/call', { name: 'set_point', arguments: {} });
    assert.equal(refused.status, 403);
    // `vault` needs the scope too, but only admins see it: ana is told it does not exist, not to step up.
    const hidden = await post(ana.access_token as string, 'tools/call', { name: 'vault', arguments: {} });
    const absent = await post(ana.access_token as string, 'tools/call', { name: 'vaulx', arguments: {} });
    assert.equal(hidden.status, 200);
    assert.equal(hidden.body.replace('vault', 'NAME'), absent.body.replace('vaulx', 'NAME'));
  });

  it('takes the scope away at the next refresh of a user who left the group', async () => {
    const max = await tokensOf('max', `openid email groups offline_access ${SCOPE}`);
    assert.ok(String(max.scope).split(' ').includes(SCOPE));
    assert.equal((await post(max.access_token as string, 'tools/call', { name: 'set_point', arguments: {} })).json().result.content[0].text, 'done set_point for max@example.test');
    idp.setGroups('max', ['staff']);
    try {
      const refreshed = await postToken(base, 'team', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(max.refresh_token), client_id: CLIENT_ID }).toString());
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      const after = await post(refreshed.body.access_token, 'tools/call', { name: 'set_point', arguments: {} });
      assert.equal(after.status, 403, after.body);
      assert.match(challengeOf(after), /error="insufficient_scope"/);
    } finally {
      idp.setGroups('max', ['staff', 'maintenance']);
    }
  });
});
