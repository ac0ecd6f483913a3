import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startBehindOneBase, type BehindOneBase } from '../support/behind-one-base.js';
import { answer, sharedRedisInstance, tool } from '../support/flows.js';
import { postJsonRpc, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import {
  beginRawSignIn,
  claudeLikeDocument,
  exchangeCode,
  finishRawSignIn,
  signedInClient,
  TestOAuthProvider,
} from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import type { TestIdp } from '../support/test-idp.js';

/**
 * Two Node-RED instances behind one public address, as behind a load balancer: the same flows, the
 * same Base URL (instance 1's address stands in for the balancer's), different listening ports, and
 * one real redis-server holding sign-ins and tokens. A token issued through either instance works on
 * both, and keeps working when the instance that issued it is gone.
 */

const CLIENT_ID = 'https://client.test/oauth/claude-like.json';
const REDIRECT = 'http://127.0.0.1:49152/callback';
const BRIDGE_CLIENT = { id: 'node-red-bridge', secret: 'bridge-secret-for-tests' };

/** The tool answers with the caller and with which instance ran the flow (MCP_TEST_INSTANCE). */
function instanceFlows(port: number, baseUrl: string, issuer: string): FlowNode[] {
  return [
    ...sharedRedisInstance({ port, baseUrl, issuer, bridge: { clientId: BRIDGE_CLIENT.id, secretEnv: 'MCP_TEST_OIDC_SECRET' }, pinned: [claudeLikeDocument(CLIENT_ID)], wires: ['who'] }),
    answer(
      'who',
      `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: { subject: msg.mcp.subject, instance: env.get('MCP_TEST_INSTANCE') } };\nreturn msg;`,
      'fs',
    ),
    tool('t-who', { name: 'whoami', endpoint: '/tools' }),
  ];
}

function rawCall(url: string, token: string, method: string, params?: object): Promise<RawResponse> {
  return postJsonRpc(url, { jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }, { authorization: `Bearer ${token}` });
}

function textOf(result: { content?: unknown }): any {
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
}

describe(`OAuth across two Node-RED instances sharing Redis on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let first: NodeRedProcess;
  let second: NodeRedProcess;
  let baseUrl: string;
  let secondBase: string;
  /** The provider that signed in through instance 1; its tokens are reused against instance 2. */
  let provider: TestOAuthProvider;
  let instances: BehindOneBase | undefined;

  before(async () => {
    instances = await startBehindOneBase({
      bridge: { id: BRIDGE_CLIENT.id, secret: BRIDGE_CLIENT.secret, secretEnv: 'MCP_TEST_OIDC_SECRET' },
      flows: instanceFlows,
      start: (instance) => ({ env: { MCP_TEST_INSTANCE: instance === 'one' ? '1' : '2' } }),
    });
    ({ idp, first, second, base: baseUrl, secondOrigin: secondBase } = instances);
  });

  after(() => instances?.stop());

  it('serves a token issued through instance 1 on instance 2 (raw POST and the official client)', async () => {
    provider = new TestOAuthProvider(CLIENT_ID, await freePort());
    const client1 = await signedInClient(`${baseUrl}/tools`, provider, idp, 'alice');
    try {
      assert.deepEqual(textOf(await client1.callTool({ name: 'whoami', arguments: {} })), { subject: 'alice', instance: '1' });
    } finally {
      await client1.close();
    }
    const token = provider.accessToken;
    assert.ok(token);

    const list = await rawCall(`${secondBase}/tools`, token, 'tools/list');
    assert.equal(list.status, 200);
    assert.deepEqual(list.json().result.tools.map((t: { name: string }) => t.name), ['whoami']);
    const call = await rawCall(`${secondBase}/tools`, token, 'tools/call', { name: 'whoami', arguments: {} });
    assert.equal(call.status, 200);
    assert.deepEqual(textOf(call.json().result), { subject: 'alice', instance: '2' });

    // The official client at instance 2's port, holding the tokens from the sign-in through instance 1.
    const client2 = new Client({ name: 'oauth-scale-out-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client2.connect(new StreamableHTTPClientTransport(new URL(`${secondBase}/tools`), { authProvider: provider }));
    try {
      assert.deepEqual((await client2.listTools()).tools.map((t) => t.name), ['whoami']);
      assert.deepEqual(textOf(await client2.callTool({ name: 'whoami', arguments: {} })), { subject: 'alice', instance: '2' });
    } finally {
      await client2.close();
    }
    await second.waitForOutput(/"event":"mcp\.tool_call","outcome":"success","tool":"whoami","subject":"alice"/);
  });

  it('finishes a sign-in started on instance 2 whose callback lands on instance 1, and exchanges the code on instance 2', async () => {
    const options = { base: secondBase, slug: 'team', clientId: CLIENT_ID, redirectUri: REDIRECT, resource: `${baseUrl}/tools` };
    const begun = await beginRawSignIn(options);
    const toBridge = await idp.signIn(begun.providerUrl, 'alice');
    // The provider sends the browser to the Base URL, here instance 1.
    assert.ok(toBridge.startsWith(`${baseUrl}/oauth/team/callback`));
    const callback = await finishRawSignIn(toBridge, begun.cookie);
    await callback.body?.cancel();
    assert.equal(callback.status, 302);
    const landing = new URL(callback.headers.get('location')!);
    assert.equal(landing.searchParams.get('iss'), baseUrl);
    const code = landing.searchParams.get('code');
    assert.ok(code, `no code: ${landing}`);
    const issued = await exchangeCode({ ...options, code, verifier: begun.verifier });
    assert.equal(issued.status, 200);
    const call = await rawCall(`${secondBase}/tools`, issued.body.access_token, 'tools/call', { name: 'whoami', arguments: {} });
    assert.deepEqual(textOf(call.json().result), { subject: 'alice', instance: '2' });
  });

  it('refuses on instance 2 within 1 s a token revoked through instance 1, though instance 2 had just served it', async (t) => {
    const options = { base: baseUrl, slug: 'team', clientId: CLIENT_ID, redirectUri: REDIRECT, resource: `${baseUrl}/tools` };
    const begun = await beginRawSignIn(options);
    const callback = await finishRawSignIn(await idp.signIn(begun.providerUrl, 'alice'), begun.cookie);
    await callback.body?.cancel();
    const code = new URL(callback.headers.get('location')!).searchParams.get('code');
    assert.ok(code);
    const token = (await exchangeCode({ ...options, code, verifier: begun.verifier })).body.access_token as string;
    const callSecond = () => rawCall(`${secondBase}/tools`, token, 'tools/call', { name: 'whoami', arguments: {} });
    // Several calls in a row: instance 2 has checked this token moments ago when the revocation comes.
    for (let i = 0; i < 5; i += 1) assert.equal((await callSecond()).status, 200);

    const revoked = await fetch(`${baseUrl}/oauth/team/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: CLIENT_ID }),
    });
    assert.equal(revoked.status, 200);
    const revokedAt = performance.now();
    let refusedAfterMs: number | undefined;
    while (performance.now() - revokedAt < 5_000) {
      const answer = await callSecond();
      if (answer.status === 401) {
        refusedAfterMs = performance.now() - revokedAt;
        assert.match(String(answer.headers['www-authenticate'] ?? ''), /error="invalid_token"/);
        break;
      }
      assert.equal(answer.status, 200);
    }
    t.diagnostic(`instance 2 refused the revoked token ${refusedAfterMs?.toFixed(0)} ms after instance 1 answered the revocation`);
    assert.ok(refusedAfterMs !== undefined && refusedAfterMs < 1_000, `refused after ${refusedAfterMs?.toFixed(0) ?? 'more than 5000'} ms`);
  });

  it('keeps serving the token on instance 2 after instance 1 is stopped', async () => {
    await first.stop();
    await assert.rejects(fetch(`${baseUrl}/tools`), (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED', 'instance 1 is gone');
    const client2 = new Client({ name: 'oauth-scale-out-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client2.connect(new StreamableHTTPClientTransport(new URL(`${secondBase}/tools`), { authProvider: provider }));
    try {
      assert.deepEqual(textOf(await client2.callTool({ name: 'whoami', arguments: {} })), { subject: 'alice', instance: '2' });
    } finally {
      await client2.close();
    }
  });
});
