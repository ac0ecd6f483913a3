import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oidcAuth, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { authorizeUrl, beginRawSignIn, finishRawSignIn, pkcePair, postToken, RegisteringOAuthProvider, signedInClient } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { readProblemPage } from '../support/problem-page.js';
import { stopInTurn } from '../support/stop-in-turn.js';
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
        { ...oidcAuth('auth', { storage: 'store', issuer: idp.issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', clientHosts: 'trusted-redirect.test' }), dcrEnabled: true, dcrSchemes: 'cursor' },
        { ...flowServer('fs', { runtime: 'rt', path: '/tools', wires: ['who'] }), access: 'oauth', auth: 'auth', groups: 'mcp-users' },
        answer('who', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: msg.mcp.subject + ' via ' + msg.mcp.client };\nreturn msg;`, 'fs'),
        tool('t', { name: 'whoami', endpoint: '/tools' }),
      ],
      { env: { MCP_TEST_SECRET: SECRET } },
    );
    await waitForEndpoint(`${base}/tools`);
  });
  after(() => stopInTurn(nodeRed, idp));

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
    const page = await readProblemPage(authorize);
    assert.equal(page.status, 401);
    assert.equal(page.error, 'invalid_client');
    assert.equal(page.heading, 'This MCP client is not registered here');
    const token = await postToken(base, 'team', new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://127.0.0.1:9/cb', client_id: clientId, code_verifier: verifier }).toString());
    assert.equal(token.status, 401);
    assert.equal(token.body.error, 'invalid_client');
  });

  describe('registered clients whose redirect URI anyone could have registered (RFC 9700 §4.11.2)', () => {
    const ATTACKER = 'https://attacker.example/cb';
    const LOOPBACK = 'http://127.0.0.1:49152/callback';
    const ALLOW_LISTED = 'https://trusted-redirect.test/cb';
    const clients = new Map<string, string>();

    before(async () => {
      for (const redirect of [ATTACKER, LOOPBACK, ALLOW_LISTED]) {
        // From an address of its own (through the trusted proxy), whatever the flood tests used up.
        const response = await register({ client_name: 'Claude Code', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }, { 'x-forwarded-for': '198.51.100.200' });
        assert.equal(response.status, 201);
        clients.set(redirect, (await response.json()).client_id);
      }
    });

    const brokenAuthorize = (redirect: string, params: Record<string, string | undefined>) =>
      fetch(
        authorizeUrl(base, 'team', {
          response_type: 'code',
          client_id: clients.get(redirect),
          redirect_uri: redirect,
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
          state: 'client-state',
          resource: `${base}/tools`,
          ...params,
        }),
        { redirect: 'manual' },
      );
    const broken: Array<Record<string, string | undefined>> = [
      { response_type: 'token' },
      { code_challenge: undefined, code_challenge_method: undefined },
      { resource: `${base}/not-an-endpoint` },
    ];

    it('shows errors before sign-in on a page of the bridge for a registered https redirect, never redirecting there', async () => {
      for (const params of broken) {
        const response = await brokenAuthorize(ATTACKER, params);
        const page = await response.text();
        assert.equal(response.status, 400, JSON.stringify(params));
        assert.equal(response.headers.get('location'), null, `${JSON.stringify(params)}: no redirect to the registered site`);
        assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(page, /Sign-in stopped/);
        assert.ok(!page.includes('attacker.example'), 'not even a link there');
      }
    });

    it('keeps redirecting errors to loopback and allow-listed redirect URIs', async () => {
      for (const redirect of [LOOPBACK, ALLOW_LISTED]) {
        for (const params of broken) {
          const response = await brokenAuthorize(redirect, params);
          await response.body?.cancel();
          assert.equal(response.status, 302, `${redirect} ${JSON.stringify(params)}`);
          const location = new URL(response.headers.get('location')!);
          assert.equal(`${location.origin}${location.pathname}`, redirect);
          assert.ok(location.searchParams.get('error'));
          assert.equal(location.searchParams.get('state'), 'client-state');
        }
      }
    });

    it('shows a "declined" page when the user denies such a client, and a refusal after sign-in on a page too', async () => {
      const since = nodeRed.output().length;
      const signIn = async (redirect: string, username: string, decision: 'approve' | 'deny') => {
        const begun = await beginRawSignIn({ base, slug: 'team', clientId: clients.get(redirect)!, redirectUri: redirect, resource: `${base}/tools` });
        return finishRawSignIn(await idp.signIn(begun.providerUrl, username), begun.cookie, decision);
      };
      const declined = await signIn(ATTACKER, 'alice', 'deny');
      assert.equal(declined.status, 200);
      assert.equal(declined.headers.get('location'), null);
      assert.match(await declined.text(), /Access declined/);
      await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"refused","reason":"consent_denied","subject":"alice","client":"registered:claude"/, since);

      // bob is outside the endpoint's groups: refused after his sign-in, still not sent to the registered site.
      const refused = await signIn(ATTACKER, 'bob', 'approve');
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('location'), null);
      await refused.body?.cancel();

      const loopbackDenied = await signIn(LOOPBACK, 'alice', 'deny');
      assert.equal(loopbackDenied.status, 302);
      assert.equal(new URL(loopbackDenied.headers.get('location')!).searchParams.get('error'), 'access_denied');

      // Approving is the user's decision: the code goes to the registered site.
      const approved = await signIn(ATTACKER, 'alice', 'approve');
      assert.equal(approved.status, 302);
      assert.ok(new URL(approved.headers.get('location')!).searchParams.get('code'));
    });
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
