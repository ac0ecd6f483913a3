import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oidcAuth, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { answerConsent, beginRawSignIn, claudeLikeDocument } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { stopInTurn } from '../support/stop-in-turn.js';
import { DEFAULT_TEST_USERS, startTestIdp, type TestIdp } from '../support/test-idp.js';

const CLIENT_ID = 'https://client.test/oauth/consent-test.json';
const SECRET = 'bridge-secret-for-consent-tests';

describe(`consent before a code is issued on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let nodeRed: NodeRedProcess;
  let base: string;
  let redirectUri: string;

  /** Authorize, provider login, callback: the response the browser gets from the bridge's callback. */
  async function toCallback(username: string) {
    const begun = await beginRawSignIn({ base, slug: 'team', clientId: CLIENT_ID, redirectUri });
    const callbackUrl = await idp.signIn(begun.providerUrl, username);
    const response = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: begun.cookie } });
    return { response, callbackUrl };
  }

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    redirectUri = `http://localhost:${await freePort()}/callback`;
    idp = await startTestIdp({
      clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`${base}/oauth/team/callback`] }],
      users: [...DEFAULT_TEST_USERS, { username: 'carol', email: 'carol@example.test', name: 'Carol <Example>', groups: ['mcp-users'] }],
    });
    nodeRed = await startNodeRed(
      [
        tab(),
        runtimeWithBaseUrl('rt', port),
        storage('store', 'memory'),
        oidcAuth('auth', { storage: 'store', issuer: idp.issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [{ ...claudeLikeDocument(CLIENT_ID), client_name: 'Helper <b>Bot</b>' }] }),
        { ...flowServer('fs', { runtime: 'rt', path: '/tools', serverName: 'Team tools', wires: ['ok'] }), access: 'oauth', auth: 'auth', groups: 'mcp-users' },
        answer('ok', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'ok' };\nreturn msg;`, 'fs'),
        tool('t', { name: 'ok', endpoint: '/tools' }),
      ],
      { env: { MCP_TEST_SECRET: SECRET } },
    );
    await waitForEndpoint(`${base}/tools`);
  });
  after(() => stopInTurn(nodeRed, idp));

  it('shows who is asking for what, escaped, in a page that cannot be framed', async () => {
    const { response } = await toCallback('alice');
    assert.equal(response.status, 200);
    const page = await response.text();
    assert.match(page, /Helper (&lt;|&#60;)b(&gt;|&#62;)Bot/, 'client name, escaped');
    assert.ok(!page.includes('<b>Bot</b>'));
    assert.ok(page.includes('localhost'), 'redirect host');
    assert.ok(page.includes('/tools') && page.includes('Team tools'), 'endpoint');
    assert.ok(page.includes('alice@example.test'), 'signed-in account');
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('cache-control'), 'no-store');
  });

  it('issues a code once approved, and remembers the approval for the next sign-in', async () => {
    const first = await toCallback('alice');
    const approved = await answerConsent(first.response, first.callbackUrl, 'approve');
    assert.equal(approved.status, 302);
    const landing = new URL(approved.headers.get('location')!);
    assert.ok(landing.toString().startsWith(redirectUri));
    assert.ok(landing.searchParams.get('code'));
    assert.equal(landing.searchParams.get('iss'), base);

    const second = await toCallback('alice');
    assert.equal(second.response.status, 302, 'no consent page the second time');
    assert.ok(new URL(second.response.headers.get('location')!).searchParams.get('code'));
  });

  it('sends access_denied to the client when the user denies', async () => {
    const { response, callbackUrl } = await toCallback('carol');
    assert.equal(response.status, 200);
    const denied = await answerConsent(response, callbackUrl, 'deny');
    assert.equal(denied.status, 302);
    const landing = new URL(denied.headers.get('location')!);
    assert.equal(landing.searchParams.get('error'), 'access_denied');
    assert.equal(landing.searchParams.get('code'), null);
    await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"refused","reason":"consent_denied"/);
  });

  it('refuses a consent answer without the consent cookie or with a forged CSRF token', async () => {
    for (const tamper of ['no-cookie', 'bad-csrf'] as const) {
      const { response } = await toCallback('carol');
      const page = await response.text();
      const fields = new URLSearchParams();
      for (const [, name, value] of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name!, value!);
      fields.set('decision', 'approve');
      if (tamper === 'bad-csrf') fields.set('csrf', 'forged-token-value');
      const cookies = response.headers.getSetCookie().map((header) => header.split(';')[0]).join('; ');
      const post = await fetch(`${base}/oauth/team/consent`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(tamper === 'no-cookie' ? {} : { cookie: cookies }) },
        body: fields.toString(),
      });
      assert.equal(post.status, 400, tamper);
      assert.equal(post.headers.get('location'), null, `${tamper}: no code`);
    }
  });
});
