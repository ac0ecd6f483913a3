import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oidcAuth, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { authorizeUrl, pkcePair, postToken, RegisteringOAuthProvider, signedInClient } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

const SECRET = 'bridge-secret-for-dcr-tests';

describe(`dynamic client registration on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let nodeRed: NodeRedProcess;
  let base: string;

  const register = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/oauth/team/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`${base}/oauth/team/callback`] }] });
    nodeRed = await startNodeRed(
      [
        tab(),
        // The tests' own connections come from 127.0.0.1, which plays the reverse proxy here.
        { ...runtimeWithBaseUrl('rt', port), trustedProxies: '127.0.0.1, 10.0.0.0/8' },
        storage('store', 'memory'),
        { ...oidcAuth('auth', { storage: 'store', issuer: idp.issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET' }), dcrEnabled: true, dcrSchemes: 'cursor' },
        { ...flowServer('fs', { runtime: 'rt', path: '/tools', wires: ['who'] }), access: 'oauth', auth: 'auth', groups: 'mcp-users' },
        answer('who', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: msg.mcp.subject + ' via ' + msg.mcp.client };\nreturn msg;`, 'fs'),
        tool('t', { name: 'whoami', endpoint: '/tools' }),
      ],
      { env: { MCP_TEST_SECRET: SECRET } },
    );
    await waitForEndpoint(`${base}/tools`);
  });
  after(async () => {
    await nodeRed?.stop();
    await idp?.stop();
  });

  it('advertises registration and revocation in the authorization server metadata', async () => {
    const metadata = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    assert.equal(metadata.registration_endpoint, `${base}/oauth/team/register`);
    assert.equal(metadata.revocation_endpoint, `${base}/oauth/team/revoke`);
  });

  it('lets the official client register, sign in (with consent) and call a tool', async () => {
    const provider = new RegisteringOAuthProvider(await freePort(), 'Cursor-like test client');
    const client = await signedInClient(`${base}/tools`, provider, idp, 'alice');
    try {
      assert.match(provider.clientInformation().client_id, /^mcp-dyn-/);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      // A registered client's name is its own claim: its label says so (msg.mcp.client, audit lines).
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'alice via registered:cursor');
    } finally {
      await client.close();
    }
    await nodeRed.waitForOutput(/"event":"oauth\.register","outcome":"success"/);
    await nodeRed.waitForOutput(/"event":"oauth\.token","outcome":"success","subject":"alice","client":"registered:cursor"/);
  });

  it('accepts the redirect shapes real clients register and refuses unsafe ones', async () => {
    for (const uris of [['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'], ['cursor://anysphere.cursor-mcp/oauth/callback'], ['https://claude.ai/api/mcp/auth_callback']]) {
      const response = await register({ client_name: 'ok', redirect_uris: uris, token_endpoint_auth_method: 'none' });
      assert.equal(response.status, 201, JSON.stringify(uris));
    }
    for (const uris of [['http://example.test/callback'], ['javascript:alert(1)'], ['https://example.test/cb#frag'], ['vscode://callback']]) {
      const response = await register({ client_name: 'bad', redirect_uris: uris });
      assert.equal(response.status, 400, JSON.stringify(uris));
      assert.equal((await response.json()).error, 'invalid_redirect_uri');
    }
    const confidential = await register({ redirect_uris: ['https://example.test/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    assert.equal(confidential.status, 400);
    assert.equal((await confidential.json()).error, 'invalid_client_metadata');
  });

  it('answers an unknown registered client id with 401 invalid_client at authorize and token', async () => {
    const clientId = `mcp-dyn-${'A'.repeat(32)}`;
    const { challenge, verifier } = pkcePair();
    const authorize = await fetch(
      authorizeUrl(base, 'team', { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9/cb', code_challenge: challenge, code_challenge_method: 'S256', state: 's' }),
      { redirect: 'manual' },
    );
    assert.equal(authorize.status, 401);
    assert.equal((await authorize.json()).error, 'invalid_client');
    const token = await postToken(base, 'team', new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://127.0.0.1:9/cb', client_id: clientId, code_verifier: verifier }).toString());
    assert.equal(token.status, 401);
    assert.equal(token.body.error, 'invalid_client');
  });

  it('limits a registration flood from one address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15; i += 1) {
      statuses.push((await register({ client_name: `flood ${i}`, redirect_uris: ['http://127.0.0.1/cb'] })).status);
    }
    assert.ok(statuses.includes(429), statuses.join(','));
    assert.ok(statuses.filter((status) => status === 201).length <= 10);
  });

  it('counts clients behind a trusted proxy by their forwarded address, which they cannot forge', async () => {
    const since = nodeRed.output().length;
    const from = (forwarded: string) => ({ 'x-forwarded-for': forwarded });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      // Whatever the client claims on the left, the proxy appends the address it really saw.
      statuses.push((await register({ client_name: `busy ${i}`, redirect_uris: ['http://127.0.0.1/cb'] }, from(`198.51.100.${i}, 203.0.113.7`))).status);
    }
    assert.ok(statuses.includes(429), statuses.join(','));
    assert.equal(statuses.filter((status) => status === 201).length, 10, statuses.join(','));
    // Another client behind the same proxy, and one behind a second trusted hop, still register.
    assert.equal((await register({ client_name: 'neighbour', redirect_uris: ['http://127.0.0.1/cb'] }, from('203.0.113.8'))).status, 201);
    assert.equal((await register({ client_name: 'two hops', redirect_uris: ['http://127.0.0.1/cb'] }, from('203.0.113.9, 10.1.2.3'))).status, 201);
    await nodeRed.waitForOutput(/"event":"oauth.register".*"ip":"203\.0\.113\.7"/, since);
    await nodeRed.waitForOutput(/"event":"oauth.register".*"ip":"203\.0\.113\.9"/, since);
  });
});
