import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startBehindOneBase, type BehindOneBase } from '../support/behind-one-base.js';
import { answer, sharedRedisInstance, tool } from '../support/flows.js';
import { postJsonRpc } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { beginRawSignIn, claudeLikeDocument, exchangeCode, postToken, rawSignIn, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import type { TestIdp } from '../support/test-idp.js';

const CLIENT_ID = 'https://client.test/oauth/refresh-test.json';
const SECRET = 'bridge-secret-for-refresh-tests';
const REFRESH_KEY = randomBytes(32).toString('hex');
const ADMIN_TOKENS = { write: `write-${randomBytes(12).toString('hex')}`, read: `read-${randomBytes(12).toString('hex')}` };

/** The same flows on two instances behind one Base URL (a load balancer), sharing one Redis. */
function instanceFlows(port: number, baseUrl: string, issuer: string): FlowNode[] {
  return [
    ...sharedRedisInstance({ port, baseUrl, issuer, bridge: { clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET' }, pinned: [claudeLikeDocument(CLIENT_ID)], wires: ['who'] }),
    answer('who', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: msg.mcp.subject };\nreturn msg;`, 'fs'),
    tool('t', { name: 'whoami', endpoint: '/tools' }),
  ];
}

describe(`refresh tokens across two Node-RED processes on one Redis on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let one: NodeRedProcess;
  let base: string;
  let originTwo: string;
  let instances: BehindOneBase | undefined;
  let first: { access_token: string; refresh_token: string };

  const refreshAt = (origin: string, refreshToken: string) =>
    postToken(origin, 'team', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID }).toString());
  const callWith = (origin: string, token: string) =>
    postJsonRpc(`${origin}/tools`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, { authorization: `Bearer ${token}` });

  before(async () => {
    const credentials = { auth: { oidcRefreshKey: REFRESH_KEY } };
    instances = await startBehindOneBase({
      bridge: { id: 'bridge', secret: SECRET, secretEnv: 'MCP_TEST_SECRET' },
      refreshTokens: true,
      flows: instanceFlows,
      start: (instance) => (instance === 'one' ? { credentials, adminTokens: ADMIN_TOKENS } : { credentials }),
    });
    ({ idp, first: one, base, secondOrigin: originTwo } = instances);
  });
  after(() => instances?.stop());

  it('advertises the refresh grant and offline_access', async () => {
    const metadata = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.ok(metadata.scopes_supported.includes('offline_access'));
  });

  it('gives the official client a refresh token at sign-in on instance 1', async () => {
    const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
    const client = await signedInClient(`${base}/tools`, provider, idp, 'alice');
    await client.close();
    const tokens = provider.tokens();
    assert.ok(tokens.refresh_token, 'refresh token issued');
    first = tokens;
  });

  it('refreshes on instance 2 a token issued by instance 1, and the new access token works there', async () => {
    const providerCallsBefore = idp.requestCount('token');
    const refreshed = await refreshAt(originTwo, first.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, first.refresh_token, 'rotated');
    assert.ok(idp.requestCount('token') > providerCallsBefore, 'the provider was asked');
    const call = await callWith(originTwo, refreshed.body.access_token);
    assert.equal(call.json().result.content[0].text, 'alice');

    // A retry of the same refresh inside the grace period (a client refreshing from two places)
    // gets the same pair, without asking the provider again.
    const providerCalls = idp.requestCount('token');
    const retry = await refreshAt(base, first.refresh_token);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.access_token, refreshed.body.access_token);
    assert.equal(retry.body.refresh_token, refreshed.body.refresh_token);
    assert.equal(idp.requestCount('token'), providerCalls);
    first = refreshed.body;
  });

  it('ends the session at the next refresh when the user leaves the endpoint\'s groups upstream', async () => {
    idp.setGroups('alice', ['other']);
    const refused = await refreshAt(base, first.refresh_token);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error, 'invalid_grant');
    const call = await callWith(base, first.access_token);
    assert.equal(call.status, 401, 'the session\'s access tokens end with it');
    idp.setGroups('alice', ['mcp-users', 'admins']);
  });

  it('revokes the refresh session and its access token when a code is used twice', async () => {
    const options = { base, slug: 'team', clientId: CLIENT_ID, redirectUri: `http://localhost:${await freePort()}/callback`, idp, username: 'alice' };
    const signedIn = await rawSignIn(options);
    assert.ok(signedIn.code, signedIn.error ?? '');
    const exchange = { ...options, code: signedIn.code, verifier: signedIn.verifier };
    const first = await exchangeCode(exchange);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.ok(first.body.refresh_token, 'offline_access was granted');
    const replay = await exchangeCode(exchange);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.equal((await callWith(base, first.body.access_token)).status, 401, 'the access token from the code is revoked');
    assert.equal((await refreshAt(originTwo, first.body.refresh_token)).body.error, 'invalid_grant', 'so is the refresh token, on every instance');
  });

  /** Authorize, provider login and the bridge's callback for alice: the browser's view of the callback. */
  async function callbackFor(username: string) {
    const begun = await beginRawSignIn({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: `http://localhost:${await freePort()}/callback` });
    return fetch(await idp.signIn(begun.providerUrl, username), { redirect: 'manual', headers: { cookie: begun.cookie } });
  }

  it('revoking a refresh token ends the session, audits whose it was, and keeps the remembered consent', async () => {
    const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
    const client = await signedInClient(`${base}/tools`, provider, idp, 'alice');
    await client.close();
    const { refresh_token: refreshToken } = provider.tokens();
    const since = one.output().length;
    const revoke = await fetch(`${base}/oauth/team/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token', client_id: CLIENT_ID }).toString(),
    });
    assert.equal(revoke.status, 200);
    const refused = await refreshAt(base, refreshToken);
    assert.equal(refused.body.error, 'invalid_grant');
    // Every audit line says whose token it was (issue 14, item 8).
    await one.waitForOutput(/"event":"oauth\.revoke","outcome":"revoked","tokenType":"refresh_token","subject":"alice","client":"client\.test","session":"[A-Za-z0-9_-]{12}"/, since);
    // Clients revoke their old tokens on every new login (Claude Code does): the user's approval stays.
    const callback = await callbackFor('alice');
    await callback.body?.cancel();
    assert.equal(callback.status, 302, 'no consent page after the client revoked its token');
    assert.ok(new URL(callback.headers.get('location')!).searchParams.get('code'));
  });

  it('lets the admin withdraw a remembered consent through the editor\'s admin API, guarded by its permissions', async () => {
    const withdraw = (token: string | undefined, body: unknown, id = 'auth') =>
      fetch(`${one.adminUrl}/mcp-auth/${id}/consent/withdraw`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const request = { subject: 'alice', client_id: CLIENT_ID };
    for (const token of [undefined, ADMIN_TOKENS.read]) {
      const denied = await withdraw(token, request);
      await denied.body?.cancel();
      assert.equal(denied.status, 401, `token ${token ? 'read-only' : 'missing'}`);
    }
    const stillRemembered = await callbackFor('alice');
    await stillRemembered.body?.cancel();
    assert.equal(stillRemembered.status, 302, 'a refused withdrawal changes nothing');

    const incomplete = await withdraw(ADMIN_TOKENS.write, { subject: 'alice' });
    assert.equal(incomplete.status, 400);
    assert.equal((await incomplete.json()).error, 'invalid_consent_withdrawal');
    const unknown = await withdraw(ADMIN_TOKENS.write, request, 'no-such-node');
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();

    const since = one.output().length;
    const withdrawn = await withdraw(ADMIN_TOKENS.write, request);
    assert.equal(withdrawn.status, 200);
    assert.deepEqual(await withdrawn.json(), { withdrawn: true });
    await one.waitForOutput(/"event":"oauth\.consent","outcome":"withdrawn","subject":"alice","client":"client\.test"/, since);
    // The next sign-in asks again, on either instance (the approval lived in the shared Redis).
    const callback = await callbackFor('alice');
    assert.equal(callback.status, 200);
    assert.match(await callback.text(), /<form method="post" action="\/oauth\/team\/consent"/);
  });
});
