import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oidcAuth, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { postJsonRpc, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

const CLIENT_ID = 'https://client.test/oauth/claude-like.json';
const BRIDGE_CLIENT = { id: 'node-red-bridge', secret: 'bridge-secret-for-tests' };

/** An OAuth endpoint whose one tool answers with the caller the flow was given in msg.mcp. */
function signedInFlows(port: number, issuer: string, mode: 'memory' | 'redis'): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    storage('store', mode, mode === 'redis' ? 'MCP_TEST_REDIS_URL' : undefined),
    oidcAuth('auth', { storage: 'store', issuer, clientId: BRIDGE_CLIENT.id, secretEnv: 'MCP_TEST_OIDC_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    { ...flowServer('fs', { runtime: 'rt', path: '/tools', wires: ['who'] }), access: 'oauth', auth: 'auth', groups: 'mcp-users, admins' },
    answer('who', `msg.topic = 'mcp-tool-response';\nconst { subject, email, groups, client, endpoint } = msg.mcp;\nmsg.payload = { executionId: msg.payload.executionId, result: { subject, email, groups, client, endpoint } };\nreturn msg;`, 'fs'),
    tool('t-who', { name: 'whoami', endpoint: '/tools' }),
  ];
}

for (const mode of ['memory', 'redis'] as const) {
  describe(`OAuth sign-in end to end with ${mode} storage on ${nodeRedPackage}`, () => {
    let idp: TestIdp;
    let redis: RedisServer | undefined;
    let nodeRed: NodeRedProcess;
    let port: number;
    let env: Record<string, string>;

    before(async () => {
      port = await freePort();
      idp = await startTestIdp({
        clients: [{ client_id: BRIDGE_CLIENT.id, client_secret: BRIDGE_CLIENT.secret, redirect_uris: [`http://127.0.0.1:${port}/oauth/team/callback`] }],
      });
      env = { MCP_TEST_OIDC_SECRET: BRIDGE_CLIENT.secret };
      if (mode === 'redis') {
        redis = await startRedis();
        env.MCP_TEST_REDIS_URL = redis.url;
      }
      nodeRed = await startNodeRed(signedInFlows(port, idp.issuer, mode), { env });
      await waitForEndpoint(`http://127.0.0.1:${port}/tools`);
    });
    after(async () => {
      await nodeRed?.stop();
      await idp?.stop();
      await redis?.stop();
    });

    it('signs in like Claude Code (pinned CIMD, random loopback port) and the flow sees the caller', async () => {
      const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
      const client = await signedInClient(`http://127.0.0.1:${port}/tools`, provider, idp, 'alice');
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name), ['whoami']);
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        const caller = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
        assert.equal(caller.subject, 'alice');
        assert.equal(caller.email, 'alice@example.test');
        assert.deepEqual(caller.groups, ['mcp-users', 'admins']);
        assert.equal(caller.client, 'client.test');
        assert.equal(caller.endpoint, '/tools');
      } finally {
        await client.close();
      }
      await nodeRed.waitForOutput(/"event":"oauth\.token","outcome":"success","subject":"alice"/);
      await nodeRed.waitForOutput(/"event":"mcp\.tool_call","outcome":"success","tool":"whoami","subject":"alice"/);
    });

    it('keeps the handshake anonymous and asks for a token on everything else', async () => {
      const url = `http://127.0.0.1:${port}/tools`;
      const init = await postJsonRpc(url, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      });
      assert.equal(init.status, 200);
      const list = await postJsonRpc(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      assert.equal(list.status, 401);
      assert.equal(
        list.headers['www-authenticate'],
        `Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/tools", scope="openid profile email groups"`,
      );
    });

    it('refuses a request whose Host header forms no URL with a JSON-RPC error, not a crash', async () => {
      const url = `http://127.0.0.1:${port}/tools`;
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } };
      const refused = await postJsonRpc(url, initialize, { host: 'bad host' });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.json(), { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request: the Host header does not form a valid URL.' }, id: null });
      assert.equal((await postJsonRpc(url, initialize)).status, 200, 'the endpoint keeps serving');
    });
  });
}
