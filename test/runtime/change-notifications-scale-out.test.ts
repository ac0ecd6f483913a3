import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startBehindOneBase, type BehindOneBase } from '../support/behind-one-base.js';
import { sharedRedisInstance, tool } from '../support/flows.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import type { TestIdp } from '../support/test-idp.js';

/**
 * Two Node-RED instances behind one public address sharing one real redis-server, as in
 * oauth-scale-out.test.ts: a deploy on instance 1 that changes the tool list reaches a 2026-07-28
 * client whose subscriptions/listen stream is open on instance 2, when the change is in that client's
 * view (alice: groups mcp-users and admins).
 */

const CLIENT_ID = 'https://client.test/oauth/claude-like.json';
const BRIDGE_CLIENT = { id: 'node-red-bridge', secret: 'bridge-secret-for-tests' };

function instanceFlows(port: number, baseUrl: string, issuer: string, tools: string[] = ['first_tool']): FlowNode[] {
  return [
    ...sharedRedisInstance({ port, baseUrl, issuer, bridge: { clientId: BRIDGE_CLIENT.id, secretEnv: 'MCP_TEST_OIDC_SECRET' }, pinned: [claudeLikeDocument(CLIENT_ID)] }),
    // `name@group`: a tool limited to that group.
    ...tools.map((entry) => {
      const [name, group] = entry.split('@') as [string, string | undefined];
      return { ...tool(`t-${name}`, { name, endpoint: '/tools' }), ...(group ? { allowedGroups: group } : {}) };
    }),
  ];
}

describe(`list changes across two Node-RED instances sharing Redis on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let first: NodeRedProcess;
  let baseUrl: string;
  let secondBase: string;
  let port1: number;
  let instances: BehindOneBase | undefined;
  let client: Client | undefined;

  before(async () => {
    instances = await startBehindOneBase({
      bridge: { id: BRIDGE_CLIENT.id, secret: BRIDGE_CLIENT.secret, secretEnv: 'MCP_TEST_OIDC_SECRET' },
      flows: (port, base, issuer) => instanceFlows(port, base, issuer),
    });
    ({ idp, first, base: baseUrl, secondOrigin: secondBase, firstPort: port1 } = instances);
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await instances?.stop();
  });

  it('tells a stream open on instance 2 about deploys on instance 1: changed nodes only, and a full deploy that replaces the endpoint', { timeout: 90_000 }, async () => {
    const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
    const signIn = await signedInClient(`${baseUrl}/tools`, provider, idp, 'alice', 'auto');
    await signIn.close();
    client = new Client({ name: 'change-scale-out-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${secondBase}/tools`), { authProvider: provider }));
    const heard: string[] = [];
    let wake: (() => void) | undefined;
    client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      heard.push(notification.method);
      wake?.();
    });
    const next = (count: number) =>
      new Promise<void>((resolve) => {
        wake = () => heard.length >= count && resolve();
        wake();
      });
    const subscription = await client.listen({ toolsListChanged: true });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });

    // Instance 2's own list is unchanged: only the news from instance 1 can wake the client.
    await first.deploy(instanceFlows(port1, baseUrl, idp.issuer, ['first_tool', 'second_tool']), 'nodes');
    await next(1);
    await first.deploy(instanceFlows(port1, baseUrl, idp.issuer, ['first_tool', 'second_tool', 'third_tool']), 'full');
    await next(2);
    assert.deepEqual(heard, ['notifications/tools/list_changed', 'notifications/tools/list_changed']);
    // The instance that was deployed serves the new list; instance 2 keeps its own until it is deployed too.
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['first_tool']);
    await subscription.close();
  });

  it("tells a stream on instance 2 only of instance 1's changes to tools its caller may use", { timeout: 90_000 }, async () => {
    const heard: string[] = [];
    let wake: (() => void) | undefined;
    client!.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      heard.push(notification.method);
      wake?.();
    });
    const subscription = await client!.listen({ toolsListChanged: true });
    const tools = ['first_tool', 'second_tool', 'third_tool'];
    // A tool only maintenance may use: no news for alice. Then one for admins: news.
    await first.deploy(instanceFlows(port1, baseUrl, idp.issuer, [...tools, 'valve_tool@maintenance']), 'nodes');
    await first.deploy(instanceFlows(port1, baseUrl, idp.issuer, [...tools, 'valve_tool@maintenance', 'audit_tool@admins']), 'nodes');
    await new Promise<void>((resolve) => {
      wake = () => heard.length >= 1 && resolve();
      wake();
    });
    // Both announcements travel in order on one channel: had the first reached alice, it came first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(heard, ['notifications/tools/list_changed']);
    await subscription.close();
  });
});
