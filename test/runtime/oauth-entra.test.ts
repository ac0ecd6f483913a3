import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { answer, entraAuth, oauthServer, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, rawSignIn, signedInClient, TestOAuthProvider, type RawSignInOptions } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

/**
 * The bridge in front of a Microsoft-shaped provider: oidc-provider serving the tenant-specific v2
 * issuer `<origin>/<tenant>/v2.0`, with the user's app roles in the ID token's `roles` claim and no
 * `email` (the address comes from `preferred_username`). The endpoint's group is an app role.
 */

const TENANT_ID = randomUUID();
// Entra application (client) IDs are GUIDs; the bridge refuses anything else.
const APP = { id: randomUUID(), secret: 'entra-app-secret-for-tests' };
const CLIENT_ID = 'https://client.test/oauth/claude-like.json';
const REDIRECT = 'http://127.0.0.1:49152/callback';
const APP_ROLE = 'mcp-users';

function entraFlows(port: number, authority: string): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    storage('store', 'memory'),
    entraAuth('auth', {
      storage: 'store',
      tenantId: TENANT_ID,
      clientId: APP.id,
      secretEnv: 'MCP_TEST_ENTRA_SECRET',
      authority,
      pinned: [claudeLikeDocument(CLIENT_ID)],
    }),
    oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: APP_ROLE, wires: ['who'] }),
    answer(
      'who',
      `msg.topic = 'mcp-tool-response';\nconst { subject, email, groups, client } = msg.mcp;\nmsg.payload = { executionId: msg.payload.executionId, result: { subject, email, groups, client } };\nreturn msg;`,
      'fs',
    ),
    tool('t-who', { name: 'whoami', endpoint: '/tools' }),
  ];
}

describe(`OAuth sign-in through Microsoft Entra ID (test tenant) on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let nodeRed: NodeRedProcess;
  let url: string;
  let signIn: (username: string) => RawSignInOptions;
  /** Alice's client from the first sign-in; its token outlives her role (no refresh tokens yet). */
  let alice: TestOAuthProvider;

  before(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    url = `${base}/tools`;
    idp = await startTestIdp({
      entra: { tenantId: TENANT_ID },
      clients: [{ client_id: APP.id, client_secret: APP.secret, redirect_uris: [`${base}/oauth/team/callback`] }],
    });
    assert.equal(idp.issuer, `${idp.origin}/${TENANT_ID}/v2.0`);
    nodeRed = await startNodeRed(entraFlows(port, idp.origin), { env: { MCP_TEST_ENTRA_SECRET: APP.secret } });
    await waitForEndpoint(url);
    signIn = (username) => ({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: REDIRECT, idp, username, resource: url });
  });

  after(async () => {
    await nodeRed?.stop();
    await idp?.stop();
  });

  it('signs in a user holding the app role; the flow sees the roles as msg.mcp.groups', async () => {
    alice = new TestOAuthProvider(CLIENT_ID, await freePort());
    const client = await signedInClient(url, alice, idp, 'alice');
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['whoami']);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      const caller = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
      assert.deepEqual(caller, { subject: 'alice', email: 'alice@example.test', groups: ['mcp-users', 'admins'], client: 'client.test' });
    } finally {
      await client.close();
    }
    await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"success","subject":"alice"/);
  });

  it('sends access_denied to the client for a user without the app role', async () => {
    const since = nodeRed.output().length;
    const refused = await rawSignIn(signIn('bob'));
    assert.equal(refused.code, null);
    assert.equal(refused.error, 'access_denied');
    await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"refused","reason":"not_in_groups"[^\n]*"subject":"bob"/, since);
  });

  it('refuses a new sign-in once the role is removed upstream, while the token already issued keeps working', async () => {
    idp.setGroups('alice', ['admins']);
    const since = nodeRed.output().length;
    const refused = await rawSignIn(signIn('alice'));
    assert.equal(refused.code, null);
    assert.equal(refused.error, 'access_denied');
    await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"refused","reason":"not_in_groups"[^\n]*"subject":"alice"/, since);

    // The role is read at sign-in only. There is no refresh grant yet, so nothing asks the provider
    // again: an access token issued before the change stays valid until it expires (at most 900 s).
    const client = new Client({ name: 'oauth-entra-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: alice }));
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text).groups, ['mcp-users', 'admins']);
    } finally {
      await client.close();
    }
  });

  it('sends access_denied for a user with no app role at all', async () => {
    idp.setGroups('alice', []);
    const since = nodeRed.output().length;
    const refused = await rawSignIn(signIn('alice'));
    assert.equal(refused.error, 'access_denied');
    assert.equal(refused.code, null);
    await nodeRed.waitForOutput(/"event":"oauth\.sign_in","outcome":"refused","reason":"missing_claim"/, since);
  });
});
